package drill

import (
	"fmt"
	"slices"
	"strings"

	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// checkPlan checks a plan's decisions and reasons against the facts of
// the log it was computed from, the way a reader of the dry run would
// check them by hand. The starts of the resumed epoch show that the
// decisions were what the master did; only the log can show that the
// explanations are true. Each reason is what it says (replay.Plan's
// documentation), given the plan's own decisions:
//
//   - running_at_failover: not in the finished map;
//   - finished_after_last_snapshot: finished, batch_snapshot, and no
//     snapshot after that finish;
//   - coordinator_without_batch_snapshot: its no_batch_snapshot vertex
//     reruns whole;
//   - partition_lost: a partition of its finished attempt is not
//     available; and it is given whenever its consumer vertex is not
//     initialized or a subtask reading it does not keep, unless step 2 or
//     3 of the rule had reset the subtask already (trimmed, or its
//     no_batch_snapshot vertex reruns whole): docs/recovery.md counts
//     partitions as needed for FINISHED producers only;
//   - downstream_of_reset: finished, and a subtask it reads does not keep.
//
// In a full restart (recovery switched off in the job.yaml, or a log that
// cannot be replayed) nothing keeps, and a rerun carries the restart's
// reasons, then running_at_failover when it was not in the finished map.
//
// A rerun carries exactly the reasons that hold, in that order; keep and
// run carry none; keep names the finished attempt, run never started, and
// rerun names the attempt after the last one the log shows. It returns one
// line per disagreement.
func checkPlan(dry *dryRun) []string {
	f := newPlanFacts(dry)
	var out []string
	if st := dry.state.Status(); st != "" && !dry.opts.LogUnreadable {
		if n := dry.plan.Summary.Rerun + dry.plan.Summary.Run; n > 0 || dry.plan.Ended != st {
			out = append(out, fmt.Sprintf("the log ends the job (%s), yet the plan says ended %q and runs %d subtasks", st, dry.plan.Ended, n))
		}
	}
	for _, row := range dry.plan.Subtasks {
		if msg := f.check(row); msg != "" {
			out = append(out, fmt.Sprintf("%s/%d %s: %s", row.Vertex, row.Subtask, row.Decision, msg))
		}
	}
	return out
}

// planFacts indexes what checkPlan needs of the log and of the plan.
type planFacts struct {
	dry      *dryRun
	graph    *format.Graph
	decision map[format.SubtaskRef]replay.Decision
	par      map[string]int32 // initialized vertices
	finished map[format.SubtaskRef]replay.FinishedEntry
	last     map[format.SubtaskRef]int32 // highest attempt the log shows
	whole    map[string]bool             // vertices with no subtask kept
}

func newPlanFacts(dry *dryRun) *planFacts {
	f := &planFacts{
		dry: dry, graph: dry.state.Graph(),
		decision: map[format.SubtaskRef]replay.Decision{}, par: map[string]int32{},
		finished: map[format.SubtaskRef]replay.FinishedEntry{},
		last:     map[format.SubtaskRef]int32{}, whole: map[string]bool{},
	}
	for _, v := range dry.plan.Vertices {
		if v.Initialized {
			f.par[v.Vertex] = v.Parallelism
			f.whole[v.Vertex] = true
		}
	}
	for _, row := range dry.plan.Subtasks {
		f.decision[format.SubtaskRef{Vertex: row.Vertex, Subtask: row.Subtask}] = row.Decision
		if row.Decision == replay.DecisionKeep {
			f.whole[row.Vertex] = false
		}
	}
	for _, e := range dry.state.Finished() {
		f.finished[e.SubtaskRef] = e
	}
	for _, e := range dry.events {
		if e.Kind == format.KindSubtaskStarted || e.Kind == format.KindSubtaskFinished {
			ref := format.SubtaskRef{Vertex: e.Vertex, Subtask: e.Subtask}
			if a, ok := f.last[ref]; !ok || e.Attempt > a {
				f.last[ref] = e.Attempt
			}
		}
	}
	return f
}

// check returns what is wrong with one row, "" when nothing is.
func (f *planFacts) check(row replay.SubtaskPlan) string {
	ref := format.SubtaskRef{Vertex: row.Vertex, Subtask: row.Subtask}
	fin, inMap := f.finished[ref]
	last, started := f.last[ref]
	switch row.Decision {
	case replay.DecisionKeep:
		switch {
		case f.dry.opts != (replay.PlanOptions{}) && f.dry.plan.Ended == "":
			return "kept in a full restart"
		case !inMap:
			return "kept, but the log has no finished attempt of it"
		case row.Attempt != fin.Attempt:
			return fmt.Sprintf("keeps attempt %d, the log finished attempt %d", row.Attempt, fin.Attempt)
		case len(row.Reasons) > 0:
			return "kept with reasons " + strings.Join(row.Reasons, ", ")
		}
	case replay.DecisionRun:
		switch {
		case started || inMap:
			return fmt.Sprintf("run as never started, but the log shows attempt %d", last)
		case len(row.Reasons) > 0:
			return "run with reasons " + strings.Join(row.Reasons, ", ")
		}
	case replay.DecisionRerun:
		if !started && !inMap {
			return "rerun, but the log never started it"
		}
		if want := last + 1; f.dry.opts.LogUnreadable && row.Attempt != 0 || !f.dry.opts.LogUnreadable && row.Attempt != want {
			return fmt.Sprintf("reruns attempt %d, the log's last attempt is %d", row.Attempt, last)
		}
		if want := f.reasons(ref, fin, inMap, row.Reasons); !slices.Equal(row.Reasons, want) {
			return fmt.Sprintf("reasons [%s], the log shows [%s]", strings.Join(row.Reasons, ", "), strings.Join(want, ", "))
		}
	default:
		return fmt.Sprintf("unknown decision %q", row.Decision)
	}
	return ""
}

// reasons returns the reasons that hold for a rerun subtask, in plan
// order.
func (f *planFacts) reasons(ref format.SubtaskRef, fin replay.FinishedEntry, inMap bool, given []string) []string {
	v := f.graph.Vertex(ref.Vertex)
	coordinator := ""
	if v != nil {
		coordinator = v.Coordinator
	}
	trimmed := inMap && coordinator == format.CoordinatorBatchSnapshot && f.dry.state.SnapshotSeq() < fin.Seq
	wholeVertex := coordinator == format.CoordinatorNoBatchSnapshot && f.whole[ref.Vertex]
	var out []string
	if f.dry.opts.RecoveryDisabled {
		out = append(out, replay.ReasonRecoveryDisabled)
	}
	if f.dry.opts.LogUnreadable {
		out = append(out, replay.ReasonLogUnreadable)
	}
	if !inMap {
		out = append(out, replay.ReasonRunningAtFailover)
	}
	if len(out) > 0 && f.dry.opts != (replay.PlanOptions{}) {
		return out
	}
	if trimmed {
		out = append(out, replay.ReasonFinishedAfterLastSnapshot)
	}
	if wholeVertex {
		out = append(out, replay.ReasonCoordinatorWithoutBatchSnapshot)
	}
	if inMap && f.partitionLost(ref, fin, !trimmed && !wholeVertex, given) {
		out = append(out, replay.ReasonPartitionLost)
	}
	if inMap && f.inputRerun(ref) {
		out = append(out, replay.ReasonDownstreamOfReset)
	}
	return out
}

// partitionLost reports whether partition_lost holds for a finished
// subtask. A partition of it must be unavailable. When the subtask was
// FINISHED going into step 4 of the rule (finished), the reason holds
// exactly when such a partition is needed: its consumer vertex is not
// initialized or a subtask reading it does not keep. Otherwise the plan's
// own word (given) is taken.
func (f *planFacts) partitionLost(ref format.SubtaskRef, fin replay.FinishedEntry, finished bool, given []string) bool {
	unavailable := false
	for _, p := range fin.Partitions {
		if f.dry.avail[p.PartitionID] {
			continue
		}
		unavailable = true
		if finished && f.needed(ref, p.Consumer) {
			return true
		}
	}
	return unavailable && !finished && slices.Contains(given, replay.ReasonPartitionLost)
}

// needed reports whether the output of ref for consumer vertex c is
// needed: c is not initialized, or a subtask of c reading ref does not
// keep.
func (f *planFacts) needed(ref format.SubtaskRef, c string) bool {
	n, ok := f.par[c]
	if !ok {
		return true
	}
	for _, e := range f.edges(ref.Vertex, c) {
		lo, hi := replay.ConsumerRange(e.Pattern, ref.Subtask, f.par[ref.Vertex], n)
		for j := lo; j < hi; j++ {
			if f.decision[format.SubtaskRef{Vertex: c, Subtask: j}] != replay.DecisionKeep {
				return true
			}
		}
	}
	return false
}

// inputRerun reports whether a subtask that ref reads does not keep.
func (f *planFacts) inputRerun(ref format.SubtaskRef) bool {
	if f.graph == nil {
		return false
	}
	for _, e := range f.graph.Edges {
		if e.To != ref.Vertex {
			continue
		}
		lo, hi := replay.ProducerRange(e.Pattern, ref.Subtask, f.par[e.From], f.par[ref.Vertex])
		for j := lo; j < hi; j++ {
			if f.decision[format.SubtaskRef{Vertex: e.From, Subtask: j}] != replay.DecisionKeep {
				return true
			}
		}
	}
	return false
}

// edges returns the edges from one vertex to another.
func (f *planFacts) edges(from, to string) []format.Edge {
	var out []format.Edge
	if f.graph != nil {
		for _, e := range f.graph.Edges {
			if e.From == from && e.To == to {
				out = append(out, e)
			}
		}
	}
	return out
}
