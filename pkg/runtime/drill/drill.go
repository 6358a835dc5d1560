package drill

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/runtime"
)

// driller holds what every case of one drill shares: the spec, the clean
// run's log and output, and the scratch directory.
type driller struct {
	spec    *runtime.Spec
	job     string
	opts    Options
	base    string   // Options.Dir, absolute
	scratch string   // the drill's scratch directory
	inputs  []string // relative input paths copied into every run directory
	mirror  string   // <scratch>/inputs: the copies, hard-linked from there

	cleanEvents []format.Event
	cleanOutput map[string][]byte
	outputRoots []string
	order       vertexOrder
}

// ErrInterrupted is wrapped by the error of a drill whose context ended
// before it was done: nothing of it is kept, its scratch directory (the
// logs and outputs of its runs) is deleted.
var ErrInterrupted = errors.New("jobevent/drill: interrupted")

// Run drills spec: a clean run, then every crash point and fault of opts,
// up to opts.Parallel cases at a time. It returns an error when the drill
// cannot be run at all (a spec whose outputs cannot be told apart per
// case, a clean run that fails; ctx canceled: an error wrapping
// ErrInterrupted and ctx's error, which names none of the drill's
// temporary logs); a case that goes wrong is a failed Case of the Result,
// never an error. Run may be called concurrently with distinct options.
func Run(ctx context.Context, spec *runtime.Spec, opts Options) (*Result, error) {
	res, err := run(ctx, spec, opts)
	if err != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("%w (nothing kept: the drill's temporary logs and outputs are deleted): %w", ErrInterrupted, ctx.Err())
	}
	return res, err
}

func run(ctx context.Context, spec *runtime.Spec, opts Options) (*Result, error) {
	opts.defaults()
	d, err := newDriller(spec, opts)
	if err != nil {
		return nil, err
	}
	res := &Result{Job: spec.Job, Spec: d.specPath(), Seed: opts.Seed, Faults: opts.Faults}
	failed := false
	defer func() {
		if !failed || opts.Keep != "" {
			os.RemoveAll(d.scratch)
		}
	}()
	took, err := d.clean(ctx)
	if err != nil {
		return nil, err
	}
	res.CleanMs = float64(took.Microseconds()) / 1000
	res.Events = int64(len(d.cleanEvents))
	res.Points = selectPoints(d.cleanEvents, opts.Points, opts.At)
	if len(res.Points) == 0 {
		return nil, fmt.Errorf("drill: no crash point: %v names no seq of the clean log (1 to %d)", opts.At, res.Events)
	}
	res.Cases, err = d.runCases(ctx, res.Points)
	if err != nil {
		return nil, err
	}
	res.Curve = res.curve()
	res.Verdict = res.verdict()
	if failed = !res.Verdict.OK; failed {
		res.Kept = d.scratch
		if opts.Keep != "" {
			res.Kept = opts.Keep
		}
	}
	return res, nil
}

func newDriller(spec *runtime.Spec, opts Options) (*driller, error) {
	base := opts.Dir
	if base == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("drill: working directory: %w", err)
		}
		base = wd
	}
	base, err := filepath.Abs(base)
	if err != nil {
		return nil, fmt.Errorf("drill: %w", err)
	}
	inputs, err := inputPaths(spec, base)
	if err != nil {
		return nil, err
	}
	scratch, err := os.MkdirTemp(opts.TempDir, "jobevent-drill-")
	if err != nil {
		return nil, fmt.Errorf("drill: scratch directory: %w", err)
	}
	d := &driller{spec: spec, job: spec.Job, opts: opts, base: base, scratch: scratch, inputs: inputs}
	// One copy of the inputs; every run directory hard-links it, which
	// works within the scratch directory whatever the base's filesystem.
	mirror, err := makeRunDir(filepath.Join(scratch, "inputs"), spec.Job, base, inputs)
	if err != nil {
		os.RemoveAll(scratch)
		return nil, err
	}
	d.mirror = mirror.path
	return d, nil
}

// specPath names the spec in reproduction commands.
func (d *driller) specPath() string {
	p := d.opts.SpecPath
	if p == "" {
		p = d.spec.File
	}
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(d.base, p)
}

// clean runs the job once without faults and keeps its log and output.
func (d *driller) clean(ctx context.Context) (time.Duration, error) {
	dir, err := makeRunDir(filepath.Join(d.scratch, "clean"), d.job, d.mirror, d.inputs)
	if err != nil {
		return 0, err
	}
	sum, took, err := d.runJob(ctx, dir, FaultMaster, false, 0, &lockedWriter{w: d.opts.Stderr})
	if err != nil {
		return 0, fmt.Errorf("drill: clean run of %s: %w", d.job, err)
	}
	if sum.Status != format.StatusFinished {
		return 0, fmt.Errorf("drill: clean run of %s ended %s", d.job, sum.Status)
	}
	if d.outputRoots, err = outputRoots(dir, sum.Outputs); err != nil {
		return 0, err
	}
	if d.cleanOutput, err = readOutput(dir, d.outputRoots); err != nil {
		return 0, err
	}
	if d.cleanEvents, err = readEvents(ctx, dir.logURL()); err != nil {
		return 0, fmt.Errorf("drill: clean run: %w", err)
	}
	if len(d.cleanEvents) == 0 || d.cleanEvents[0].Kind != format.KindJobSubmitted {
		return 0, fmt.Errorf("drill: clean run of %s: the log does not start with job_submitted", d.job)
	}
	d.order = newVertexOrder(d.cleanEvents[0].Graph)
	return took, nil
}

// runCases runs every point and fault, opts.Parallel at a time, and
// returns the cases by point, then fault.
func (d *driller) runCases(ctx context.Context, points []Point) ([]Case, error) {
	cases := make([]Case, 0, len(points)*len(d.opts.Faults))
	for _, p := range points {
		for _, f := range d.opts.Faults {
			cases = append(cases, Case{Point: p.Seq, Fault: f, Predicted: []string{}, Actual: []string{}, Problems: []string{}})
		}
	}
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	var firstErr error
	for w := 0; w < min(d.opts.Parallel, len(cases)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				err := d.runCase(ctx, &cases[i])
				mu.Lock()
				done++
				if err != nil && firstErr == nil {
					firstErr = err
				}
				if d.opts.Progress != nil {
					d.opts.Progress(done, len(cases))
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for i := range cases {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("drill: %w", err)
	}
	return cases, firstErr
}

// runCase runs one case in a directory of its own, keeps it when it
// fails and deletes it otherwise. The error is for what stops the whole
// drill (the scratch directory is unusable).
func (d *driller) runCase(ctx context.Context, c *Case) error {
	dir, err := makeRunDir(filepath.Join(d.scratch, caseName(c)), d.job, d.mirror, d.inputs)
	if err != nil {
		return err
	}
	r := &caseRun{d: d, c: c, dir: dir}
	r.run(ctx)
	if ctx.Err() != nil {
		return nil
	}
	if c.OK() {
		return os.RemoveAll(dir.path)
	}
	return d.keep(r)
}

// caseName is the directory name of a case: case-<point %06d>-<fault>.
func caseName(c *Case) string { return fmt.Sprintf("case-%06d-%s", c.Point, c.Fault) }

// diverged compares the events of a crashed run with the clean log up to
// seq k, times aside, and says where they part; "" when they do not: a
// seeded run must be reproducible, or crash point k of the clean log is
// not the event the case crashed after.
func (d *driller) diverged(events []format.Event, k int64) string {
	if int64(len(events)) < k || int64(len(d.cleanEvents)) < k {
		return fmt.Sprintf("the crashed log has %d events, the clean one %d", len(events), len(d.cleanEvents))
	}
	for i := int64(0); i < k; i++ {
		a, b := events[i], d.cleanEvents[i]
		a.Time, b.Time = time.Time{}, time.Time{}
		if ja, jb := format.AppendJSON(nil, &a), format.AppendJSON(nil, &b); string(ja) != string(jb) {
			return fmt.Sprintf("seq %d is %s, the clean run's %s", a.Seq, bytes.TrimSpace(ja), bytes.TrimSpace(jb))
		}
	}
	return ""
}

// ErrNotDrillable is wrapped by the errors of specs a drill cannot run:
// outputs that every case would share, inputs outside the base directory.
var ErrNotDrillable = errors.New("jobevent/drill: spec cannot be drilled")
