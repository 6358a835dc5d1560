package replay

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/jobevent/jobevent/pkg/format"
)

// SweepOptions selects the points of an exposure sweep and what is
// assumed available at each of them. The zero value samples every event
// with every recorded partition available.
type SweepOptions struct {
	// Every samples every K-th event applied (fenced writes aside), and
	// the last one; 0 or 1 means every event.
	Every int64
	// Points caps the number of points: when more would be sampled, the
	// stride (Every, or 1) doubles and every other point is dropped, so
	// that the result holds at most Points points, evenly spaced, and
	// at least Points/2 of them (unless the log is shorter). The last
	// event is always a point. 0 means no cap.
	Points int
	// Until stops the sweep after the event with this seq; 0 means the
	// whole log.
	Until int64
	// Available describes the partitions that survive a failover at each
	// point, built from the state there by BuildAvailability; the zero
	// value is every recorded partition (AllRecorded), the dry run's
	// default. A lost partition naming an unknown vertex is an error.
	Available AvailabilityOptions
}

// SweepPoint is the recovery plan summarized as if the master had died
// right after one event. Its JSON is one element of `jobevent replay
// --dry-run --sweep --format json`.
type SweepPoint struct {
	Seq   int64       `json:"seq"`
	Time  time.Time   `json:"time"`
	Epoch int32       `json:"epoch"`
	Kind  format.Kind `json:"kind"` // kind of the event at Seq
	// Keep, Rerun and Run are the plan's summary at Seq.
	Keep  int `json:"keep"`
	Rerun int `json:"rerun"`
	Run   int `json:"run"`
	// Discarded counts the finished subtasks whose results recovery
	// would throw away (RecoveryPlan.Resets): the part of Rerun that had
	// finished.
	Discarded int `json:"discarded"`
	// RerunBytes is the work that would be redone, in bytes: the
	// bytes_out of the finished attempts that would rerun (the result
	// data recovery throws away and has to produce again). Attempts
	// running at Seq have recorded no bytes yet and count 0: their loss
	// is in RerunSeconds.
	RerunBytes int64 `json:"rerun_bytes"`
	// RerunSeconds is the work that would be redone, in task-seconds:
	// for each finished attempt that would rerun, its time from
	// subtask_started to subtask_finished; for each attempt running at
	// Seq, its time from subtask_started to Seq. Failed and reset
	// attempts were lost before Seq and do not count.
	RerunSeconds float64 `json:"rerun_seconds"`

	index int64 // events applied up to Seq (fenced writes aside)
}

// Sweep folds src once and, at each sampled event, calls Plan on the
// state there — the same function a recovering master calls, with the
// availability opts describe — and summarizes the plan as a SweepPoint:
// the exposure curve of the log, what a failover at each moment would
// cost. The points are in log order.
//
// Sweep's memory is the fold's (proportional to the job) plus the points.
// Each point costs one Plan, linear in the subtasks of the job, so a sweep
// of every event of a long log of a big job is slow: cap it with Points.
// An error of src other than io.EOF ends the sweep: Sweep returns it,
// wrapped, together with the points so far.
func Sweep(src Source, opts SweepOptions) ([]SweepPoint, error) {
	if opts.Every < 0 || opts.Points < 0 || opts.Until < 0 {
		return nil, fmt.Errorf("replay: sweep: every %d, points %d, until %d: %w", opts.Every, opts.Points, opts.Until, ErrBadSweep)
	}
	w := newSweeper(opts)
	for {
		e, err := src.Next()
		if errors.Is(err, io.EOF) || (err == nil && opts.Until > 0 && e.Seq > opts.Until) {
			break
		}
		if err != nil {
			return w.points, fmt.Errorf("replay: sweep after seq %d: %w", w.s.lastSeq, err)
		}
		if err := w.apply(&e); err != nil {
			return w.points, err
		}
	}
	if err := w.finish(); err != nil {
		return w.points, err
	}
	return w.points, nil
}

// ErrBadSweep reports SweepOptions with a negative field.
var ErrBadSweep = errors.New("jobevent/replay: bad sweep options")

// sweeper is the state of one Sweep: the fold, the start time of each
// subtask's last attempt, and the points sampled.
type sweeper struct {
	opts   SweepOptions
	s      *State
	stride int64
	maxLen int // points kept while streaming; the last event is added at the end

	started []time.Time     // per dense subtask: start of its last attempt
	ran     []time.Duration // per dense subtask: start→finish of its finished entry
	points  []SweepPoint
	last    format.Event // the last event applied
	lastAt  int64        // events applied when last was sampled; 0: not sampled
}

func newSweeper(opts SweepOptions) *sweeper {
	w := &sweeper{opts: opts, s: NewState(), stride: max(opts.Every, 1)}
	if opts.Points > 0 {
		w.maxLen = opts.Points - 1
	}
	return w
}

// apply folds e and samples the state after it when e falls on the
// stride.
func (w *sweeper) apply(e *format.Event) error {
	if e.Epoch < w.s.epoch {
		_ = w.s.Apply(e) // a fenced write: counted, ignored
		return nil
	}
	if err := w.s.Apply(e); err == nil {
		w.track(e)
	}
	w.last = *e
	w.last.Graph, w.last.Partitions, w.last.Subtasks, w.last.Coordinators = nil, nil, nil, nil
	if w.opts.Points == 1 || w.s.events%w.stride != 0 {
		return nil // one point: only the last event
	}
	if err := w.sample(); err != nil {
		return err
	}
	for w.opts.Points > 0 && len(w.points) > w.maxLen {
		w.thin()
	}
	return nil
}

// finish samples the last event when the stride did not.
func (w *sweeper) finish() error {
	if w.s.events == 0 || w.lastAt == w.s.events {
		return nil
	}
	return w.sample()
}

// thin doubles the stride and keeps the points that fall on it.
func (w *sweeper) thin() {
	w.stride *= 2
	kept := w.points[:0]
	for _, p := range w.points {
		if p.index%w.stride == 0 {
			kept = append(kept, p)
		}
	}
	w.points = kept
}

// track keeps the attempt times a point needs, after Apply applied e.
func (w *sweeper) track(e *format.Event) {
	for len(w.started) < len(w.s.sub) {
		w.started = append(w.started, time.Time{})
		w.ran = append(w.ran, 0)
	}
	switch e.Kind {
	case format.KindSubtaskStarted:
		x := w.dense(e.Vertex, e.Subtask)
		w.started[x] = e.Time
	case format.KindSubtaskFinished:
		x := w.dense(e.Vertex, e.Subtask)
		w.ran[x] = 0
		if !w.started[x].IsZero() && e.Time.After(w.started[x]) {
			w.ran[x] = e.Time.Sub(w.started[x])
		}
	}
}

// dense returns the dense index of a subtask the state has resolved.
func (w *sweeper) dense(vertex string, i int32) int32 {
	return w.s.vs[w.s.topo.vertex(vertex)].base + i
}

// sample plans the current state and appends its point.
func (w *sweeper) sample() error {
	s := w.s
	avail, err := BuildAvailability(s, w.opts.Available)
	if err != nil {
		if s.graph != nil {
			return fmt.Errorf("replay: sweep at seq %d: %w", s.lastSeq, err)
		}
		avail = nil // nothing recorded before job_submitted
	}
	plan := Plan(s, avail)
	p := SweepPoint{
		Seq: s.lastSeq, Time: w.last.Time, Epoch: s.epoch, Kind: w.last.Kind,
		Keep: plan.Summary.Keep, Rerun: plan.Summary.Rerun, Run: plan.Summary.Run,
		Discarded: len(plan.resets),
	}
	var lost time.Duration
	for _, k := range plan.resets {
		row := &plan.Subtasks[k]
		x := w.dense(row.Vertex, row.Subtask)
		p.RerunBytes += s.sub[x].bytesOut
		lost += w.ran[x]
	}
	for x := range s.sub {
		if st := &s.sub[x]; st.status == stRunning && w.last.Time.After(w.started[x]) {
			lost += w.last.Time.Sub(w.started[x])
		}
	}
	p.RerunSeconds = lost.Seconds()
	p.index = s.events
	w.points = append(w.points, p)
	w.lastAt = s.events
	return nil
}

// MostExposed returns the index of the most exposed point of a sweep: the
// failover that would redo the most work. That is the point with the most
// RerunSeconds; among equals, the most RerunBytes, then the most Rerun;
// among points equal in all three, the earliest. ok is false for no
// points. `jobevent replay --dry-run --sweep` and `jobevent timeline`
// both report this point; with a --points cap it is the most exposed of
// the points sampled.
func MostExposed(points []SweepPoint) (i int, ok bool) {
	if len(points) == 0 {
		return 0, false
	}
	for k := range points {
		p, w := &points[k], &points[i]
		switch {
		case p.RerunSeconds != w.RerunSeconds:
			if p.RerunSeconds > w.RerunSeconds {
				i = k
			}
		case p.RerunBytes != w.RerunBytes:
			if p.RerunBytes > w.RerunBytes {
				i = k
			}
		case p.Rerun > w.Rerun:
			i = k
		}
	}
	return i, true
}
