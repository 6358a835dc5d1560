package replay

import (
	"sort"

	"github.com/jobevent/jobevent/pkg/format"
)

// submitted checks the graph of job_submitted and takes it as the job's.
func (v *validator) submitted(e *format.Event) {
	if v.events > 1 {
		return // reported by order; the first graph stays
	}
	for _, msg := range graphProblems(e.Graph) {
		v.errorf(e, RuleInvalidGraph, "%s", msg)
	}
	v.topo = newTopology(e.Graph)
	v.lastVertex.ok = false
	v.vs = make([]vVertex, len(v.topo.ids))
}

// vertexOf resolves a vertex id, reporting an unknown one.
func (v *validator) vertexOf(e *format.Event, id string) int32 {
	if i := v.vertex(id); i >= 0 {
		return i
	}
	v.errorf(e, RuleUnknownVertex, "%s names vertex %q, which is not in the graph", e.Kind, id)
	return -1
}

// subtaskOf resolves vertex/subtask to a dense index, reporting an
// unknown vertex, a vertex not initialized or a subtask out of range.
func (v *validator) subtaskOf(e *format.Event, id string, i int32) int32 {
	vi := v.vertexOf(e, id)
	if vi < 0 {
		return -1
	}
	vs := &v.vs[vi]
	switch {
	case vs.par == 0:
		v.errorf(e, RuleVertexNotInitialized, "%s of %s/%d before vertex_initialized of %q", e.Kind, id, i, id)
	case i < 0 || i >= vs.par:
		v.errorf(e, RuleSubtaskRange, "%s names subtask %s/%d; vertex %q has parallelism %d", e.Kind, id, i, id, vs.par)
	default:
		return vs.base + i
	}
	return -1
}

func (v *validator) initialized(e *format.Event) {
	vi := v.vertexOf(e, e.Vertex)
	if vi < 0 {
		return
	}
	vs, conf, p := &v.vs[vi], v.topo.conf[vi], e.Parallelism
	switch {
	case vs.par > 0:
		v.errorf(e, RuleVertexReinitialized, "vertex %q initialized again (parallelism %d at seq %d)", e.Vertex, vs.par, vs.initSeq)
		return
	case p < 1 || p > MaxParallelism || int64(len(v.sub))+int64(p) > MaxSubtasks:
		v.errorf(e, RuleParallelism, "vertex %q initialized with parallelism %d, out of range", e.Vertex, p)
		return
	case conf.Parallelism > 0 && p != conf.Parallelism:
		v.errorf(e, RuleParallelism, "vertex %q has fixed parallelism %d, initialized with %d", e.Vertex, conf.Parallelism, p)
	case conf.Parallelism == 0 && conf.MaxParallelism > 0 && p > conf.MaxParallelism:
		v.errorf(e, RuleParallelism, "vertex %q (auto) initialized with parallelism %d, above its max_parallelism %d", e.Vertex, p, conf.MaxParallelism)
	}
	vs.par, vs.base, vs.initSeq = p, int32(len(v.sub)), e.Seq
	for i := int32(0); i < p; i++ {
		v.sub = append(v.sub, vSub{lastAttempt: -1, runAttempt: -1})
	}
	v.checkRanges(e, vi)
}

// checkRanges reports the explicit ranges of the edges into and out of
// vertex vi, just initialized, that do not fit the parallelisms of their
// ends once both are initialized: the planner then wires the edge by its
// pattern.
func (v *validator) checkRanges(e *format.Event, vi int32) {
	for _, eis := range [2][]int32{v.topo.in[vi], v.topo.out[vi]} {
		for _, ei := range eis {
			ed := &v.topo.edges[ei]
			m, n := v.vs[ed.from].par, v.vs[ed.to].par
			if ed.spans == nil || m == 0 || n == 0 || ed.explicit(m, n) {
				continue
			}
			v.errorf(e, RuleParallelism, "edge %s -> %s has ranges for %d consumer subtasks reading %d producer subtasks; the vertices have parallelism %d and %d",
				v.topo.ids[ed.from], v.topo.ids[ed.to], len(ed.spans.prods), len(ed.spans.cons), m, n)
		}
	}
}

func (v *validator) started(e *format.Event) {
	x := v.subtaskOf(e, e.Vertex, e.Subtask)
	if x < 0 {
		return
	}
	st := &v.sub[x]
	switch {
	case e.Attempt < 0:
		v.errorf(e, RuleAttemptOrder, "%s/%d attempt %d: attempts start at 0", e.Vertex, e.Subtask, e.Attempt)
	case e.Attempt <= st.lastAttempt:
		v.errorf(e, RuleAttemptOrder, "%s/%d attempt %d started after attempt %d", e.Vertex, e.Subtask, e.Attempt, st.lastAttempt)
	case st.runAttempt >= 0 && st.runEpoch == e.Epoch:
		v.errorf(e, RuleAttemptOverlap, "%s/%d attempt %d started while attempt %d is running", e.Vertex, e.Subtask, e.Attempt, st.runAttempt)
	}
	if producer, ok := v.inputsFinished(v.vertex(e.Vertex), e.Subtask); !ok {
		v.errorf(e, RuleConsumerBeforeInputs, "%s/%d started before %s finished", e.Vertex, e.Subtask, producer)
	}
	st.runAttempt, st.runEpoch = e.Attempt, e.Epoch
	st.lastAttempt = max(st.lastAttempt, e.Attempt)
}

// inputsFinished reports whether every producer subtask that consumer
// subtask j of vertex c reads is in the finished map, or names one that
// is not.
func (v *validator) inputsFinished(c, j int32) (string, bool) {
	cv := &v.vs[c]
	for _, ei := range v.topo.in[c] {
		ed := &v.topo.edges[ei]
		pv := &v.vs[ed.from]
		id := v.topo.ids[ed.from]
		if pv.par == 0 {
			return "vertex " + id + " (not initialized)", false
		}
		if ed.allToAll(pv.par, cv.par) && pv.finished == pv.par {
			continue
		}
		var buf [1]span
		for _, sp := range ed.producerSpans(j, pv.par, cv.par, &buf) {
			for i := sp[0]; i < sp[1]; i++ {
				if !v.sub[pv.base+i].inMap {
					return format.SubtaskRef{Vertex: id, Subtask: i}.String(), false
				}
			}
		}
	}
	return "", true
}

// ended checks subtask_finished and subtask_failed.
func (v *validator) ended(e *format.Event) {
	x := v.subtaskOf(e, e.Vertex, e.Subtask)
	if x < 0 {
		return
	}
	st := &v.sub[x]
	finish := e.Kind == format.KindSubtaskFinished
	switch {
	case e.Attempt < 0:
		v.errorf(e, RuleAttemptOrder, "%s/%d attempt %d: attempts start at 0", e.Vertex, e.Subtask, e.Attempt)
	case st.runAttempt != e.Attempt || st.runEpoch != e.Epoch:
		v.errorf(e, RuleFinishWithoutStart, "%s of %s/%d attempt %d, which was not started in epoch %d", e.Kind, e.Vertex, e.Subtask, e.Attempt, e.Epoch)
	case finish && st.inMap:
		v.errorf(e, RuleFinishedTwice, "%s/%d finished again (attempt %d) without a subtasks_reset", e.Vertex, e.Subtask, e.Attempt)
	}
	st.runAttempt = -1
	st.lastAttempt = max(st.lastAttempt, e.Attempt)
	if !finish {
		return
	}
	vi := v.vertex(e.Vertex)
	v.checkPartitions(e, vi)
	if !st.inMap {
		st.inMap = true
		v.vs[vi].finished++
	}
}

// checkPartitions reports partitions that name no out-edge of vertex vi.
func (v *validator) checkPartitions(e *format.Event, vi int32) {
	for k, p := range e.Partitions {
		c := v.topo.vertex(p.Consumer)
		switch {
		case c < 0 || v.topo.outSlot(vi, c) < 0:
			v.errorf(e, RuleUnknownPartition, "%s/%d has a partition for %q, which is not a consumer of %q", e.Vertex, e.Subtask, p.Consumer, e.Vertex)
		case hasPartitionFor(e.Partitions[:k], p.Consumer):
			v.errorf(e, RuleUnknownPartition, "%s/%d has two partitions for %q", e.Vertex, e.Subtask, p.Consumer)
		}
	}
}

func hasPartitionFor(ps []format.Partition, consumer string) bool {
	for _, p := range ps {
		if p.Consumer == consumer {
			return true
		}
	}
	return false
}

func (v *validator) reset(e *format.Event) {
	if len(e.Subtasks) == 0 {
		v.errorf(e, RuleInvalidField, "subtasks_reset names no subtask")
	}
	for _, r := range e.Subtasks {
		x := v.subtaskOf(e, r.Vertex, r.Subtask)
		if x < 0 {
			continue
		}
		st := &v.sub[x]
		if st.inMap {
			st.inMap = false
			v.vs[v.topo.vertex(r.Vertex)].finished--
		}
		st.runAttempt = -1
	}
}

func (v *validator) snapshot(e *format.Event) {
	ids := make([]string, 0, len(e.Coordinators))
	for id := range e.Coordinators {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		vi := v.topo.vertex(id)
		switch {
		case vi < 0:
			v.errorf(e, RuleSnapshotCoordinator, "snapshot names vertex %q, which is not in the graph", id)
		case v.topo.conf[vi].Coordinator != format.CoordinatorBatchSnapshot:
			v.errorf(e, RuleSnapshotCoordinator, "snapshot names vertex %q, whose coordinator is %q, not batch_snapshot", id, coordinatorName(v.topo.conf[vi].Coordinator))
		}
	}
}

func coordinatorName(c string) string {
	if c == "" {
		return format.CoordinatorNone
	}
	return c
}

func (v *validator) jobFinished(e *format.Event) {
	switch e.Status {
	case format.StatusFinished, format.StatusFailed, format.StatusCanceled:
	default:
		v.errorf(e, RuleInvalidField, "job_finished status %q, want finished, failed or canceled", e.Status)
	}
	if v.finished == 0 {
		v.finished = e.Seq
	}
}

// vertex resolves a vertex id as topology.vertex does, remembering the
// last one: events of the same vertex come in runs, and their ids share
// the decoder's dictionary string, so most look-ups compare one pointer.
func (v *validator) vertex(id string) int32 {
	if v.lastVertex.ok && id == v.lastVertex.id {
		return v.lastVertex.index
	}
	i := v.topo.vertex(id)
	v.lastVertex.id, v.lastVertex.index, v.lastVertex.ok = id, i, true
	return i
}
