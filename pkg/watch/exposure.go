package watch

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/logsource"
	"github.com/jobevent/jobevent/pkg/replay"
)

// exposure is what the last plan of a log said, and what watch follows
// across a failover.
type exposure struct {
	planned  bool
	archived int64 // the last seq archived (Flink) or read (jobevent logs)
	lastSeq  int64
	epoch    int32
	summary  replay.Summary
	bytes    int64
	decision map[format.SubtaskRef]replay.Decision
	// predicted is the plan just before the last failover; failEpoch its
	// epoch, ranAgain the subtasks finished in it, unpredicted those of
	// them it kept.
	predicted        map[format.SubtaskRef]replay.Decision
	failEpoch        int32
	ranAgain         int
	unpredicted      int
	graphs           []string // Flink ExecutionGraphIDs seen by the Tail
	lastGrowth       time.Time
	failovers        int
	countedFailovers int
}

// noteGraph records a JobMaster incarnation's graph id.
func (x *exposure) noteGraph(g string) {
	if n := len(x.graphs); n == 0 || x.graphs[n-1] != g {
		x.graphs = append(x.graphs, g)
	}
}

// tee passes a log's events to the fold, and hands those past a seq to
// keep.
type tee struct {
	src   logsource.Source
	after int64
	keep  func(e format.Event)
}

func (t *tee) Next() (format.Event, error) {
	e, err := t.src.Next()
	if err == nil && e.Seq > t.after {
		t.keep(e)
	}
	return e, err
}

// plan reads the LOG at url as replay --dry-run does (logsource.Open, the
// log's own settings, replay.Fold, replay.PlanDryRun with no what-if) and
// returns the state, the plan and the events after seq after.
func plan(ctx context.Context, url string, after int64) (*replay.State, *replay.RecoveryPlan, []format.Event, error) {
	src, err := logsource.Open(ctx, url, logsource.Options{})
	if err != nil {
		return nil, nil, nil, err
	}
	defer src.Close()
	var po replay.PlanOptions
	if s, ok := src.(logsource.WithSettings); ok {
		if po, _, err = s.PlanOptions(ctx); err != nil {
			return nil, nil, nil, err
		}
	}
	var fresh []format.Event
	st, err := replay.Fold(&tee{src: src, after: after, keep: func(e format.Event) { fresh = append(fresh, e) }}, 0)
	src.Notices()
	if err != nil && err != io.EOF {
		return nil, nil, nil, err
	}
	p, err := replay.PlanDryRun(st, replay.AvailabilityOptions{}, po)
	if err != nil {
		return nil, nil, nil, err
	}
	return st, p, fresh, nil
}

// update takes in a new plan of the log, and reports a failover (a newer
// epoch than the last plan's) with what the plan before it predicted, and
// then what ran again against that prediction.
func (w *Watcher) update(key string, x *exposure, st *replay.State, p *replay.RecoveryPlan, fresh []format.Event) {
	bytesOut := map[format.SubtaskRef]int64{}
	for _, f := range st.Finished() {
		bytesOut[f.SubtaskRef] = f.BytesOut
	}
	decision := make(map[format.SubtaskRef]replay.Decision, len(p.Subtasks))
	var exp int64
	for _, s := range p.Subtasks {
		ref := format.SubtaskRef{Vertex: s.Vertex, Subtask: s.Subtask}
		decision[ref] = s.Decision
		if s.Decision == replay.DecisionRerun {
			exp += bytesOut[ref]
		}
	}
	if x.planned && p.Epoch > x.epoch {
		x.predicted, x.failEpoch, x.ranAgain, x.unpredicted = x.decision, p.Epoch, 0, 0
		w.logf("job %s: JobMaster failover (epoch %d -> %d%s): the plan before it predicted keep %d, rerun %d, run %d (%d bytes to redo)",
			key, x.epoch, p.Epoch, graphNote(x.graphs), x.summary.Keep, x.summary.Rerun, x.summary.Run, x.bytes)
		x.failovers++
	}
	if x.failEpoch > 0 {
		before := x.ranAgain
		for _, e := range fresh {
			if e.Epoch != x.failEpoch || e.Kind != format.KindSubtaskFinished {
				continue
			}
			x.ranAgain++
			if x.predicted[format.SubtaskRef{Vertex: e.Vertex, Subtask: e.Subtask}] == replay.DecisionKeep {
				x.unpredicted++
			}
		}
		if x.ranAgain != before {
			w.logf("job %s: after the failover %d subtasks ran again (predicted to rerun or run: %d; predicted kept: %d)",
				key, x.ranAgain, x.ranAgain-x.unpredicted, x.unpredicted)
		}
	}
	x.planned, x.lastSeq, x.epoch, x.summary, x.bytes, x.decision = true, p.LastSeq, p.Epoch, p.Summary, exp, decision
}

func graphNote(graphs []string) string {
	if len(graphs) == 0 {
		return ""
	}
	return fmt.Sprintf(", new JobMaster %s", graphs[len(graphs)-1])
}

// archiveEvents writes the events of j's copied files that the archive
// does not hold yet, each with the time now (observed), and plans.
func (w *Watcher) archiveEvents(ctx context.Context, j *flinkJob) error {
	st, p, fresh, err := plan(ctx, j.arch.URL(), j.exp.archived)
	if err != nil {
		return err
	}
	if len(fresh) > 0 {
		if err := w.checkClaim(ctx); err != nil {
			return err
		}
		now := w.opts.Now().UTC()
		for i := range fresh {
			fresh[i].Time = now
		}
		for start := 0; start < len(fresh); {
			end := start + 1
			for end < len(fresh) && fresh[end].Epoch == fresh[start].Epoch {
				end++
			}
			if _, err := j.arch.Log().WriteSegment(ctx, fresh[start:end]); err != nil {
				return err
			}
			j.exp.archived = fresh[end-1].Seq
			start = end
		}
		j.exp.lastGrowth = now
	}
	if j.exp.lastGrowth.IsZero() {
		j.exp.lastGrowth = w.opts.Now()
	}
	w.update(j.key, &j.exp, st, p, fresh)
	return nil
}
