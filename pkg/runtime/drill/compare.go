package drill

import (
	"fmt"
	"sort"

	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// starts maps each subtask to the attempt it starts with: the attempt a
// plan names, or the first attempt an epoch started.
type starts map[format.SubtaskRef]int32

// predictedStarts returns what a plan says the resumed master starts:
// every rerun and run subtask with its attempt, and attempt 0 of every
// subtask of the vertices not initialized yet (they run once they are).
// The parallelism of such a vertex is the graph's, or, for an auto vertex,
// the one the resumed epoch recorded in vertex_initialized.
func predictedStarts(plan *replay.RecoveryPlan, graph *format.Graph, events []format.Event, epoch int32) starts {
	if graph == nil {
		return fullRestart(events, epoch)
	}
	out := starts{}
	for _, s := range plan.Subtasks {
		if s.Decision != replay.DecisionKeep {
			out[format.SubtaskRef{Vertex: s.Vertex, Subtask: s.Subtask}] = s.Attempt
		}
	}
	if plan.Ended != "" {
		return out // the log ends the job: no vertex is initialized later
	}
	for _, v := range plan.Vertices {
		if v.Initialized {
			continue
		}
		p := int32(0)
		if gv := graph.Vertex(v.Vertex); gv != nil {
			p = gv.Parallelism
		}
		if p == 0 {
			p = initializedIn(events, epoch, v.Vertex)
		}
		for i := int32(0); i < p; i++ {
			out[format.SubtaskRef{Vertex: v.Vertex, Subtask: i}] = 0
		}
	}
	return out
}

// fullRestart is the prediction for a log that, as read, holds no
// job_submitted (its first segment torn): nothing can be replayed, so the
// master starts the job over from the log's job.yaml, and every subtask of
// the graph that epoch records runs from attempt 0.
func fullRestart(events []format.Event, epoch int32) starts {
	out := starts{}
	var graph *format.Graph
	for _, e := range events {
		if e.Kind == format.KindJobSubmitted && e.Graph != nil {
			graph = e.Graph
			break
		}
	}
	if graph == nil {
		return out
	}
	for _, v := range graph.Vertices {
		p := v.Parallelism
		if p == 0 {
			p = initializedIn(events, epoch, v.ID)
		}
		for i := int32(0); i < p; i++ {
			out[format.SubtaskRef{Vertex: v.ID, Subtask: i}] = 0
		}
	}
	return out
}

// initializedIn returns the parallelism epoch gave vertex, 0 if it did not
// initialize it.
func initializedIn(events []format.Event, epoch int32, vertex string) int32 {
	for _, e := range events {
		if e.Epoch == epoch && e.Kind == format.KindVertexInitialized && e.Vertex == vertex {
			return e.Parallelism
		}
	}
	return 0
}

// startedIn returns the subtasks epoch wrote subtask_started for, each
// with the first attempt it started.
func startedIn(events []format.Event, epoch int32) starts {
	out := starts{}
	for _, e := range events {
		if e.Epoch != epoch || e.Kind != format.KindSubtaskStarted {
			continue
		}
		ref := format.SubtaskRef{Vertex: e.Vertex, Subtask: e.Subtask}
		if _, ok := out[ref]; !ok {
			out[ref] = e.Attempt
		}
	}
	return out
}

// compareStarts says how actual differs from predicted: subtasks started
// but not predicted (unless subset, for a recovery cut short by a crash),
// predicted but not started, and started with another attempt. It returns
// nil when they agree.
func compareStarts(order vertexOrder, predicted, actual starts, subset bool) []string {
	var extra, missing, attempts []format.SubtaskRef
	for ref, a := range actual {
		p, ok := predicted[ref]
		switch {
		case !ok:
			extra = append(extra, ref)
		case p != a:
			attempts = append(attempts, ref)
		}
	}
	if !subset {
		for ref := range predicted {
			if _, ok := actual[ref]; !ok {
				missing = append(missing, ref)
			}
		}
	}
	var out []string
	if len(extra) > 0 {
		out = append(out, "started but not predicted: "+list(order.names(extra), 6))
	}
	if len(missing) > 0 {
		out = append(out, "predicted but not started: "+list(order.names(missing), 6))
	}
	if len(attempts) > 0 {
		order.sort(attempts)
		var diffs []string
		for _, ref := range attempts {
			diffs = append(diffs, fmt.Sprintf("%s attempt %d (plan %d)", ref, actual[ref], predicted[ref]))
		}
		out = append(out, "started with another attempt than planned: "+list(diffs, 6))
	}
	return out
}

// compareResets compares the resets the plan says the recovering master
// logs (RecoveryPlan.Resets) with the subtasks_reset of reason recovery
// that epoch wrote. A recovery cut short by a crash may have written
// none yet (cut).
func compareResets(order vertexOrder, plan *replay.RecoveryPlan, events []format.Event, epoch int32, cut bool) []string {
	want := map[format.SubtaskRef]bool{}
	for _, ref := range plan.Resets() {
		want[ref] = true
	}
	got := map[format.SubtaskRef]bool{}
	logged := false
	for _, e := range events {
		if epoch != 0 && e.Epoch == epoch && e.Kind == format.KindSubtasksReset && e.Reason == format.ReasonRecovery {
			logged = true
			for _, ref := range e.Subtasks {
				got[ref] = true
			}
		}
	}
	if cut && !logged {
		return nil
	}
	var extra, missing []format.SubtaskRef
	for ref := range got {
		if !want[ref] {
			extra = append(extra, ref)
		}
	}
	for ref := range want {
		if !got[ref] {
			missing = append(missing, ref)
		}
	}
	var out []string
	if len(extra) > 0 {
		out = append(out, "recovery reset logged but not predicted: "+list(order.names(extra), 6))
	}
	if len(missing) > 0 {
		out = append(out, "recovery reset predicted but not logged: "+list(order.names(missing), 6))
	}
	return out
}

// vertexOrder sorts subtasks by the graph's vertex order, then subtask.
type vertexOrder map[string]int

func newVertexOrder(g *format.Graph) vertexOrder {
	o := vertexOrder{}
	if g != nil {
		for i, v := range g.Vertices {
			o[v.ID] = i
		}
	}
	return o
}

func (o vertexOrder) sort(refs []format.SubtaskRef) {
	sort.Slice(refs, func(i, j int) bool {
		a, b := refs[i], refs[j]
		if oa, ob := o.rank(a.Vertex), o.rank(b.Vertex); oa != ob {
			return oa < ob
		}
		if a.Vertex != b.Vertex {
			return a.Vertex < b.Vertex
		}
		return a.Subtask < b.Subtask
	})
}

// rank puts vertices the graph does not know last.
func (o vertexOrder) rank(v string) int {
	if r, ok := o[v]; ok {
		return r
	}
	return len(o)
}

func (o vertexOrder) names(refs []format.SubtaskRef) []string {
	o.sort(refs)
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = r.String()
	}
	return out
}

// list returns the subtasks of s as "vertex/subtask", in order; never nil.
func (o vertexOrder) list(s starts) []string {
	refs := make([]format.SubtaskRef, 0, len(s))
	for ref := range s {
		refs = append(refs, ref)
	}
	return o.names(refs)
}

// redone returns how many of the subtasks an epoch started had finished
// before the crash (in the finished map of the crashed log as written),
// and the sum of those finished events' bytes_out.
func redone(st *replay.State, started starts) Cost {
	var c Cost
	for _, f := range st.Finished() {
		if _, ok := started[f.SubtaskRef]; ok {
			c.Subtasks++
			c.Bytes += f.BytesOut
		}
	}
	return c
}
