package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobevent/jobevent/pkg/blob"
)

const napJob = `job: slow
vertices:
  - id: numbers
    operator: sequence
    args: {from: 0, to: 99, splits: 2}
    parallelism: 2
  - id: nap
    operator: sleep
    args: {duration: 1h}
    parallelism: 2
  - id: sink
    operator: sink
    args: {output: %s}
    parallelism: 1
edges:
  - {from: numbers, to: nap, pattern: pointwise}
  - {from: nap, to: sink, pattern: all_to_all}
settings:
  heartbeat.interval: 50ms
`

// TestCancel_RunningJob: `jobevent cancel LOG` ends a running job as
// canceled (run exits 1), and a second cancel says the job has ended.
func TestCancel_RunningJob(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "slow.yaml")
	if err := os.WriteFile(spec, []byte(fmt.Sprintf(napJob, filepath.Join(dir, "out"))), 0o644); err != nil {
		t.Fatal(err)
	}
	logURL := "file://" + filepath.ToSlash(filepath.Join(dir, "log"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	done := make(chan result, 1)
	go func() {
		done <- runCLIWith(t, ctx, "", "run", spec, "--events", logURL, "--work-dir", filepath.Join(dir, "work"))
	}()
	waitForLog(t, ctx, logURL)
	runCLI(t, "cancel", logURL).wantCode(t, 0)
	var got result
	select {
	case got = <-done:
	case <-ctx.Done():
		t.Fatal("run did not stop after cancel")
	}
	if got.code != 1 || !strings.Contains(got.stdout, "canceled") {
		t.Fatalf("run = exit %d, stdout %q; want exit 1 and status canceled", got.code, got.stdout)
	}
	again := runCLI(t, "cancel", logURL).wantCode(t, 0)
	if !strings.Contains(again.stdout, "already ended (canceled)") {
		t.Fatalf("second cancel = %q, want it to say the job already ended", again.stdout)
	}
}

// waitForLog waits until the log at url holds events.
func waitForLog(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if l, err := blob.Open(ctx, url); err == nil {
			ok, _ := l.Exists(ctx)
			l.Close()
			if ok {
				return
			}
		}
		select {
		case <-ctx.Done():
			t.Fatal("no event log appeared at " + url)
		case <-tick.C:
		}
	}
}
