package runtime

import (
	"context"
	"errors"
	"fmt"
)

// SuspendedError is returned by a master whose context ended before the
// job did (SIGINT or SIGTERM to `run` or `master`): it wrote nothing more,
// not even job_finished, and left the partitions to the workers, so that
// the job can be resumed in a new epoch (`--resume`, a standby) or
// canceled (`jobevent cancel`). Flink's JobMaster does the same when it
// loses its leadership.
type SuspendedError struct {
	Job   string
	Epoch int32
	// Seq is the last event the master had written.
	Seq int64
}

// Error says that the job was suspended and where.
func (e *SuspendedError) Error() string {
	return fmt.Sprintf("job %s suspended in epoch %d after event %d: nothing more was written, the log can be resumed", e.Job, e.Epoch, e.Seq)
}

// errRecording is wrapped by the error of a master whose event log refuses
// its writes: it cannot record the end of the job either.
var errRecording = errors.New("recording degraded")

// settle turns the error that ended the master's loop into the job's end.
// A job that fails after it started ends with job_finished failed, whatever
// failed (an input that vanished, a commit refused); the master stops
// without writing when it crashed on purpose, was fenced, suspended, cannot
// write its log, or when the job has already ended. The end of ctx seen in
// the middle of a step (a flush, a registration wait) suspends the job.
func (m *master) settle(ctx context.Context, err error) error {
	var crash *CrashError
	var fenced *FencedError
	if err != nil && !errors.Is(err, errStop) && !errors.As(err, &crash) && errors.As(context.Cause(ctx), &fenced) {
		// A heartbeat found the epoch fenced: whatever the loop was
		// doing ended with ctx, and the master stops without writing.
		return fenced
	}
	var job *JobError
	var suspended *SuspendedError
	switch {
	case err == nil, errors.Is(err, errStop), errors.As(err, &crash), errors.As(err, &fenced),
		errors.As(err, &job), errors.As(err, &suspended), errors.Is(err, errRecording):
		return err
	case m.state.Status() != "" || m.state.Graph() == nil:
		return err
	case ctx.Err() != nil:
		return m.suspendOrCancel(ctx)
	}
	m.logf("job %s failed: %v", m.job, err)
	return m.failJob(ctx, err)
}

// suspendOrCancel ends the run of a master whose context ended: the job is
// suspended, unless a cancel was asked for (a second SIGINT, `jobevent
// cancel`), which ends it canceled.
func (m *master) suspendOrCancel(ctx context.Context) error {
	var fenced *FencedError
	if errors.As(context.Cause(ctx), &fenced) {
		return fenced
	}
	if m.cancelRequested() {
		return m.cancelJob()
	}
	pauseAt(ctx, "suspend")
	if m.cancelRequested() {
		return m.cancelJob()
	}
	return &SuspendedError{Job: m.job, Epoch: m.epoch, Seq: m.state.LastSeq()}
}

// cancelRequested reports whether the job's cancel channels are closed.
func (m *master) cancelRequested() bool {
	for _, ch := range []<-chan struct{}{m.cfg.cancel, m.cfg.logCancel} {
		if ch == nil {
			continue
		}
		select {
		case <-ch:
			return true
		default:
		}
	}
	return false
}
