package runtime

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/format"
)

// Side effects that outlive a master — committing sink output, telling
// workers to delete their partitions, deleting staging objects — happen
// only while the master still holds its epoch, checked after the write
// that makes them durable:
//
//   - A master checks before each flush that no newer epoch exists (the
//     writer's fencing), so job_finished is written only by the holder, or
//     lands as a fenced row when a claim slips in between.
//   - After job_finished is durable, it checks again (holdsEpoch) and
//     cleans up only if no newer epoch exists. A newer epoch claimed before
//     that check finds the job unfinished and the partitions intact.
//   - A newer epoch claimed after that check may have read the log before
//     job_finished landed: right after its claim the new master looks for
//     a fenced job_finished written since it read the log (blob.FencedEnd).
//     Finding one, it records the same end in its own epoch and cleans up
//     instead of waiting for workers that are being told to stop.

// holdsEpoch returns a check that no epoch newer than epoch has been
// claimed in log: a *FencedError if one has.
func holdsEpoch(log *blob.Log, epoch int32) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		newest, err := log.NewestEpoch(ctx)
		if err != nil {
			return fmt.Errorf("check that epoch %d still holds the job: %w", epoch, err)
		}
		if newest > epoch {
			return &FencedError{Epoch: epoch, Err: fmt.Errorf("epoch %d was claimed after this master ended the job; that master finishes it and cleans up: %w", newest, blob.ErrFenced)}
		}
		return nil
	}
}

// cleanupIfHeld runs the cleanup of a job whose end is durable, unless a
// newer epoch has been claimed since: then the newer master cleans up, and
// this one returns a *FencedError. A failed check leaves the cleanup to the
// next master (a --resume of the ended job repeats it) and returns result.
func (m *master) cleanupIfHeld(ctx context.Context, result error) error {
	if m.cfg.holds != nil {
		err := m.cfg.holds(ctx)
		if _, fenced := err.(*FencedError); fenced {
			return err
		}
		if err != nil {
			m.logf("warning: %v: partitions and staging are left for the next master or --resume to delete", err)
			return result
		}
	}
	pauseAt(ctx, "cleanup")
	m.cleanup(ctx)
	return result
}

// adoptFencedEnd is called right after a recovering master claimed its
// epoch: when the previous master ended the job after this one read the
// log (a fenced job_finished), the new epoch records that end itself.
func adoptFencedEnd(ctx context.Context, log *blob.Log, st *epochStart, addr string, warn io.Writer) error {
	end, ok, err := log.FencedEnd(ctx, st.epoch, st.startSeq)
	if err != nil {
		return fmt.Errorf("recover %s: look for an end written since the log was read: %w", log.URL(), err)
	}
	if !ok {
		return nil
	}
	w := log.NewWriter(st.epoch, st.startSeq, blob.WriterOptions{FlushInterval: time.Hour})
	w.Append(format.Event{Kind: format.KindMasterStarted, Master: addr, Recovering: true})
	w.Append(format.Event{Kind: format.KindJobFinished, Status: end.Status, Error: end.Error})
	if err := w.Close(); err != nil {
		return fmt.Errorf("recover %s: record the end of job %s: %w", log.URL(), st.spec.Job, err)
	}
	fmt.Fprintf(warn, "jobevent: job %s was %s by the master of epoch %d (seq %d) after this master read the log; epoch %d records the end and cleans up\n",
		st.spec.Job, end.Status, end.Epoch, end.Seq, st.epoch)
	st.finished, st.lastSeq = end.Status, w.Durable()
	return nil
}

// pauseKey is the context key of a test's pause function.
type pauseKey struct{}

// withPause returns ctx carrying pause, which the master calls at named
// points (before its claim, its commit, each segment upload, its cleanup)
// so that tests can interleave two masters deterministically.
func withPause(ctx context.Context, pause func(point string)) context.Context {
	return context.WithValue(ctx, pauseKey{}, pause)
}

// pauseAt calls the pause function of ctx, if any, with point.
func pauseAt(ctx context.Context, point string) {
	if pause, ok := ctx.Value(pauseKey{}).(func(string)); ok {
		pause(point)
	}
}

// beforeUpload returns the writer hook that pauses at each upload, nil
// when ctx carries no pause function.
func beforeUpload(ctx context.Context) func(key string) {
	if _, ok := ctx.Value(pauseKey{}).(func(string)); !ok {
		return nil
	}
	return func(key string) { pauseAt(ctx, "upload "+key) }
}
