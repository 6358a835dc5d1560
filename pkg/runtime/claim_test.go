package runtime

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/format"
)

// TestRecovery_ConcurrentResumes starts several embedded masters on one
// crashed log at once. They all replay the same log and record the same
// address (embedded), so their epoch claims would have the same bytes but
// for the claim's nonce: each epoch is won by exactly one of them (the log
// never holds two masters' segments of one epoch, which every reader
// refuses as overlapping), the losers stand down or are fenced, and a last
// resume finds the job finished with the clean run's output.
func TestRecovery_ConcurrentResumes(t *testing.T) {
	t.Parallel()
	const masters, trials = 4, 4
	want, _ := cleanRun(t, "shuffle.yaml", 5)
	for trial := range trials {
		dir := jobDir(t)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		opts := Options{Dir: dir, Seeded: true, Seed: 5, CrashAfterSeq: 12}
		if _, err := Run(ctx, loadJob(t, "shuffle.yaml"), opts); err == nil {
			t.Fatal("no crash")
		}
		opts.CrashAfterSeq, opts.Resume = 0, true
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make([]error, masters)
		for i := range masters {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, errs[i] = Run(ctx, loadJob(t, "shuffle.yaml"), opts)
			}()
		}
		close(start)
		wg.Wait()
		finished := 0
		for _, err := range errs {
			switch {
			case err == nil:
				finished++
			case errors.Is(err, ErrEpochLost), errors.Is(err, blob.ErrFenced):
			default:
				t.Fatalf("trial %d: %v", trial, err)
			}
		}
		if finished == 0 {
			t.Fatalf("trial %d: no master finished the job: %v", trial, errs)
		}
		sum, err := Run(ctx, loadJob(t, "shuffle.yaml"), opts)
		if err != nil || !sum.AlreadyEnded {
			t.Fatalf("trial %d: last resume: %+v, %v; want the job already ended", trial, sum, err)
		}
		events := readLog(t, sum.Log) // fails on overlapping segments
		starts := map[int32]int{}
		for _, e := range events {
			if e.Kind == format.KindMasterStarted {
				starts[e.Epoch]++
			}
		}
		for e, n := range starts {
			if n != 1 {
				t.Fatalf("trial %d: epoch %d has %d master_started events, want 1", trial, e, n)
			}
		}
		if got := readOutput(t, dir, sum.Job); !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d: output differs from the clean run", trial)
		}
	}
}
