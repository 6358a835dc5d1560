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
}

// BuildTimeline reads src once: every event goes both to a
// replay.History (attempts, epochs, statistics) and to replay.Sweep (the
// exposure curve). An error of src ends it and is returned, wrapped.
func BuildTimeline(src replay.Source, opts TimelineOptions) (*Timeline, error) {
	h := replay.NewHistory()
	points, err := replay.Sweep(&teeSource{src: src, h: h}, replay.SweepOptions{Points: opts.Points})
	if err != nil {
		return nil, fmt.Errorf("timeline: %w", err)
	}
	st := h.Stats()
	tl := &Timeline{
		Job: st.Job, Status: st.Status, Start: h.Start(), End: h.End(),
		Attempts: h.Attempts(), Epochs: h.Epochs(), Exposure: points, Stats: st,
	}
	if g := h.State().Graph(); g != nil {
		for _, v := range g.Vertices {
			p, _ := h.State().Parallelism(v.ID)
			tl.Vertices = append(tl.Vertices, TimelineVertex{ID: v.ID, Operator: v.Operator, Coordinator: v.Coordinator, Parallelism: p})
		}
	}
	return tl, nil
}

// teeSource hands every event it returns to a History as well.
type teeSource struct {
	src replay.Source
	h   *replay.History
}

func (t *teeSource) Next() (format.Event, error) {
	e, err := t.src.Next()
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
