package runtime

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/format"
)

// cancelSignal is a channel closed once, by the first request.
type cancelSignal struct {
	ch   chan struct{}
	once sync.Once
}

func newCancelSignal() *cancelSignal { return &cancelSignal{ch: make(chan struct{})} }

func (r *cancelSignal) request() { r.once.Do(func() { close(r.ch) }) }

// watchingHeartbeat returns the master's heartbeat for epoch: it checks
// that no newer epoch has been claimed (a *FencedError naming it if one
// has: the master stops, whether or not it has anything to write), then
// rewrites the epoch's heartbeat object and, once `jobevent cancel` has
// asked for it (the log's blob.CancelKey object), calls cancel, which ends
// the job: status canceled. A failed check is not a fence: the heartbeat
// goes on and the next one checks again.
func watchingHeartbeat(log *blob.Log, epoch int32, cancel func()) func(context.Context) error {
	return func(ctx context.Context) error {
		if newest, err := log.NewestEpoch(ctx); err == nil && newest > epoch {
			return &FencedError{Epoch: epoch, Newer: newest, Err: blob.ErrFenced}
		}
		if ok, err := log.CancelRequested(ctx); err == nil && ok {
			cancel()
		}
		return log.Heartbeat(ctx, epoch)
	}
}

// CancelOptions configures CancelInLog.
type CancelOptions struct {
	// By names who cancels, recorded as the new epoch's master.
	By string
	// Dir resolves relative paths of the job's spec (default: the
	// process's working directory).
	Dir string
	// WorkDir, when set, is the work dir of the job's embedded workers
	// (`run --work-dir`): their partitions of the job are deleted. Empty:
	// the work dir recorded at the job's submission, if any.
	WorkDir string
	// Stderr receives warnings.
	Stderr io.Writer
}

// CancelResult says what CancelInLog did.
type CancelResult struct {
	Job string `json:"job"`
	// Epoch is the epoch that recorded the cancel; 0 when the job had
	// already ended (Status then says how).
	Epoch  int32  `json:"epoch"`
	Status string `json:"status"`
}

// cancelAddr is the master address of an epoch claimed only to cancel.
const cancelAddr = "jobevent-cancel"

// CancelInLog cancels the job of the log at url in the log itself, for a
// job that no master holds (its master died or was suspended): it claims
// the next epoch (which fences any master still holding an older one),
// writes master_started and job_finished canceled in it, and then, if no
// newer epoch was claimed meanwhile, deletes the job's staging objects and
// the partitions under opts.WorkDir. Worker processes see job_finished in
// the log and delete their partitions themselves. A job that had already
// ended is left as it is.
func CancelInLog(ctx context.Context, url string, opts CancelOptions) (*CancelResult, error) {
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	if opts.Dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		opts.Dir = wd
	}
	log, err := blob.Open(ctx, url)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	addr := cancelAddr
	if opts.By != "" {
		addr += ":" + opts.By
	}
	st, err := beginEpoch(ctx, log, nil, true, addr, epochOptions{warn: opts.Stderr})
	if err != nil {
		return nil, fmt.Errorf("cancel: %w", err)
	}
	spec := st.spec
	if st.finished != "" {
		return &CancelResult{Job: spec.Job, Status: st.finished}, nil
	}
	w := log.NewWriter(st.epoch, st.startSeq, blob.WriterOptions{FlushInterval: time.Hour})
	now := time.Now().UTC()
	w.Append(format.Event{Kind: format.KindMasterStarted, Job: spec.Job, Time: now, Master: addr, Recovering: true})
	w.Append(format.Event{Kind: format.KindJobFinished, Job: spec.Job, Time: now, Status: format.StatusCanceled})
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("cancel job %s in %s: %w", spec.Job, log.URL(), err)
	}
	res := &CancelResult{Job: spec.Job, Epoch: st.epoch, Status: format.StatusCanceled}
	if err := holdsEpoch(log, st.epoch)(ctx); err != nil {
		fmt.Fprintf(opts.Stderr, "jobevent: warning: %v: staging and partitions are left to that master\n", err)
		return res, nil
	}
	buckets := newBucketOpener(opts.Dir)
	defer buckets.Close()
	vc := func(v *VertexSpec) *VertexContext {
		return &VertexContext{Job: spec.Job, Vertex: v.ID, buckets: buckets}
	}
	workDir := opts.WorkDir
	if workDir == "" {
		workDir = spec.Submission.WorkDir
	}
	finishCleanup(ctx, spec, vc, workDir, logger(opts.Stderr, "cancel"))
	return res, nil
}
