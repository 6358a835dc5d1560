package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/jobevent/jobevent/internal/loggen"
	"github.com/jobevent/jobevent/pkg/blob"
)

// replayBenchEvents sizes BenchmarkReplayDryRun's log: go test -bench
// ReplayDryRun -replay-events 1000000 ./cmd/jobevent/ is the README's
// figure (the log of bench/replay.sh).
var replayBenchEvents = flag.Int64("replay-events", 200_000, "events in BenchmarkReplayDryRun's log")

// importGenerated writes the log loggen generates with o to a fresh
// mem:// bucket in segments of 100k events, as import does, and returns
// its URL.
func importGenerated(tb testing.TB, name string, o loggen.Options) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	url := fmt.Sprintf("mem://%s-%d", name, time.Now().UnixNano())
	log, err := blob.Create(ctx, url)
	if err != nil {
		tb.Fatal(err)
	}
	defer log.Close()
	if _, err := blob.Import(ctx, log, loggen.Job(o), blob.ImportOptions{SegmentEvents: 100_000}); err != nil {
		tb.Fatal(err)
	}
	return url
}

// BenchmarkReplayDryRun is "jobevent replay LOG --dry-run" through the
// whole command (read, fold, plan, render) on the wide clean run, in JSON
// (the README's target) and as a table, and with a what-if flag.
func BenchmarkReplayDryRun(b *testing.B) {
	url := importGenerated(b, "replay-bench", loggen.WideOptions(*replayBenchEvents))
	for _, c := range []struct {
		name string
		args []string
	}{
		{"json", []string{"--format", "json"}},
		{"table", []string{"--format", "table"}},
		{"json-lost-worker", []string{"--format", "json", "--lost-worker", "w7"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				args := append([]string{"jobevent", "replay", url, "--dry-run"}, c.args...)
				if code := runMain(b.Context(), args, bytes.NewReader(nil), io.Discard, io.Discard); code != 0 {
					b.Fatalf("exit code %d", code)
				}
			}
			b.ReportMetric(float64(*replayBenchEvents)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
