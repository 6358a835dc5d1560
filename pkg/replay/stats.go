package replay

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"time"

	"github.com/jobevent/jobevent/pkg/format"
)

// Outcome is how an attempt ended, as far as the log says. The string
// values are part of the JSON of `jobevent stats` and of the timeline.
type Outcome string

// The outcomes of an attempt.
const (
	// OutcomeFinished: it finished and its result still stands at the end
	// of the log.
	OutcomeFinished Outcome = "finished"
	// OutcomeFailed: subtask_failed ended it.
	OutcomeFailed Outcome = "failed"
	// OutcomeReset: it finished, then a subtasks_reset threw its result
	// away (a recovery's resets, partition-not-found, a failure
	// downstream), or a later finish replaced it; the subtask reran.
	OutcomeReset Outcome = "reset"
	// OutcomeInterrupted: it was running when its master failed over, or
	// when a subtasks_reset named it; its work was lost.
	OutcomeInterrupted Outcome = "interrupted"
	// OutcomeRunning: it was still running at the end of the log.
	OutcomeRunning Outcome = "running"
)

// ReasonFailover is the AttemptSpan.Cause of an attempt interrupted
// because its master died.
const ReasonFailover = "failover"

// AttemptSpan is one attempt of a subtask from its subtask_started to the
// event that ended it. An attempt finished or failed without a
// subtask_started in the same epoch starts where it ends.
type AttemptSpan struct {
	format.SubtaskRef
	Attempt int32   `json:"attempt"`
	Epoch   int32   `json:"epoch"` // of its subtask_started
	Worker  string  `json:"worker"`
	Outcome Outcome `json:"outcome"`
	// Cause says what reset or interrupted it: the reason of the
	// subtasks_reset, or "failover"; empty for the other outcomes.
	Cause    string    `json:"cause,omitempty"`
	Start    time.Time `json:"start"`
	End      time.Time `json:"end"` // running: the last event of the log
	StartSeq int64     `json:"start_seq"`
	EndSeq   int64     `json:"end_seq"` // of subtask_finished or subtask_failed; of the reset; 0 otherwise
	// Finished reports whether subtask_finished ended it (outcomes
	// finished and reset).
	Finished   bool   `json:"-"`
	RecordsIn  int64  `json:"records_in"`
	RecordsOut int64  `json:"records_out"`
	BytesIn    int64  `json:"bytes_in"`
	BytesOut   int64  `json:"bytes_out"`
	Error      string `json:"error,omitempty"`
}

// Duration is End − Start, never negative.
func (a *AttemptSpan) Duration() time.Duration {
	if d := a.End.Sub(a.Start); d > 0 {
		return d
	}
	return 0
}

// EpochSpan is the time one master held the job: from its master_started
// to its last event (fenced writes aside).
type EpochSpan struct {
	Epoch      int32     `json:"epoch"`
	Master     string    `json:"master"`
	Recovering bool      `json:"recovering"`
	Start      time.Time `json:"start"` // of master_started; of the first event for the first epoch
	End        time.Time `json:"end"`   // of its last event
	StartSeq   int64     `json:"start_seq"`
	LastSeq    int64     `json:"last_seq"`
	// Reran lists the subtasks this epoch's recovery reran: the finished
	// ones its first subtasks_reset with reason "recovery" names, and
	// those whose attempts were running when the previous master died.
	// In graph order, then subtask. Empty for the first epoch.
	Reran []format.SubtaskRef `json:"reran"`
}

// History records every attempt of a job, with its times and outcome,
// and the epochs of its masters, from the events of a log in log order.
// It folds the events into its own State (so fenced writes and events the
// fold skips are ignored the same way) and its memory grows with the
// attempts of the job: one AttemptSpan each. Not safe for concurrent use.
type History struct {
	s      *State
	spans  []AttemptSpan
	open   []int32 // per dense subtask: span of its running attempt, -1 none
	fin    []int32 // per dense subtask: span of its finished entry, -1 none
	epochs []EpochSpan
	reran  map[int32]bool // subtasks the current epoch's recovery reran
	first  time.Time      // time of the first event
	last   time.Time      // time of the last event applied
}

// NewHistory returns the history of an empty log.
func NewHistory() *History { return &History{s: NewState()} }

// State returns the fold of the events applied so far. The caller must
// not Apply to it.
func (h *History) State() *State { return h.s }

// Apply records one event. Fenced writes and events the fold cannot apply
// change nothing but the State's counters; Apply returns the fold's error
// for the latter.
func (h *History) Apply(e *format.Event) error {
	if e.Epoch < h.s.epoch {
		return h.s.Apply(e)
	}
	newEpoch := e.Kind == format.KindMasterStarted && (len(h.epochs) == 0 || e.Epoch > h.epochs[len(h.epochs)-1].Epoch)
	if newEpoch {
		h.closeEpoch()
	}
	if err := h.s.Apply(e); err != nil {
		h.touch(e)
		return err
	}
	if len(h.epochs) == 0 || newEpoch {
		h.epochs = append(h.epochs, EpochSpan{Epoch: e.Epoch, Start: e.Time, StartSeq: e.Seq})
	}
	if ep := &h.epochs[len(h.epochs)-1]; e.Kind == format.KindMasterStarted && ep.Master == "" {
		ep.Master, ep.Recovering = e.Master, e.Recovering // the epoch opened with job_submitted
	}
	h.touch(e)
	for len(h.open) < len(h.s.sub) {
		h.open = append(h.open, -1)
		h.fin = append(h.fin, -1)
	}
	switch e.Kind {
	case format.KindSubtaskStarted:
		h.started(e)
	case format.KindSubtaskFinished, format.KindSubtaskFailed:
		h.ended(e)
	case format.KindSubtasksReset:
		h.reset(e)
	}
	return nil
}

// touch moves the end of the log and of the current epoch to e.
func (h *History) touch(e *format.Event) {
	if h.s.events == 1 {
		h.first = e.Time
	}
	h.last = e.Time
	if n := len(h.epochs); n > 0 {
		h.epochs[n-1].End, h.epochs[n-1].LastSeq = e.Time, e.Seq
	}
}

// closeEpoch ends the current epoch: its running attempts are
// interrupted by the failover and rerun in the next.
func (h *History) closeEpoch() {
	if len(h.epochs) == 0 {
		return
	}
	h.flushReran()
	end := h.epochs[len(h.epochs)-1].End
	h.reran = make(map[int32]bool)
	for x, k := range h.open {
		if k >= 0 {
			h.spans[k].Outcome, h.spans[k].Cause, h.spans[k].End = OutcomeInterrupted, ReasonFailover, end
			h.open[x] = -1
			h.reran[int32(x)] = true
		}
	}
}

func (h *History) dense(vertex string, i int32) int32 {
	return h.s.vs[h.s.topo.vertex(vertex)].base + i
}

func (h *History) started(e *format.Event) {
	x := h.dense(e.Vertex, e.Subtask)
	if k := h.open[x]; k >= 0 { // a second start while running: a log validate rejects
		h.spans[k].Outcome, h.spans[k].End = OutcomeInterrupted, e.Time
	}
	h.open[x] = h.appendSpan(AttemptSpan{
		SubtaskRef: format.SubtaskRef{Vertex: e.Vertex, Subtask: e.Subtask},
		Attempt:    e.Attempt, Epoch: e.Epoch, Worker: e.Worker, Outcome: OutcomeRunning,
		Start: e.Time, End: e.Time, StartSeq: e.Seq,
	})
}

// appendSpan appends a to the spans and returns its index. A full array
// doubles: append grows a large slice by a quarter, which copied the spans
// of a large log (hundreds of thousands, 200-odd bytes each) four times
// over, a third of `stats`' time on a 1M-event log.
func (h *History) appendSpan(a AttemptSpan) int32 {
	if len(h.spans) == cap(h.spans) {
		h.spans = slices.Grow(h.spans, max(len(h.spans), 64))
	}
	h.spans = append(h.spans, a)
	return int32(len(h.spans) - 1)
}

func (h *History) ended(e *format.Event) {
	x := h.dense(e.Vertex, e.Subtask)
	k := h.open[x]
	if k < 0 || h.spans[k].Attempt != e.Attempt {
		k = h.appendSpan(AttemptSpan{ // ended without a start: a point
			SubtaskRef: format.SubtaskRef{Vertex: e.Vertex, Subtask: e.Subtask},
			Attempt:    e.Attempt, Epoch: e.Epoch, Start: e.Time, StartSeq: e.Seq,
		})
	} else {
		h.open[x] = -1
	}
	a := &h.spans[k]
	a.End, a.EndSeq, a.Worker = e.Time, e.Seq, e.Worker
	if e.Kind == format.KindSubtaskFailed {
		a.Outcome, a.Error = OutcomeFailed, e.Error
		return
	}
	if f := h.fin[x]; f >= 0 { // finished again without a reset: replaced
		h.spans[f].Outcome = OutcomeReset
	}
	a.Outcome, a.Finished = OutcomeFinished, true
	a.RecordsIn, a.RecordsOut, a.BytesIn, a.BytesOut = e.RecordsIn, e.RecordsOut, e.BytesIn, e.BytesOut
	h.fin[x] = k
}

func (h *History) reset(e *format.Event) {
	recovery := e.Reason == format.ReasonRecovery && h.reran != nil
	for _, r := range e.Subtasks {
		v := h.s.topo.vertex(r.Vertex)
		if v < 0 || r.Subtask < 0 || r.Subtask >= h.s.vs[v].parallelism {
			continue
		}
		x := h.s.vs[v].base + r.Subtask
		if k := h.fin[x]; k >= 0 {
			h.spans[k].Outcome, h.spans[k].Cause, h.spans[k].EndSeq = OutcomeReset, e.Reason, e.Seq
			h.fin[x] = -1
		}
		if k := h.open[x]; k >= 0 {
			h.spans[k].Outcome, h.spans[k].Cause, h.spans[k].End, h.spans[k].EndSeq = OutcomeInterrupted, e.Reason, e.Time, e.Seq
			h.open[x] = -1
		}
		if recovery {
			h.reran[x] = true
		}
	}
	if recovery {
		h.flushReran() // only the first recovery reset of the epoch
	}
}

// flushReran sets the Reran of the current epoch from the pending set of
// its recovery, if any.
func (h *History) flushReran() {
	if h.reran != nil {
		h.epochs[len(h.epochs)-1].Reran = h.refs(h.reran)
		h.reran = nil
	}
}

// refs returns the subtasks of set in graph order, then subtask.
func (h *History) refs(set map[int32]bool) []format.SubtaskRef {
	out := []format.SubtaskRef{}
	for v, id := range h.s.topo.ids {
		vs := &h.s.vs[v]
		for i := int32(0); i < vs.parallelism; i++ {
			if set[vs.base+i] {
				out = append(out, format.SubtaskRef{Vertex: id, Subtask: i})
			}
		}
	}
	return out
}

// Attempts returns every attempt in the order they started (attempts
// ended without a start: where they ended). Attempts still open are
// reported as running until the last event. The caller must not modify
// the result while applying more events.
func (h *History) Attempts() []AttemptSpan {
	for _, k := range h.open {
		if k >= 0 {
			h.spans[k].End = h.last
		}
	}
	return h.spans
}

// Epochs returns the epochs in order. An epoch whose master_started
// carried no recovery reset still lists the subtasks interrupted by the
// failover that opened it.
func (h *History) Epochs() []EpochSpan {
	out := append([]EpochSpan(nil), h.epochs...)
	if h.reran != nil {
		out[len(out)-1].Reran = h.refs(h.reran) // no recovery reset logged (yet)
	}
	for i := range out {
		if out[i].Reran == nil {
			out[i].Reran = []format.SubtaskRef{}
		}
	}
	return out
}

// Start returns the time of the first event, End that of the last event
// applied (fenced writes aside).
func (h *History) Start() time.Time { return h.first }

// End returns the time of the last event applied.
func (h *History) End() time.Time { return h.last }

// Stats summarizes a job from its log: per-vertex statistics, the
// critical path, and the time lost to master failovers. It marshals to
// the JSON of `jobevent stats --format json`.
type Stats struct {
	Job         string        `json:"job"`
	Status      string        `json:"status"` // of job_finished; "running" while it has none
	Start       time.Time     `json:"start"`  // first event
	End         time.Time     `json:"end"`    // last event
	WallSeconds float64       `json:"wall_seconds"`
	Events      int64         `json:"events"` // applied, fenced writes aside
	Vertices    []VertexStats `json:"vertices"`
	// CriticalPath is the chain of attempts that bounded the wall time,
	// first to last: it ends with the finished attempt that ended last,
	// and each step is what the next one waited for (CriticalPath
	// documents the rule).
	CriticalPath []PathStep     `json:"critical_path"`
	Failovers    []FailoverCost `json:"failovers"`
	// Lost adds up the failovers.
	Lost LostTime `json:"lost_to_failovers"`
	// Names are the vertices' names where an id is not the name
	// (State.Names): for people's tables, not part of the JSON.
	Names map[string]string `json:"-"`
}

// VertexStats are the statistics of one vertex. Durations are those of
// the attempts that subtask_finished ended (kept or later reset); records
// and bytes are those of the finished attempts that stand at the end of
// the log, so reruns are not counted twice.
type VertexStats struct {
	Vertex      string `json:"vertex"`
	Parallelism int32  `json:"parallelism"` // 0 while not initialized
	Initialized bool   `json:"initialized"`
	Attempts    int    `json:"attempts"` // attempts started (or ended without a start)
	// Reruns counts the attempts beyond the first of each subtask.
	Reruns     int     `json:"reruns"`
	Failed     int     `json:"failed"`
	Finished   int     `json:"finished"` // subtasks finished at the end of the log
	P50Seconds float64 `json:"p50_seconds"`
	MaxSeconds float64 `json:"max_seconds"`
	RecordsIn  int64   `json:"records_in"`
	RecordsOut int64   `json:"records_out"`
	BytesIn    int64   `json:"bytes_in"`
	BytesOut   int64   `json:"bytes_out"`
}

// Waits of a PathStep: what the gap before its start was spent on.
const (
	WaitStart    = "start"    // the first step: from the first event of the log
	WaitInput    = "input"    // the producer attempt of the previous step
	WaitRetry    = "retry"    // the previous attempt of the same subtask
	WaitFailover = "failover" // either, across a master failover
)

// PathStep is one attempt on the critical path.
type PathStep struct {
	format.SubtaskRef
	Attempt     int32     `json:"attempt"`
	Worker      string    `json:"worker"`
	Outcome     Outcome   `json:"outcome"`
	Start       time.Time `json:"start"`
	End         time.Time `json:"end"`
	Seconds     float64   `json:"seconds"`
	Wait        string    `json:"wait"`         // WaitStart, WaitInput, WaitRetry or WaitFailover
	WaitSeconds float64   `json:"wait_seconds"` // from the end of the previous step to Start
}

// FailoverCost is what one master failover cost: the wall time without a
// master, and the work it threw away.
type FailoverCost struct {
	Epoch   int32 `json:"epoch"`    // the epoch the failover opened
	LastSeq int64 `json:"last_seq"` // the last seq of the master that died
	// DowntimeSeconds is the time between the last event of the epoch
	// before and this epoch's master_started (wall clock).
	DowntimeSeconds float64 `json:"downtime_seconds"`
	// RedoneSeconds is the work redone, in task-seconds: the durations of
	// the attempts running when the master died and of the finished
	// attempts this epoch's recovery reset.
	RedoneSeconds float64 `json:"redone_seconds"`
	Reran         int     `json:"reran"` // subtasks its recovery reran
}

// LostTime is the total cost of the failovers of a log. TotalSeconds is
// DowntimeSeconds plus RedoneSeconds: wall time without a master plus the
// task time of the work redone.
type LostTime struct {
	DowntimeSeconds float64 `json:"downtime_seconds"`
	RedoneSeconds   float64 `json:"redone_seconds"`
	TotalSeconds    float64 `json:"total_seconds"`
}

// ComputeStats folds src once and returns its statistics. An error of src
// other than io.EOF ends the fold: ComputeStats returns it, wrapped,
// together with the statistics of the events read so far.
func ComputeStats(src Source) (*Stats, error) {
	h := NewHistory()
	for {
		e, err := src.Next()
		if errors.Is(err, io.EOF) {
			return h.Stats(), nil
		}
		if err != nil {
			return h.Stats(), fmt.Errorf("replay: stats after seq %d: %w", h.s.lastSeq, err)
		}
		_ = h.Apply(&e) // skipped events are counted by the state
	}
}

// Stats returns the statistics of the events applied so far.
func (h *History) Stats() *Stats {
	s := h.s
	st := &Stats{
		Job: s.job, Status: s.status, Start: h.first, End: h.last,
		WallSeconds: seconds(h.last.Sub(h.first)), Events: s.events,
		Vertices: h.vertexStats(), CriticalPath: h.CriticalPath(), Failovers: h.failovers(),
		Names: s.Names(),
	}
	if st.Status == "" {
		st.Status = "running"
	}
	for _, f := range st.Failovers {
		st.Lost.DowntimeSeconds += f.DowntimeSeconds
		st.Lost.RedoneSeconds += f.RedoneSeconds
	}
	st.Lost.TotalSeconds = st.Lost.DowntimeSeconds + st.Lost.RedoneSeconds
	return st
}

func (h *History) vertexStats() []VertexStats {
	s := h.s
	out := make([]VertexStats, len(s.topo.ids))
	durs := make([][]time.Duration, len(out))
	subtasks := make(map[format.SubtaskRef]bool)
	for v, id := range s.topo.ids {
		out[v] = VertexStats{Vertex: id, Parallelism: s.vs[v].parallelism, Initialized: s.vs[v].parallelism > 0,
			Finished: int(s.vs[v].finished)}
	}
	for _, a := range h.Attempts() {
		v := s.topo.vertex(a.Vertex)
		vs := &out[v]
		vs.Attempts++
		if subtasks[a.SubtaskRef] {
			vs.Reruns++
		}
		subtasks[a.SubtaskRef] = true
		switch {
		case a.Outcome == OutcomeFailed:
			vs.Failed++
		case a.Finished:
			durs[v] = append(durs[v], a.Duration())
		}
		if a.Outcome == OutcomeFinished {
			vs.RecordsIn += a.RecordsIn
			vs.RecordsOut += a.RecordsOut
			vs.BytesIn += a.BytesIn
			vs.BytesOut += a.BytesOut
		}
	}
	for v, d := range durs {
		if len(d) == 0 {
			continue
		}
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		out[v].P50Seconds = seconds(d[(len(d)-1)/2])
		out[v].MaxSeconds = seconds(d[len(d)-1])
	}
	return out
}

// failovers returns the cost of every epoch after the first.
func (h *History) failovers() []FailoverCost {
	epochs := h.Epochs()
	out := []FailoverCost{}
	for k := 1; k < len(epochs); k++ {
		prev, ep := &epochs[k-1], &epochs[k]
		f := FailoverCost{Epoch: ep.Epoch, LastSeq: prev.LastSeq, Reran: len(ep.Reran)}
		if d := ep.Start.Sub(prev.End); d > 0 {
			f.DowntimeSeconds = seconds(d)
		}
		var redone time.Duration
		for i := range h.spans {
			a := &h.spans[i]
			switch {
			case a.Outcome == OutcomeInterrupted && a.Cause == ReasonFailover && a.Epoch == prev.Epoch:
				redone += a.Duration()
			case a.Outcome == OutcomeReset && a.Cause == format.ReasonRecovery && a.EndSeq >= ep.StartSeq && a.EndSeq <= ep.LastSeq:
				redone += a.Duration()
			}
		}
		f.RedoneSeconds = seconds(redone)
		out = append(out, f)
	}
	return out
}

// CriticalPath returns the chain of attempts that bounded the wall time.
// It starts from the finished attempt (whose result stands) that ended
// last and walks back: the step before an attempt is what it waited for,
// the latest-ending of the producer attempts it read (a finished attempt
// of a producer subtask, over the edges of the graph, that ended before
// it started) and its own previous attempt (a retry). The walk ends at an
// attempt that waited for nothing. Empty when nothing has finished.
func (h *History) CriticalPath() []PathStep {
	spans := h.Attempts()
	bySub := make(map[format.SubtaskRef][]int32)
	end := -1
	for k := range spans {
		a := &spans[k]
		bySub[a.SubtaskRef] = append(bySub[a.SubtaskRef], int32(k))
		if a.Outcome == OutcomeFinished && (end < 0 || a.End.After(spans[end].End)) {
			end = k
		}
	}
	if end < 0 {
		return []PathStep{}
	}
	var chain []int
	seen := make(map[int]bool)
	for k := end; k >= 0 && !seen[k]; k = h.waitedFor(spans, bySub, k) {
		seen[k] = true
		chain = append(chain, k)
	}
	out := make([]PathStep, 0, len(chain))
	for i := len(chain) - 1; i >= 0; i-- {
		a := &spans[chain[i]]
		step := PathStep{SubtaskRef: a.SubtaskRef, Attempt: a.Attempt, Worker: a.Worker, Outcome: a.Outcome,
			Start: a.Start, End: a.End, Seconds: seconds(a.Duration()), Wait: WaitStart}
		from := h.first
		if i < len(chain)-1 {
			p := &spans[chain[i+1]]
			from, step.Wait = p.End, WaitInput
			if p.SubtaskRef == a.SubtaskRef {
				step.Wait = WaitRetry
			}
			if p.Epoch != a.Epoch {
				step.Wait = WaitFailover
			}
		}
		if d := a.Start.Sub(from); d > 0 {
			step.WaitSeconds = seconds(d)
		}
		out = append(out, step)
	}
	return out
}

// waitedFor returns the span the attempt k waited for, or -1.
func (h *History) waitedFor(spans []AttemptSpan, bySub map[format.SubtaskRef][]int32, k int) int {
	a := &spans[k]
	best := -1
	better := func(c int) {
		if best < 0 || spans[c].End.After(spans[best].End) {
			best = c
		}
	}
	for _, c := range bySub[a.SubtaskRef] { // its previous attempt
		if int(c) < k && !spans[c].End.After(a.Start) {
			better(int(c))
		}
	}
	s := h.s
	v := s.topo.vertex(a.Vertex)
	n := s.vs[v].parallelism
	for _, ei := range s.topo.in[v] {
		e := &s.topo.edges[ei]
		m := s.vs[e.from].parallelism
		var buf [1]span
		for _, sp := range e.producerSpans(a.Subtask, m, n, &buf) {
			for i := sp[0]; i < sp[1]; i++ {
				list := bySub[format.SubtaskRef{Vertex: s.topo.ids[e.from], Subtask: i}]
				for j := len(list) - 1; j >= 0; j-- { // the latest finish before a started
					if c := &spans[list[j]]; c.Finished && !c.End.After(a.Start) {
						better(int(list[j]))
						break
					}
				}
			}
		}
	}
	return best
}

func seconds(d time.Duration) float64 { return d.Seconds() }
