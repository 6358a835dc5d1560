package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/format"
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
	req := runCLI(t, "cancel", logURL).wantCode(t, 0)
	if !strings.Contains(req.stdout, "asked the master of job slow") {
		t.Fatalf("cancel of a live master's job = %q, want a request to that master", req.stdout)
	}
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

// waitForLog waits until the log at url holds events and a master has
// claimed an epoch of it, so that a worker started next finds its master
// at once.
func waitForLog(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if l, err := blob.Open(ctx, url); err == nil {
			ok, _ := l.Exists(ctx)
			epochs, _ := l.Epochs(ctx)
			l.Close()
			if ok && len(epochs) > 0 {
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

// TestCancel_DeadMaster: the master of a job died (a crash); once its
// heartbeat is stale, `jobevent cancel` says that no master holds the job
// and cancels it in the log, in a new epoch: job_finished canceled, the
// embedded workers' partitions deleted, and a resume finds the job ended.
func TestCancel_DeadMaster(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "slow.yaml")
	job := fmt.Sprintf(napJob, filepath.Join(dir, "out")) + "  heartbeat.timeout: 200ms\n"
	job = strings.Replace(job, "duration: 1h", "duration: 10ms", 1)
	if err := os.WriteFile(spec, []byte(job), 0o644); err != nil {
		t.Fatal(err)
	}
	logURL := "file://" + filepath.ToSlash(filepath.Join(dir, "log"))
	work := filepath.Join(dir, "work")
	runCLI(t, "run", spec, "--events", logURL, "--work-dir", work, "--seed", "1", "--crash-after-seq", "9").wantCode(t, 3)
	if _, err := os.Stat(filepath.Join(work, "slow")); err != nil {
		t.Fatalf("the crashed run left no partitions: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		r := runCLI(t, "status", logURL, "--heartbeat-timeout", "200ms", "--format", "json").wantCode(t, 0)
		if strings.Contains(r.stdout, `"state": "stale"`) {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the dead master's heartbeat never went stale: %s", r.stdout)
		case <-time.After(20 * time.Millisecond): // polling interval
		}
	}
	r := runCLI(t, "cancel", logURL, "--work-dir", work).wantCode(t, 0)
	if !strings.Contains(r.stdout, "no master holds job slow") || !strings.Contains(r.stdout, "canceled it in the log") {
		t.Fatalf("cancel = %q, want it to say no master holds the job and that it canceled it", r.stdout)
	}
	events := logEvents(t, logURL)
	last := events[len(events)-1]
	if last.Kind != format.KindJobFinished || last.Status != format.StatusCanceled || last.Epoch != 2 {
		t.Fatalf("last event %s %s in epoch %d, want job_finished canceled in epoch 2", last.Kind, last.Status, last.Epoch)
	}
	if _, err := os.Stat(filepath.Join(work, "slow")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("partitions left after the cancel: %v", err)
	}
	runCLI(t, "validate", logURL).wantCode(t, 0)
	resumed := runCLI(t, "run", spec, "--events", logURL, "--work-dir", work, "--resume").wantCode(t, 0)
	if !strings.Contains(resumed.stdout, "already canceled") {
		t.Fatalf("resume after the cancel = %q, want already canceled", resumed.stdout)
	}
}
