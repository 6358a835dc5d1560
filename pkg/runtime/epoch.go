package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// ErrJobExists is returned when a log already holds the job and the caller
// did not ask to resume it.
var ErrJobExists = errors.New("jobevent/runtime: the event log already holds this job")

// ErrEpochLost is returned when another master claimed the epoch this one
// wanted: the other master recovers the job.
var ErrEpochLost = errors.New("jobevent/runtime: another master claimed the epoch first")

// ExistsError says that a log already holds a job; its ExitCode is 2 and
// its message suggests --resume.
type ExistsError struct {
	URL string
	Job string
}

// Error names the log and the job and suggests --resume.
func (e *ExistsError) Error() string {
	return fmt.Sprintf("event log %s already holds job %s: use --resume to recover it in a new epoch, or another --events log", e.URL, e.Job)
}

// Unwrap returns ErrJobExists.
func (e *ExistsError) Unwrap() error { return ErrJobExists }

// ExitCode returns 2.
func (e *ExistsError) ExitCode() int { return 2 }

// epochStart is what a master needs to begin its epoch.
type epochStart struct {
	spec        *Spec
	epoch       int32
	startSeq    int64
	state       *replay.State // nil for a new job
	recovering  bool
	fullRestart bool
	reason      string // why the restart is full
	// finished is the job_finished status when the log already ends the
	// job: nothing to run.
	finished string
	lastSeq  int64
}

// epochOptions are what beginEpoch needs besides the log and the spec.
type epochOptions struct {
	// warn receives the loud messages.
	warn io.Writer
	// adjust, when not nil, changes the job's settings as soon as the
	// spec is known (tests shorten timeouts, or turn recovery off).
	adjust func(*Settings)
	// check, when not nil, is called with the job's spec before anything
	// is written (a new job) or claimed (a recovery of an unfinished
	// job): an error refuses the start.
	check func(context.Context, *Spec) error
	// submission is recorded in the job.yaml of a new job.
	submission Submission
}

// beginEpoch opens a new job in log, or, with resume, prepares its
// recovery: it reads job.yaml, folds the log, and claims the next epoch
// (which fences the previous master).
func beginEpoch(ctx context.Context, log *blob.Log, spec *Spec, resume bool, addr string, eo epochOptions) (*epochStart, error) {
	return beginEpochAt(ctx, log, spec, resume, addr, eo, 0)
}

// beginEpochAt is beginEpoch claiming exactly epoch when it recovers (0:
// the next after every epoch claimed). A standby that found epoch e stale
// claims e+1 and nothing else: if another standby took it, it lost.
func beginEpochAt(ctx context.Context, log *blob.Log, spec *Spec, resume bool, addr string, eo epochOptions, epoch int32) (*epochStart, error) {
	warmEncoder()
	exists, err := log.Exists(ctx)
	if err != nil {
		return nil, fmt.Errorf("open event log %s: %w", log.URL(), err)
	}
	if !exists {
		if spec == nil {
			return nil, fmt.Errorf("recover %s: %w", log.URL(), blob.ErrNoLog)
		}
		if eo.adjust != nil {
			eo.adjust(&spec.Settings)
		}
		if eo.check != nil {
			if err := eo.check(ctx, spec); err != nil {
				return nil, err
			}
		}
		if resume && eo.warn != nil {
			fmt.Fprintf(eo.warn, "jobevent: notice: no event log at %s: --resume starts job %s as a new job\n", log.URL(), spec.Job)
		}
		return newJobEpoch(ctx, log, spec, addr, eo.submission)
	}
	if !resume {
		job := ""
		if spec != nil {
			job = spec.Job
		}
		return nil, &ExistsError{URL: log.URL(), Job: job}
	}
	return recoveryEpoch(ctx, log, spec, addr, eo, epoch)
}

func newJobEpoch(ctx context.Context, log *blob.Log, spec *Spec, addr string, sub Submission) (*epochStart, error) {
	if err := spec.recordSubmission(sub); err != nil {
		return nil, err
	}
	if err := log.WriteSpec(ctx, spec.Raw); err != nil {
		return nil, err
	}
	if err := claim(ctx, log, blob.EpochInfo{Epoch: 1, Master: addr, StartSeq: 1}); err != nil {
		return nil, err
	}
	return &epochStart{spec: spec, epoch: 1, startSeq: 1}, nil
}

func claim(ctx context.Context, log *blob.Log, info blob.EpochInfo) error {
	err := log.ClaimEpoch(ctx, info)
	if errors.Is(err, blob.ErrEpochTaken) {
		return fmt.Errorf("epoch %d of %s: %w (it recovers the job; this master stands down)", info.Epoch, log.URL(), ErrEpochLost)
	}
	return err
}

func recoveryEpoch(ctx context.Context, log *blob.Log, given *Spec, addr string, eo epochOptions, want int32) (*epochStart, error) {
	warn := eo.warn
	raw, err := log.ReadSpec(ctx)
	if err != nil {
		return nil, fmt.Errorf("recover: %w", err)
	}
	spec, err := ParseSpec("job.yaml", raw)
	if err != nil {
		return nil, fmt.Errorf("recover %s: %w", log.URL(), err)
	}
	if eo.adjust != nil {
		eo.adjust(&spec.Settings)
	}
	if given != nil && !bytes.Equal(specBody(given.Raw), specBody(raw)) {
		fmt.Fprintf(warn, "jobevent: warning: %s differs from the job.yaml stored in the log; recovering the job as logged\n", given.File)
	}
	st := &epochStart{spec: spec, recovering: true}
	state, foldErr := foldLog(ctx, log, warn)
	if foldErr != nil {
		last, err := lastSegmentSeq(ctx, log)
		if err != nil {
			return nil, fmt.Errorf("recover %s: %v; and listing its segments: %w", log.URL(), foldErr, err)
		}
		st.fullRestart = true
		st.reason = fmt.Sprintf("the log cannot be replayed (%v): every subtask runs again; the log is kept", foldErr)
		st.startSeq = last + 1
		if st.state, err = fullRestartState(spec, st.startSeq); err != nil {
			return nil, err
		}
		fmt.Fprintf(warn, "jobevent: FULL RESTART of job %s: %s\n", spec.Job, st.reason)
	} else {
		st.state = state
		st.startSeq = state.LastSeq() + 1
		st.lastSeq = state.LastSeq()
		if state.Graph() == nil && state.LastSeq() == 0 {
			// Nothing of the job survived (its first segment was torn):
			// the new epoch submits it again.
			fmt.Fprintf(warn, "jobevent: warning: the log of job %s holds no events: the new epoch starts the job over\n", spec.Job)
		}
		if state.Status() != "" {
			st.finished = state.Status()
			return st, nil
		}
		if !spec.Settings.RecoveryEnabled {
			st.fullRestart = true
			st.reason = KeyRecoveryEnabled + " is false: every subtask runs again"
			fmt.Fprintf(warn, "jobevent: full restart of job %s: %s\n", spec.Job, st.reason)
		}
	}
	if eo.check != nil {
		if err := eo.check(ctx, spec); err != nil {
			return nil, err
		}
	}
	next := want
	if next == 0 {
		if next, err = nextEpoch(ctx, log, st.state.Epoch()); err != nil {
			return nil, err
		}
	}
	st.epoch = next
	pauseAt(ctx, "claim")
	if err := claim(ctx, log, blob.EpochInfo{Epoch: next, Master: addr, StartSeq: st.startSeq}); err != nil {
		return nil, err
	}
	if err := adoptFencedEnd(ctx, log, st, addr, warn); err != nil {
		return nil, err
	}
	return st, nil
}

// foldLog replays the log; warnings (torn tail, fenced rows, unknown
// objects) go to warn.
func foldLog(ctx context.Context, log *blob.Log, warn io.Writer) (*replay.State, error) {
	r, err := log.NewReader(ctx, blob.ReaderOptions{})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	state, err := replay.Fold(r, 0)
	for _, n := range r.Notices() {
		if n.Kind != format.NoticeCovered {
			fmt.Fprintf(warn, "jobevent: warning: %s\n", n)
		}
	}
	return state, err
}

// lastSegmentSeq returns the highest seq any segment name claims.
func lastSegmentSeq(ctx context.Context, log *blob.Log) (int64, error) {
	segs, err := log.Segments(ctx)
	if err != nil {
		return 0, err
	}
	var last int64
	for _, s := range segs {
		last = max(last, s.Last)
	}
	return last, nil
}

// nextEpoch returns the epoch after every epoch claimed so far.
func nextEpoch(ctx context.Context, log *blob.Log, seen int32) (int32, error) {
	epochs, err := log.Epochs(ctx)
	if err != nil {
		return 0, fmt.Errorf("list epochs of %s: %w", log.URL(), err)
	}
	next := seen + 1
	for _, e := range epochs {
		next = max(next, e.Epoch+1)
	}
	return next, nil
}

// warmEncoder builds the process's segment encoder on another goroutine,
// once, so that the first flush of the epoch (job_submitted and
// master_started of a new job; the recovery's first segment) does not wait
// for it: building one costs 2-4 ms of CPU, which otherwise lands on the
// master's first durable write. It overlaps with what beginEpoch does
// meanwhile (reading and folding the log, the epoch claim's fsyncs).
func warmEncoder() {
	warmOnce.Do(func() {
		go format.EncodeSegment(io.Discard, []format.Event{{Seq: 1, Epoch: 1, Kind: format.KindJobFinished, Status: format.StatusFinished}})
	})
}

var warmOnce sync.Once
