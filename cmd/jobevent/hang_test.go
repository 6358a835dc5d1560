package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobevent/jobevent/internal/blobtest"
)

// TestReadingCommands_SickStorage runs every command that reads a LOG
// against an S3 endpoint on 127.0.0.1 that accepts connections and never
// answers: each must give up with one line and exit 2 within 30 s (the
// store's 20 s without progress, and nothing that waits without a
// deadline: not the probe that recognises a Flink log either).
func TestReadingCommands_SickStorage(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the 20 s request timeout")
	}
	blobtest.FakeAWS(t)
	hole := "s3://sick?endpoint=http://" + blobtest.BlackHole(t) + "&use_path_style=true&region=us-east-1"
	log := hole + "&prefix=jobs/a/"
	dir := t.TempDir()
	tests := [][]string{
		{"dump", log},
		{"validate", log},
		{"replay", log, "--dry-run"},
		{"stats", log},
		{"diff", log, logPath("healthy.jsonl")},
		{"timeline", log, "--svg", filepath.Join(dir, "t.svg")},
		{"ls", hole},
		{"status", log},
		{"import", logPath("healthy.jsonl"), log},
		{"run", filepath.Join("..", "..", "testdata", "jobs", "wordcount.yaml"), "--events", log},
	}
	// All at once (each waits 20 s): subtests would run two at a time.
	type outcome struct {
		r    result
		took time.Duration
	}
	done := make([]chan outcome, len(tests))
	for i, args := range tests {
		done[i] = make(chan outcome, 1)
		go func() {
			start := time.Now()
			r := runCLI(t, args...)
			done[i] <- outcome{r, time.Since(start)}
		}()
	}
	for i, args := range tests {
		o := <-done[i]
		t.Run(args[0], func(t *testing.T) {
			o.r.wantCode(t, 2)
			if lines := strings.Split(strings.TrimSpace(o.r.stderr), "\n"); len(lines) != 1 {
				t.Errorf("stderr has %d lines, want one:\n%s", len(lines), o.r.stderr)
			}
			if o.took > 30*time.Second {
				t.Errorf("took %v against a storage that never answers, want at most 30 s", o.took)
			}
			t.Logf("%v: %s", o.took.Round(time.Millisecond), strings.TrimSpace(o.r.stderr))
		})
	}
}
