package runtime

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/format"
)

// idleInterval is the heartbeat interval of the idle-master tests: a fenced
// master must stop within one of it (plus the slack of a loaded machine).
const idleInterval = 300 * time.Millisecond

// idleSpec is a job whose master has nothing to write for a long time: its
// one attempt sleeps for a minute (or, without workers, never starts).
func idleSpec(t *testing.T) *Spec {
	t.Helper()
	spec, err := ParseSpec("idle.yaml", []byte(`job: idle
vertices:
  - {id: numbers, operator: sequence, args: {to: 9}, parallelism: 1}
  - {id: nap, operator: sleep, args: {duration: 1m}, parallelism: 1}
edges:
  - {from: numbers, to: nap, pattern: pointwise}
settings:
  heartbeat.interval: 300ms
  heartbeat.timeout: 1s
  execution.batch.job-recovery.previous-worker.recovery.timeout: 1m
`))
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// fenceWhenBeating waits until epoch heartbeats in the log at url, claims
// the next epoch, and checks that the master's result arrives on done
// within one heartbeat interval (and some slack) as a *FencedError that
// names the newer epoch.
func fenceWhenBeating(t *testing.T, url string, epoch int32, done <-chan runResult) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), processDeadline)
	defer cancel()
	log, err := blob.Open(ctx, url)
	for err != nil {
		select {
		case <-ctx.Done():
			t.Fatalf("no log at %s: %v", url, err)
		case <-time.After(10 * time.Millisecond): // polling interval of the log
		}
		log, err = blob.Open(ctx, url)
	}
	defer log.Close()
	for {
		if _, err := log.HeartbeatTime(ctx, epoch); err == nil {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("epoch %d never heartbeat", epoch)
		case <-time.After(10 * time.Millisecond): // polling interval of the log
		}
	}
	// Let the master settle into waiting: several beats without a fence.
	select {
	case r := <-done:
		t.Fatalf("master ended before the fence: %+v, %v", r.sum, r.err)
	case <-time.After(3 * idleInterval):
	}
	events := readLog(t, url)
	next := events[len(events)-1].Seq + 1
	if err := log.ClaimEpoch(ctx, blob.EpochInfo{Epoch: epoch + 1, Master: "intruder", StartSeq: next}); err != nil {
		t.Fatal(err)
	}
	fencedAt := time.Now()
	select {
	case r := <-done:
		took := time.Since(fencedAt)
		var fenced *FencedError
		if !errors.As(r.err, &fenced) || fenced.Newer != epoch+1 {
			t.Fatalf("fenced master = %v, want a *FencedError naming epoch %d", r.err, epoch+1)
		}
		if took > idleInterval+700*time.Millisecond { // the next heartbeat, and the slack of a loaded machine
			t.Errorf("fenced master stopped after %v, want within one heartbeat interval (%v)", took, idleInterval)
		}
		if r.sum != nil && r.sum.Status != "fenced" {
			t.Errorf("status %q, want fenced", r.sum.Status)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("master still running 5s after epoch %d was claimed over it", epoch+1)
	}
	for _, e := range readLog(t, url) {
		if e.Epoch == epoch && e.Kind == format.KindJobFinished {
			t.Fatalf("the fenced master wrote %s", eventKey(e))
		}
	}
}

// TestFencing_IdleMasterStops: a master with nothing to write would never
// reach a flush that notices a newer epoch; its heartbeat does. Three
// idle masters: a master process waiting for workers that never come, an
// embedded run whose one attempt sleeps, and a standby that took over a
// crashed master and waits for the previous epoch's workers.
func TestFencing_IdleMasterStops(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		epoch int32 // the epoch the idle master holds
		run   func(ctx context.Context, t *testing.T, dir, url string) (*Summary, error)
	}{
		{"master waiting for workers", 1, func(ctx context.Context, t *testing.T, dir, url string) (*Summary, error) {
			return RunMaster(ctx, MasterOptions{Spec: idleSpec(t), Events: url, Token: "secret", Dir: dir, Stderr: testWriter{t}})
		}},
		{"embedded run sleeping", 1, func(ctx context.Context, t *testing.T, dir, url string) (*Summary, error) {
			return Run(ctx, idleSpec(t), Options{Dir: dir, Events: url, Stderr: testWriter{t}})
		}},
		{"standby that won", 2, func(ctx context.Context, t *testing.T, dir, url string) (*Summary, error) {
			return RunMaster(ctx, MasterOptions{Events: url, Token: "secret", Dir: dir, Stderr: testWriter{t}, Standby: true})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			url := "file://" + filepath.Join(dir, "jobevents") + "?prefix=idle/"
			ctx, cancel := context.WithTimeout(context.Background(), processDeadline)
			defer cancel()
			if tc.epoch == 2 {
				_, err := RunMaster(ctx, MasterOptions{Spec: idleSpec(t), Events: url, Token: "secret", Dir: dir, Stderr: testWriter{t}, CrashAfterSeq: 3})
				var crash *CrashError
				if !errors.As(err, &crash) {
					t.Fatalf("first master: %v, want the crash", err)
				}
			}
			done := make(chan runResult, 1)
			go func() {
				sum, err := tc.run(ctx, t, dir, url)
				done <- runResult{sum, err}
			}()
			fenceWhenBeating(t, url, tc.epoch, done)
		})
	}
}
