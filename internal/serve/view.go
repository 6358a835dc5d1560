package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html/template"
	"io"

	"github.com/jobevent/jobevent/internal/answer"
	"github.com/jobevent/jobevent/internal/report"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/logsource"
	"github.com/jobevent/jobevent/pkg/replay"
)

// jobView is everything a job page shows, from one read of its log: the
// status, the timeline with its exposure curve and statistics, the plan
// of the what-if and the plan of each failover, all folded once.
type jobView struct {
	status *answer.Status
	drawn  *drawing
	// timelineErr is the error of the read; the plans are then made
	// each on its own (s.plan), the way the CLI makes them.
	timelineErr error
	whatIf      *planned // nil: not made in the read
	// atEpoch are the plans made at the master_started of each epoch
	// after the first, by the seq of the event before it.
	atEpoch map[int64]*planned
	flink   bool // a Flink log
}

// drawing is what a job page shows of a log's timeline: the chart and
// the failovers, what the cache keeps of it.
type drawing struct {
	svg       template.HTML // the timeline's SVG, "" when it cannot be drawn
	bySeq     bool
	failovers []replay.FailoverCost
	lanes     int // the lanes left out of the chart (past maxLanes); 0: none
}

// maxLanes bounds the lanes of a page's timeline: a chart of every
// attempt of a job of a million subtasks is hundreds of megabytes no
// browser shows. Past it the chart keeps the epochs and the exposure
// curve, and the page says that jobevent timeline draws the lanes.
var maxLanes = 5000

func draw(tl *report.Timeline) *drawing {
	d := &drawing{bySeq: tl.BySeq, failovers: tl.Stats.Failovers}
	if n := tl.Lanes(); n > maxLanes {
		d.lanes = n
		bare := *tl
		bare.Attempts = nil
		bare.Vertices = append([]report.TimelineVertex(nil), tl.Vertices...)
		for i := range bare.Vertices {
			bare.Vertices[i].Parallelism = 0
		}
		tl = &bare
	}
	var buf bytes.Buffer
	if err := report.WriteTimelineSVG(&buf, tl); err == nil {
		svg := buf.Bytes()
		if i := bytes.Index(svg, []byte("<svg")); i >= 0 {
			svg = svg[i:]
		}
		d.svg = template.HTML(svg) // the report's own escaped SVG
	}
	return d
}

// view reads the job's log once for its page. The what-if q is planned
// in the same read unless the cache holds it.
func (s *Server) view(ctx context.Context, j *job, d timeout, q answer.PlanQuery) (*jobView, error) {
	v := &jobView{atEpoch: map[int64]*planned{}}
	var keys func(q answer.PlanQuery) string
	fold := func(src logsource.Source) (*replay.State, error) {
		keys = func(q answer.PlanQuery) string { return planKey(ctx, j.arg, src, q, nil) }
		v.flink = src.Info().Kind == logsource.KindFlink
		wantWhatIf := true
		if p, ok := s.plans.get(keys(q)); ok {
			v.whatIf, wantWhatIf = p, false
		}
		var po replay.PlanOptions
		if st, ok := src.(logsource.WithSettings); ok {
			var err error
			if po, _, err = st.PlanOptions(ctx); err != nil {
				wantWhatIf = false // s.plan says why
			}
		}
		tee := &viewSource{src: src, po: po, v: v, q: q, wantWhatIf: wantWhatIf}
		var st *replay.State
		if d, ok := s.timelines.get(keys(answer.PlanQuery{})); ok {
			// The log has not grown since its timeline was drawn: the
			// read folds it for the status and the plans only.
			v.drawn, st = d, replay.NewState()
			tee.state = func() *replay.State { return st }
			v.timelineErr = foldAll(tee, st)
		} else {
			h := replay.NewHistory()
			st, tee.state = h.State(), h.State
			var tl *report.Timeline
			tl, v.timelineErr = report.BuildTimeline(tee, report.TimelineOptions{Points: 200,
				BySeq: logsource.EventTimes(src) == logsource.TimesNone, History: h})
			if v.timelineErr == nil {
				v.drawn = draw(tl)
				s.timelines.put(keys(answer.PlanQuery{}), v.drawn)
			}
		}
		if v.timelineErr == nil && tee.wantWhatIf && (q.At == 0 || q.At >= tee.maxSeq) {
			v.whatIf = tee.plan(q.Available)
		}
		return st, v.timelineErr
	}
	st, _, err := answer.JobStatus(ctx, j.arg, answer.StatusOptions{HeartbeatTimeout: d.d, Fold: fold,
		Open: func(arg string) (logsource.Source, error) { return s.open(ctx, j, logsource.Options{}) }})
	if err != nil {
		return nil, err
	}
	v.status = st
	if v.timelineErr != nil {
		// The status of a log that could not be read whole is the CLI's
		// own, its error line included.
		v.whatIf, v.atEpoch = nil, nil
		if v.status, err = s.status(ctx, j, d); err != nil {
			return nil, err
		}
		return v, nil
	}
	s.cacheView(v, q, keys)
	return v, nil
}

// cacheView caches the plans of the read: the what-if's and the
// failovers'.
func (s *Server) cacheView(v *jobView, q answer.PlanQuery, key func(q answer.PlanQuery) string) {
	if key == nil {
		return
	}
	for at, p := range v.atEpoch {
		s.plans.put(key(answer.PlanQuery{At: at}), p)
	}
	if v.whatIf != nil {
		s.plans.put(key(q), v.whatIf)
	}
}

// failoverPlan is the plan of the failover after seq: the one the read
// made, or s.plan's.
func (s *Server) failoverPlan(ctx context.Context, j *job, v *jobView, seq int64) (*planned, error) {
	if p := v.atEpoch[seq]; p != nil {
		return p, nil
	}
	return s.plan(ctx, j, answer.PlanQuery{At: seq}, nil)
}

// viewSource hands the events of a job page's log to BuildTimeline, and
// before an event that the fold up to some seq would not apply, makes the
// plans due there on the state of its History: the fold of every event
// so far, which is replay.Fold(src, seq) as long as every seq so far is
// at most seq and the next one is above it.
type viewSource struct {
	src        logsource.Source
	state      func() *replay.State // the fold of the events returned so far
	po         replay.PlanOptions
	v          *jobView
	q          answer.PlanQuery
	wantWhatIf bool
	maxSeq     int64
}

func (t *viewSource) Next() (format.Event, error) {
	e, err := t.src.Next()
	if err != nil || e.Seq <= t.maxSeq {
		return e, err
	}
	if t.state().Events() > 0 {
		if t.wantWhatIf && t.q.At > 0 && t.q.At >= t.maxSeq && t.q.At < e.Seq {
			t.v.whatIf, t.wantWhatIf = t.plan(t.q.Available), false
		}
		if e.Kind == format.KindMasterStarted {
			if p := t.plan(replay.AvailabilityOptions{}); p != nil {
				t.v.atEpoch[t.maxSeq] = p
			}
		}
	}
	t.maxSeq = e.Seq
	return e, nil
}

// plan is the dry run on the state so far, nil when it is an error (the
// caller's s.plan gives the error its message).
func (t *viewSource) plan(o replay.AvailabilityOptions) *planned {
	st := t.state()
	p, err := replay.PlanDryRun(st, o, t.po)
	if err != nil {
		return nil
	}
	return &planned{plan: p, names: st.Names()}
}

// foldAll applies every event of src to st, as replay.Fold does.
func foldAll(src replay.Source, st *replay.State) error {
	for {
		e, err := src.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("replay: after seq %d: %w", st.LastSeq(), err)
		}
		_ = st.Apply(&e) // skipped events are counted by the state
	}
}
