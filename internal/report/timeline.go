// Package report renders what the jobevent commands find in a log as
// self-contained documents for people: the timeline (a Gantt chart of
// every attempt with master epochs, failovers and the exposure curve, as
// SVG or an HTML page) and the reports of the other commands. Nothing it
// writes loads anything from the network: styles are inline and tooltips
// are SVG <title> elements.
package report

import (
	"fmt"
	"time"

	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// Timeline is everything the timeline chart draws, gathered from one pass
// over a log by BuildTimeline.
type Timeline struct {
	Job    string
	Status string // of job_finished; "running" while it has none
	Start  time.Time
	End    time.Time
	// Vertices are the vertices of job_submitted, in graph order.
	Vertices []TimelineVertex
	Attempts []replay.AttemptSpan // in the order they started
	Epochs   []replay.EpochSpan
	// Exposure is the sweep of the log: at each point, what a failover
	// right then would rerun (replay.Sweep, the same replay.Plan).
	Exposure []replay.SweepPoint
	// Stats holds the per-vertex statistics, the critical path and the
	// cost of each failover.
	Stats *replay.Stats
	// BySeq is set for a log without times (a Flink log): the chart is
	// laid out by seq, one event a step, and says so; durations are
	// unknown.
	BySeq bool
	// Names are the vertices' names where a vertex's id is not its name
	// (a Flink log's, from its plan): lanes show the name, the id beside.
	Names map[string]string
}

// seqTime is the time a log without times is drawn at for seq n: one
// second a step, so that the chart's scale is the seq's.
func seqTime(n int64) time.Time { return time.Unix(n, 0).UTC() }

// jobName is the job's id, or "(unknown job)" for a log that names none.
func (t *Timeline) jobName() string {
	if t.Job == "" {
		return "(unknown job)"
	}
	return t.Job
}

// durationLabel renders a duration; a chart laid out by seq knows none.
func (t *Timeline) durationLabel(d time.Duration) string {
	if t.BySeq {
		return "-"
	}
	return durationLabel(d)
}

// nameOf returns a vertex's name and id, "name (id)", or its id when it
// has no name.
func nameOf(names map[string]string, id string) string {
	if n := names[id]; n != "" {
		return n + " (" + id + ")"
	}
	return id
}

// offsetLabel labels a point of the axis, d after the start: a time
// offset, or in a chart laid out by seq the seq.
func (t *Timeline) offsetLabel(d time.Duration) string {
	if t.BySeq {
		return fmt.Sprintf("seq %d", t.Start.Unix()+int64(d/time.Second))
	}
	return offsetLabel(d)
}

// TimelineVertex is one vertex of the chart: a group of lanes, one per
// subtask.
type TimelineVertex struct {
	ID          string
	Operator    string
	Coordinator string
	Parallelism int32 // 0 while not initialized: no lanes
}

// TimelineOptions configures BuildTimeline.
type TimelineOptions struct {
	// Points caps the points of the exposure curve (replay.SweepOptions
	// Points); 0 samples every event.
	Points int
	// BySeq lays the chart out by seq: for a log without times.
	BySeq bool
	// History, when set, is the history the events are recorded into
	// (new and empty), so that the caller has the fold of the log too
	// (History.State); nil: a history of BuildTimeline's own.
	History *replay.History
}

// BuildTimeline reads src once: every event goes both to a
// replay.History (attempts, epochs, statistics) and to replay.Sweep (the
// exposure curve). An error of src ends it and is returned, wrapped.
func BuildTimeline(src replay.Source, opts TimelineOptions) (*Timeline, error) {
	h := opts.History
	if h == nil {
		h = replay.NewHistory()
	}
	tee := &teeSource{src: src, h: h, bySeq: opts.BySeq, initSeq: map[string]int64{}}
	points, err := replay.Sweep(tee, replay.SweepOptions{Points: opts.Points})
	if err != nil {
		return nil, fmt.Errorf("timeline: %w", err)
	}
	st := h.Stats()
	tl := &Timeline{
		Job: st.Job, Status: st.Status, Start: h.Start(), End: h.End(),
		Attempts: h.Attempts(), Epochs: h.Epochs(), Exposure: points, Stats: st,
		BySeq: opts.BySeq, Names: h.State().Names(),
	}
	if opts.BySeq {
		tee.stretch(tl)
	}
	if g := h.State().Graph(); g != nil {
		for _, v := range g.Vertices {
			p, _ := h.State().Parallelism(v.ID)
			tl.Vertices = append(tl.Vertices, TimelineVertex{ID: v.ID, Operator: v.Operator, Coordinator: v.Coordinator, Parallelism: p})
		}
	}
	return tl, nil
}

// teeSource hands every event it returns to a History as well. For a
// chart laid out by seq it gives each event the time of its seq first,
// and notes when each vertex was initialized.
type teeSource struct {
	src     replay.Source
	h       *replay.History
	bySeq   bool
	initSeq map[string]int64 // vertex -> seq of its latest vertex_initialized
}

// stretch draws each attempt that ended without a recorded start (a
// Flink log records none) from when it could start, the later of its
// vertex's initialization and its epoch's start, to its end.
func (t *teeSource) stretch(tl *Timeline) {
	for i := range tl.Attempts {
		a := &tl.Attempts[i]
		if a.StartSeq != a.EndSeq || !a.Finished {
			continue
		}
		from := t.initSeq[a.Vertex]
		for _, ep := range tl.Epochs {
			if ep.Epoch == a.Epoch {
				from = max(from, ep.StartSeq)
			}
		}
		if from > 0 && from < a.StartSeq {
			a.StartSeq, a.Start = from, seqTime(from)
		}
	}
}

func (t *teeSource) Next() (format.Event, error) {
	e, err := t.src.Next()
	if err == nil && t.bySeq {
		e.Time = seqTime(e.Seq)
		if e.Kind == format.KindVertexInitialized {
			t.initSeq[e.Vertex] = e.Seq
		}
	}
	if err == nil {
		_ = t.h.Apply(&e) // events the fold skips are counted by its state
	}
	return e, err
}

// Lanes returns the number of lanes of the chart: one per subtask of an
// initialized vertex.
func (t *Timeline) Lanes() int {
	n := 0
	for _, v := range t.Vertices {
		n += int(v.Parallelism)
	}
	return n
}

// Reran returns the number of subtasks some failover reran (each counted
// once, however many failovers reran it).
func (t *Timeline) Reran() int {
	return len(t.reranBy())
}

// reranBy maps every subtask a failover reran to the first epoch that
// reran it.
func (t *Timeline) reranBy() map[format.SubtaskRef]int32 {
	m := make(map[format.SubtaskRef]int32)
	for _, ep := range t.Epochs {
		for _, r := range ep.Reran {
			if _, ok := m[r]; !ok {
				m[r] = ep.Epoch
			}
		}
	}
	return m
}

// onPath returns the attempts of the critical path, keyed by subtask and
// attempt number.
func (t *Timeline) onPath() map[attemptKey]bool {
	m := make(map[attemptKey]bool)
	if t.Stats == nil {
		return m
	}
	for _, s := range t.Stats.CriticalPath {
		m[attemptKey{s.SubtaskRef, s.Attempt, s.Start.UnixNano()}] = true
	}
	return m
}

// attemptKey identifies an attempt: the same attempt number may appear
// twice in a log validate rejects, so its start time is part of it.
type attemptKey struct {
	ref     format.SubtaskRef
	attempt int32
	start   int64
}
