package drill

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
	"github.com/jobevent/jobevent/pkg/runtime"
)

// caseRun is one case being run: its directory and what its runs wrote
// on stderr.
type caseRun struct {
	d      *driller
	c      *Case
	dir    runDir
	stderr lockedBuffer
	// removed lists the partition directories the fault deleted, for
	// repro.sh.
	removed []string
}

// lockedBuffer is a bytes.Buffer that the master and the workers of a run
// may write to at the same time.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// Bytes returns what was written; call it once the runs are over.
func (b *lockedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Bytes()
}

// lockedWriter serializes the writes of a run's master and workers to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// recovery is one resumed epoch and the dry run that predicted it.
type recovery struct {
	dry *dryRun
	// written is the crashed log as the master left it, before the fault
	// was injected (a torn tail loses events the dry run cannot see, but
	// their work was done): what the epoch redid is measured against it.
	written *replay.State
	epoch   int32 // 0: the log already ended the job; nothing ran
}

// dryRun is the plan of a crashed log, computed the way `jobevent replay
// --dry-run` computes it.
type dryRun struct {
	state  *replay.State
	events []format.Event     // the events folded
	opts   replay.PlanOptions // from the log's job.yaml
	avail  replay.Availability
	plan   *replay.RecoveryPlan
}

// run runs the case to its verdict; whatever goes wrong is a problem of
// the case.
func (r *caseRun) run(ctx context.Context) {
	c := r.c
	dry := r.crash(ctx, c.Point)
	if dry == nil {
		return
	}
	avail, err := r.inject(ctx, dry.state)
	if err != nil {
		r.fail("inject %s: %v", c.Fault, err)
		return
	}
	written := dry.state
	if c.Fault == FaultTornTail {
		dry = nil // the log changed: read it again
	}
	second := int64(0)
	if c.Fault == FaultDouble {
		second = written.LastSeq() + 1 + c.Point%3
	}
	var recs []recovery
	for {
		rec, crashedAgain, ok := r.resume(ctx, dry, avail, second)
		if !ok {
			return
		}
		rec.written = written
		recs = append(recs, rec)
		if !crashedAgain {
			break
		}
		c.SecondPoint, second = second, 0
		if dry, err = r.d.fold(ctx, r.dir.logURL()); err != nil {
			r.fail("dry run after the second crash: %v", err)
			return
		}
		if dry.state.LastSeq() != c.SecondPoint {
			r.fail("the log ends at seq %d after the second crash, want %d", dry.state.LastSeq(), c.SecondPoint)
			return
		}
		written, avail = dry.state, replay.AvailabilityOptions{}
	}
	r.judge(ctx, recs)
}

// crash runs the job until the master dies after event k and returns the
// crashed log folded (over a blob reader, as the dry run folds it); nil
// after recording a problem.
func (r *caseRun) crash(ctx context.Context, k int64) *dryRun {
	sum, _, err := r.d.runJob(ctx, r.dir, FaultMaster, false, k, &r.stderr)
	var ce *runtime.CrashError
	if !errors.As(err, &ce) {
		if err == nil {
			err = fmt.Errorf("the job ended %s at seq %d", sum.Status, sum.LastSeq)
		}
		r.fail("the master was to crash after seq %d: %v", k, err)
		return nil
	}
	dry, err := r.d.fold(ctx, r.dir.logURL())
	if err != nil {
		r.fail("%v", err)
		return nil
	}
	if diff := r.d.diverged(dry.events, k); diff != "" {
		r.fail("the crashed run is not the clean run up to seq %d: %s", k, diff)
		return nil
	}
	return dry
}

// inject applies the case's fault to the crashed log and the workers'
// partitions, and returns what the dry run must be told about it.
func (r *caseRun) inject(ctx context.Context, crashed *replay.State) (replay.AvailabilityOptions, error) {
	c := r.c
	switch c.Fault {
	case FaultWorker:
		c.LostWorker = busiestWorker(crashed)
		removed, err := r.dir.removePartitions(c.LostWorker)
		r.removed = removed
		if err != nil {
			return replay.AvailabilityOptions{}, err
		}
		if len(removed) == 0 && holds(crashed, c.LostWorker) {
			return replay.AvailabilityOptions{}, fmt.Errorf("the log records partitions on %s, but none of %s exists: where does the runtime keep them?",
				c.LostWorker, strings.Join(r.dir.partitionDirs(c.LostWorker), " or "))
		}
		return replay.AvailabilityOptions{LostWorkers: []string{c.LostWorker}}, nil
	case FaultTornTail:
		key, size, err := tearNewest(ctx, r.dir)
		if err != nil {
			return replay.AvailabilityOptions{}, err
		}
		c.TornSegment, c.TornSize = key, size
	case FaultSlowWorkers:
		// The embedded runtime cannot hold its workers back past the
		// timeout: their partitions are taken away instead, so that
		// none is reported in time, which is what the master sees.
		for _, p := range crashed.Partitions() {
			removed, err := r.dir.removePartitions(p.Worker)
			r.removed = append(r.removed, removed...)
			if err != nil {
				return replay.AvailabilityOptions{}, err
			}
		}
		if len(r.removed) == 0 && len(crashed.Partitions()) > 0 {
			return replay.AvailabilityOptions{}, fmt.Errorf("the log records partitions, but no worker's partition directory exists under %s", r.dir.workDir())
		}
		return replay.AvailabilityOptions{NoWorkers: true}, nil
	}
	return replay.AvailabilityOptions{}, nil
}

// holds reports whether the log records a partition on worker.
func holds(st *replay.State, worker string) bool {
	for _, p := range st.Partitions() {
		if p.Worker == worker {
			return true
		}
	}
	return false
}

// busiestWorker returns the worker holding the most recorded partitions
// of the finished attempts (ties: the lowest id), "w1" when none has any.
func busiestWorker(st *replay.State) string {
	counts := map[string]int{}
	for _, p := range st.Partitions() {
		counts[p.Worker]++
	}
	best, n := "w1", 0
	for w, k := range counts {
		if k > n || k == n && w < best {
			best, n = w, k
		}
	}
	return best
}

// resume takes the dry run of the crashed log (dry holds it folded
// already, or is nil), then resumes the job: to its end, or until the
// master dies after event crashAfter (> 0), which it reports. It returns
// false after recording a problem.
func (r *caseRun) resume(ctx context.Context, dry *dryRun, avail replay.AvailabilityOptions, crashAfter int64) (rec recovery, crashed, ok bool) {
	var err error
	if dry == nil {
		dry, err = r.d.fold(ctx, r.dir.logURL())
	}
	if err == nil {
		err = r.d.plan(dry, avail)
	}
	if err != nil {
		r.fail("dry run: %v", err)
		return recovery{}, false, false
	}
	sum, took, err := r.d.runJob(ctx, r.dir, r.c.Fault, true, crashAfter, &r.stderr)
	r.c.RecoveryMs += float64(took.Microseconds()) / 1000
	var ce *runtime.CrashError
	switch {
	case errors.As(err, &ce):
		crashed = true
	case err != nil:
		r.fail("resume: %v", err)
		return recovery{}, false, false
	case sum.Status != format.StatusFinished:
		r.fail("resume: the job ended %s", sum.Status)
		return recovery{}, false, false
	}
	rec = recovery{dry: dry}
	if !sum.AlreadyEnded {
		rec.epoch = sum.Epoch
	}
	return rec, crashed, true
}

// judge compares every recovery's prediction with what its epoch started,
// the output with the clean output, and validates the recovered log.
func (r *caseRun) judge(ctx context.Context, recs []recovery) {
	c := r.c
	events, err := readEvents(ctx, r.dir.logURL())
	if err != nil {
		r.fail("%v", err)
		return
	}
	order := r.d.order
	c.Match = true
	for i, rec := range recs {
		last := i == len(recs)-1
		at := fmt.Sprintf("recovery after seq %d (epoch %d)", rec.dry.state.LastSeq(), rec.epoch)
		predicted := predictedStarts(rec.dry.plan, rec.dry.state.Graph(), events, rec.epoch)
		actual := starts{}
		if rec.epoch != 0 {
			actual = startedIn(events, rec.epoch)
		}
		diffs := compareStarts(order, predicted, actual, !last)
		diffs = append(diffs, compareResets(order, rec.dry.plan, events, rec.epoch, !last)...)
		for _, d := range checkPlan(rec.dry) {
			diffs = append(diffs, "plan disagrees with the log: "+d)
		}
		for _, d := range diffs {
			c.Match = false
			r.problem("%s: %s", at, d)
		}
		cost := redone(rec.written, actual)
		c.RedoneSubtasks += cost.Subtasks
		c.RedoneBytes += cost.Bytes
		if last {
			c.Predicted, c.Actual = order.list(predicted), order.list(actual)
		}
	}
	r.judgeOutput()
	findings := validationErrors(events)
	c.LogErrors = len(findings)
	for i, f := range findings {
		if i == 3 {
			r.problem("recovered log: %d more validate errors", len(findings)-i)
			break
		}
		r.problem("recovered log: %s", f)
	}
}

func (r *caseRun) judgeOutput() {
	got, err := readOutput(r.dir, r.d.outputRoots)
	if err != nil {
		r.fail("%v", err)
		return
	}
	if diff := diffOutput(r.d.cleanOutput, got); diff != "" {
		r.problem("output differs from the clean run: %s", diff)
		return
	}
	r.c.OutputIdentical = true
}

// problem records what went wrong with the case.
func (r *caseRun) problem(format string, args ...any) {
	r.c.Problems = append(r.c.Problems, fmt.Sprintf(format, args...))
}

// fail records a problem that ends the case: a run that did not go as
// the drill needs.
func (r *caseRun) fail(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if r.c.Error == "" {
		r.c.Error = msg
	}
	r.c.Problems = append(r.c.Problems, msg)
}

// runJob runs the job once in d with the embedded runtime, seeded, and
// returns its summary, how long it took and its error.
func (dr *driller) runJob(ctx context.Context, d runDir, f Fault, resume bool, crashAfter int64, stderr io.Writer) (*runtime.Summary, time.Duration, error) {
	spec, err := runtime.ParseSpec(dr.spec.File, dr.spec.Raw)
	if err != nil {
		return nil, 0, err
	}
	opts := runtime.Options{
		Events: d.logURL(), WorkDir: d.workDir(), Dir: d.path, Workers: dr.opts.Workers,
		Resume: resume, CrashAfterSeq: crashAfter, Seeded: true, Seed: dr.opts.Seed,
		Stderr: stderr, Settings: settings(f),
	}
	start := time.Now()
	sum, err := runtime.Run(ctx, spec, opts)
	return sum, time.Since(start), err
}

// errNoPlan is the dry run's error for a Planner that returned nil.
var errNoPlan = errors.New("jobevent/drill: the planner returned no plan")

// fold reads the log at url for a dry run: its events, and the plan
// options of its job.yaml (runtime.LogPlanOptions), as `jobevent replay
// --dry-run` reads them.
func (dr *driller) fold(ctx context.Context, url string) (*dryRun, error) {
	st, events, err := foldLog(ctx, url)
	if err != nil {
		return nil, err
	}
	opts, err := planOptions(ctx, url)
	if err != nil {
		return nil, err
	}
	return &dryRun{state: st, events: events, opts: opts}, nil
}

// plan computes the plan of a folded log as `jobevent replay LOG
// --dry-run` does: BuildAvailability from the flags that describe the
// fault, then the drill's Planner with the options of the log's job.yaml.
func (dr *driller) plan(dry *dryRun, avail replay.AvailabilityOptions) error {
	a, err := replay.BuildAvailability(dry.state, avail)
	if err != nil {
		return err
	}
	dry.avail, dry.plan = a, dr.opts.Planner(dry.state, a, dry.opts)
	if dry.plan == nil {
		return errNoPlan
	}
	return nil
}
