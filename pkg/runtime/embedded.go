package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/format"
)

// Options configures Run and Resume, the embedded runtime: a master and
// in-process workers in one process.
type Options struct {
	// Events is the log URL. Empty means file://<Dir>/jobevents with
	// prefix <job>/.
	Events string
	// Workers is the number of in-process workers (default 2), each with
	// Slots slots (default 2).
	Workers int
	Slots   int
	// WorkDir holds the workers' partitions, <WorkDir>/<job>/w<k>/...
	// (default <Dir>/jobevents-work). It survives a crash so that a
	// resumed run finds the partitions.
	WorkDir string
	// Dir is the working directory that relative paths (spec inputs and
	// outputs, the default log and work dir) resolve against; empty
	// means the process's.
	Dir string
	// Resume recovers the job from the log in a new epoch; without it a
	// log that holds the job is refused.
	Resume bool
	// CrashAfterSeq, when positive, makes the master die right after
	// event CrashAfterSeq is durable: Run returns a *CrashError. The
	// job_submitted and master_started that open a log are one unit: a
	// crash point on the first takes effect after the second.
	CrashAfterSeq int64
	// Seeded runs attempts one at a time in an order drawn from Seed, so
	// that a run, its log and its crash points are reproducible.
	Seeded bool
	Seed   int64
	// Clock is the time source (default: the wall clock).
	Clock Clock
	// Stderr receives warnings and loud messages (default: discarded).
	Stderr io.Writer
	// Log, when set, replaces the blob log (benchmarks pass a NullLog):
	// nothing is stored, so such a run cannot be resumed.
	Log EventLog
	// Settings, when set, adjusts the spec's settings before the run
	// (tests shorten timeouts with it).
	Settings func(*Settings)
	// CompactOnFinish merges the log's segments (blob.Compact) once the
	// job has finished and its log is closed; a failure is a warning.
	CompactOnFinish bool
	// Cancel, when closed, cancels the job (job_finished canceled), as
	// `jobevent cancel` does. The end of ctx instead suspends it: the
	// master writes no more events and returns a *SuspendedError, and the
	// log stays resumable.
	Cancel <-chan struct{}
	// OverwriteOutput lets the job's sinks commit to an output that holds
	// the committed output of another log (OutputMarker); without it such
	// a job is refused before it starts.
	OverwriteOutput bool

	// onNet lets tests reach the in-process network (lose partitions).
	onNet func(*localNet)
	// workDirGiven reports whether the caller named WorkDir: a recovery
	// otherwise uses the work dir recorded at submission.
	workDirGiven bool
}

func (o *Options) defaults(job string) error {
	if o.Dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("working directory: %w", err)
		}
		o.Dir = wd
	}
	if o.Events == "" {
		o.Events = "file://" + filepath.ToSlash(filepath.Join(o.Dir, "jobevents")) + "?prefix=" + job + "/"
	}
	if !filepath.IsAbs(o.Dir) {
		abs, err := filepath.Abs(o.Dir)
		if err != nil {
			return fmt.Errorf("working directory: %w", err)
		}
		o.Dir = abs
	}
	o.workDirGiven = o.workDirGiven || o.WorkDir != ""
	if o.WorkDir == "" {
		o.WorkDir = filepath.Join(o.Dir, "jobevents-work")
	} else if !filepath.IsAbs(o.WorkDir) {
		o.WorkDir = filepath.Join(o.Dir, o.WorkDir)
	}
	if o.Workers <= 0 {
		o.Workers = 2
	}
	if o.Slots <= 0 {
		o.Slots = 2
	}
	if o.Clock == nil {
		o.Clock = wallClock{}
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	return nil
}

// embeddedAddr is the master address an embedded run records.
const embeddedAddr = "embedded"

// Run runs spec with the embedded runtime. With opts.Resume it recovers
// the job from the log instead when the log holds it (a finished job is
// reported as already ended). The returned error is a *CrashError for the
// deliberate crash, a *JobError for a job that failed or was canceled, an
// *ExistsError for a log that already holds the job without Resume.
func Run(ctx context.Context, spec *Spec, opts Options) (*Summary, error) {
	if err := opts.defaults(spec.Job); err != nil {
		return nil, err
	}
	if opts.Log != nil {
		return runOnLog(ctx, spec, opts)
	}
	t0 := time.Now()
	log, undo, err := createLog(ctx, opts.Events)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	st, err := beginEpoch(ctx, log, spec, opts.Resume, embeddedAddr, opts.epochOptions(log))
	if err != nil {
		undo()
		return nil, err
	}
	begin := time.Since(t0)
	sum, err := runEpoch(ctx, log, st, opts)
	if sum != nil {
		sum.Recording += begin.Seconds()
		sum.Wall += begin.Seconds()
	}
	return sum, err
}

// Resume recovers the job of the log at opts.Events with the embedded
// runtime, from the job.yaml and the events in the log: what `jobevent
// replay LOG` does without --dry-run, and `run --resume`.
func Resume(ctx context.Context, opts Options) (*Summary, error) {
	if opts.Events == "" {
		return nil, errors.New("resume: no event log given")
	}
	if err := opts.defaults(""); err != nil {
		return nil, err
	}
	log, err := blob.Open(ctx, opts.Events)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	st, err := beginEpoch(ctx, log, nil, true, embeddedAddr, opts.epochOptions(log))
	if err != nil {
		return nil, err
	}
	return runEpoch(ctx, log, st, opts)
}

// epochOptions checks the job's inputs and outputs before its epoch
// begins (preflight), with the output ownership granted now or recorded
// at submission, and records the work dir and the ownership of a new job.
func (o *Options) epochOptions(log *blob.Log) epochOptions {
	return epochOptions{warn: o.Stderr, adjust: o.Settings, check: func(ctx context.Context, spec *Spec) error {
		buckets := newBucketOpener(o.Dir)
		defer buckets.Close()
		return preflight(ctx, spec, buckets, log.URL(), o.OverwriteOutput || spec.Submission.OverwriteOutput)
	}, submission: Submission{WorkDir: o.WorkDir, OverwriteOutput: o.OverwriteOutput}}
}

// recordedWorkDir sets o.WorkDir to the work dir recorded at the job's
// submission when the caller named none: a recovery from another working
// directory finds the partitions the dry run counts on. A work dir named
// that differs from the recorded one is used, with a notice.
func (o *Options) recordedWorkDir(spec *Spec) {
	rec := spec.Submission.WorkDir
	switch {
	case rec == "" || rec == o.WorkDir:
	case !o.workDirGiven:
		o.WorkDir = rec
	default:
		fmt.Fprintf(o.Stderr, "jobevent: notice: --work-dir %s is not the work dir job %s was submitted with (%s): partitions are looked for in %s\n", o.WorkDir, spec.Job, rec, o.WorkDir)
	}
}

// runEpoch runs the epoch st began, with in-process workers.
func runEpoch(ctx context.Context, log *blob.Log, st *epochStart, opts Options) (*Summary, error) {
	spec := st.spec
	buckets := newBucketOpener(opts.Dir)
	defer buckets.Close()
	if st.recovering {
		opts.recordedWorkDir(spec)
	}
	if st.finished != "" {
		return endedEpoch(ctx, log, st, buckets, opts.WorkDir, opts.Stderr), nil
	}
	w := epochWriter(ctx, log, st, opts.Clock)
	// jobevent cancel is seen at a heartbeat, which closes logCancel.
	logCancel := newCancelSignal()
	cfg := masterConfig{
		spec: spec, epoch: st.epoch, addr: embeddedAddr, log: w, state: st.state,
		recovering: st.recovering, fullRestart: st.fullRestart,
		clock: opts.Clock, seeded: opts.Seeded, seed: opts.Seed, crashAfter: opts.CrashAfterSeq,
		stderr: opts.Stderr, buckets: buckets, expectWorkers: opts.Workers, workDir: opts.WorkDir,
		heartbeat: watchingHeartbeat(log, st.epoch, logCancel.request), holds: holdsEpoch(log, st.epoch),
		cancel: opts.Cancel, logCancel: logCancel.ch, logURL: log.URL(), overwriteOutput: opts.OverwriteOutput || spec.Submission.OverwriteOutput,
	}
	sum, err := runCluster(ctx, cfg, opts)
	return endEpoch(ctx, log, w, st, opts.CompactOnFinish, opts.Stderr, sum, err)
}

// epochWriter returns the writer of the events of the epoch st began, as
// the job's settings configure it.
func epochWriter(ctx context.Context, log *blob.Log, st *epochStart, clock Clock) *blob.Writer {
	s := st.spec.Settings
	return log.NewWriter(st.epoch, st.startSeq, blob.WriterOptions{
		BufferSize: s.WriteBufferSize, FlushInterval: s.WriteBufferFlushInterval, Clock: clock,
		Retry: s.retryPolicy(), BeforeUpload: beforeUpload(ctx),
	})
}

// endEpoch finishes the run of an epoch. A deliberate crash writes nothing
// more: the event log is left as it is. Otherwise the log is closed (its
// last events flushed), compacted when asked and the job finished, and
// the summary completed.
func endEpoch(ctx context.Context, log *blob.Log, w *blob.Writer, st *epochStart, compact bool, stderr io.Writer, sum *Summary, err error) (*Summary, error) {
	var crash *CrashError
	if !errors.As(err, &crash) {
		if cerr := w.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close event log: %w", cerr)
		}
		if compact && err == nil && sum != nil && sum.Status == format.StatusFinished {
			compactOnFinish(ctx, log, stderr)
		}
	}
	if sum != nil {
		sum.Log = log.URL()
		sum.FullRestartReason = st.reason
		sum.Status = statusOf(sum.Status, err)
	}
	return sum, err
}

// endedEpoch describes a job the log shows ended, and repeats its cleanup:
// the master that ended it may have died between job_finished and its
// cleanup, or been fenced after job_finished (both steps are idempotent).
// workDir is the embedded workers' directory, empty for worker processes.
func endedEpoch(ctx context.Context, log *blob.Log, st *epochStart, buckets *bucketOpener, workDir string, stderr io.Writer) *Summary {
	start := time.Now()
	spec := st.spec
	fmt.Fprintf(stderr, "jobevent: job %s already %s (seq %d); nothing to run\n", spec.Job, st.finished, st.lastSeq)
	vc := func(v *VertexSpec) *VertexContext {
		return &VertexContext{Job: spec.Job, Vertex: v.ID, buckets: buckets}
	}
	finishCleanup(ctx, spec, vc, workDir, logger(stderr, "master"))
	return endedSummary(st, log.URL(), vc, start)
}

// finishCleanup deletes what an ended job leaves behind: the sinks'
// staging objects and the embedded workers' partitions.
func finishCleanup(ctx context.Context, spec *Spec, vc func(*VertexSpec) *VertexContext, workDir string, logf func(string, ...any)) {
	var vs []*vertexRun
	for i := range spec.Vertices {
		v := &spec.Vertices[i]
		vs = append(vs, &vertexRun{spec: v, vc: vc(v)})
	}
	cleanupStaging(ctx, vs, logf)
	if workDir != "" {
		if err := os.RemoveAll(filepath.Join(workDir, spec.Job)); err != nil {
			logf("warning: delete partitions of %s: %v", spec.Job, err)
		}
	}
}

// runOnLog runs a new job on a caller's EventLog (no store: no recovery).
func runOnLog(ctx context.Context, spec *Spec, opts Options) (*Summary, error) {
	if opts.Settings != nil {
		opts.Settings(&spec.Settings)
	}
	buckets := newBucketOpener(opts.Dir)
	defer buckets.Close()
	cfg := masterConfig{
		spec: spec, epoch: 1, addr: embeddedAddr, log: opts.Log, clock: opts.Clock,
		seeded: opts.Seeded, seed: opts.Seed, crashAfter: opts.CrashAfterSeq,
		stderr: opts.Stderr, buckets: buckets, expectWorkers: opts.Workers, workDir: opts.WorkDir,
	}
	sum, err := runCluster(ctx, cfg, opts)
	if sum != nil {
		sum.Status = statusOf(sum.Status, err)
	}
	return sum, err
}

func statusOf(status string, err error) string {
	var crash *CrashError
	var fenced *FencedError
	switch {
	case errors.As(err, &crash):
		return "crashed"
	case errors.As(err, &fenced):
		return "fenced"
	case errors.As(err, new(*SuspendedError)):
		return "suspended"
	case status == "" && err != nil:
		return "error"
	}
	return status
}

// runCluster runs a master with opts.Workers in-process workers.
func runCluster(ctx context.Context, cfg masterConfig, opts Options) (*Summary, error) {
	m := newMaster(cfg)
	spec := cfg.spec
	net := newLocalNet()
	specs := func(context.Context, string) (*Spec, error) { return spec, nil }
	var workers []*workerCore
	for k := 1; k <= opts.Workers; k++ {
		id := "w" + strconv.Itoa(k)
		w := newWorkerCore(id, newPartitionStore(opts.WorkDir, id), opts.Slots, cfg.buckets, net, specs, opts.Stderr)
		net.add(w)
		workers = append(workers, w)
	}
	if opts.onNet != nil {
		opts.onNet(net)
	}
	mctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for _, w := range workers {
		if err := w.attach(cfg.epoch, m); err != nil {
			return nil, err
		}
		held, err := w.held(spec.Job)
		if err != nil {
			return nil, err
		}
		reg := registration{Worker: w.id, Slots: w.slots, Job: spec.Job, Partitions: held}
		wg.Add(1)
		go func(w *workerCore) {
			defer wg.Done()
			if _, err := m.register(mctx, reg, w); err != nil && mctx.Err() == nil {
				fmt.Fprintf(opts.Stderr, "jobevent: worker %s: register: %v\n", w.id, err)
			}
		}(w)
	}
	sum, err := m.run(ctx)
	cancel()
	wg.Wait()
	for _, w := range workers {
		w.shutdown()
	}
	return sum, err
}
