package replay

import (
	"sort"

	"github.com/jobevent/jobevent/pkg/format"
)

// Profile selects the variant of the recovery rule that Plan applies: one
// planner, with a switch in each step where Flink's JobMaster differs from
// jobevent's (docs/recovery.md, "Two profiles").
type Profile uint8

// The profiles.
const (
	// ProfileJobevent is the rule of jobevent's runtime, the default.
	ProfileJobevent Profile = iota
	// ProfileFlink is what Flink 1.20's and 2.x's recovering JobMaster
	// does (DefaultBatchJobRecoveryHandler), for logs read from a Flink
	// job-events directory. It differs in four places:
	//   - step 2 trims, in the finished map's order, every entry after the
	//     last snapshot point, whatever its vertex's coordinator;
	//   - step 3 applies only when some finished entry survives step 2,
	//     and closes over consumers only;
	//   - step 4 tracks only the partitions it needs (a consumer vertex
	//     not initialized, or a consumer subtask not FINISHED): a
	//     partition whose consumers had all finished counts as missing for
	//     any consumer that reruns later, so its producer reruns too;
	//   - step 5 numbers attempts as Flink's new JobMaster does: a subtask
	//     it recovered as FINISHED, or cancelled for its coordinator, and
	//     then resets runs attempt 1, whatever attempt it had finished
	//     with; every other subtask runs attempt 0. Flink logs no
	//     recovery resets.
	ProfileFlink
)

// String returns "jobevent" or "flink".
func (p Profile) String() string {
	if p == ProfileFlink {
		return "flink"
	}
	return "jobevent"
}

// SetProfile sets the profile of the rule that Plan applies to s, and
// that BuildAvailability assumes for the default availability. Without
// it, the log chooses: a State whose log's masters are Flink JobMasters
// (format.IsFlinkMaster: a log read from Flink's job-events directories,
// or imported from one) takes ProfileFlink when it applies the first
// master_started; any other log ProfileJobevent.
func (s *State) SetProfile(p Profile) { s.profile, s.profileSet = p, true }

// Profile returns the profile of the rule Plan applies to s.
func (s *State) Profile() Profile { return s.profile }

// flinkTrim is step 2 in the Flink profile: the entries of the finished
// map, in map order (the position of each subtask's first finish), are
// dropped from the end while the latest finish of the entry was not a
// snapshot point.
func (p *planner) flinkTrim() (trimmed []bool) {
	var entries []int32
	for x := range p.s.sub {
		if p.flags[x]&fInMap != 0 {
			entries = append(entries, int32(x))
		}
	}
	sort.Slice(entries, func(a, b int) bool { return p.s.sub[entries[a]].pos < p.s.sub[entries[b]].pos })
	trimmed = make([]bool, len(p.s.sub))
	for k := len(entries) - 1; k >= 0 && !p.s.sub[entries[k]].finSnap; k-- {
		trimmed[entries[k]] = true
	}
	return trimmed
}

// flinkCancel marks, when some finished entry survived step 2, the
// subtasks that Flink's recovery cancels before it resets them: those not
// FINISHED of every initialized vertex with a coordinator. They run their
// next attempt (1), not a fresh one.
func (p *planner) flinkCancel() {
	if p.kept == 0 {
		return
	}
	for v := range p.t.ids {
		vs := &p.s.vs[v]
		if vs.parallelism == 0 || !hasCoordinator(p.t.conf[v].Coordinator) {
			continue
		}
		for x := vs.base; x < vs.base+vs.parallelism; x++ {
			if p.flags[x]&fFinished == 0 {
				p.flags[x] |= fCanceled
			}
		}
	}
}

// flinkPartitions is step 4 in the Flink profile. The resets of step 3
// first close over their consumers only; then a partition of a FINISHED
// producer is tracked if it is needed (its consumer vertex is not
// initialized, or a consumer subtask reading it will run) and available;
// the producers of needed partitions that are not tracked are reset, and
// that closure treats every untracked partition as missing, the optional
// ones too.
func (p *planner) flinkPartitions(avail Availability) {
	p.closeDownOnly()
	p.lookupMissing(avail)
	p.untrackOptional()
	p.seedUninitialized()
	for x, f := range p.flags {
		if f&fWill != 0 {
			p.queue = append(p.queue, int32(x))
		}
	}
	p.close()
}

// closeDownOnly runs the queue's closure over consumers and deferred
// vertices, not over producers: Flink's reset of its coordinator step.
func (p *planner) closeDownOnly() {
	for len(p.queue) > 0 {
		x := p.queue[len(p.queue)-1]
		p.queue = p.queue[:len(p.queue)-1]
		v := p.s.sub[x].vertex
		if p.deferred[v] && !p.expanded[v] {
			p.expanded[v] = true
			vs := &p.s.vs[v]
			for y := vs.base; y < vs.base+vs.parallelism; y++ {
				p.mark(y)
			}
		}
		i := x - p.s.vs[v].base
		for _, ei := range p.t.out[v] {
			p.closeDown(ei, i)
		}
	}
	clear(p.downDone)
}

// untrackOptional marks as missing every partition of a FINISHED producer
// whose dataset's consumer vertices are all initialized and whose consumer
// subtasks reading it, over every edge of the dataset, are all FINISHED
// and not reset: Flink neither tracks nor releases such a partition
// (DefaultBatchJobRecoveryHandler: neither RESERVE nor RELEASE).
func (p *planner) untrackOptional() {
	for v, dss := range p.t.outDS {
		vs := &p.s.vs[v]
		row := len(dss)
		for k, d := range dss {
			if p.s.uninitializedConsumer(d) {
				continue // reserved: a consumer vertex will be initialized
			}
			for i := int32(0); i < vs.parallelism; i++ {
				x := vs.base + i
				if p.flags[x]&fFinished != 0 && !p.consumerWill(d, i, p.anyWill) {
					p.miss[p.missOff[v]+int(i)*row+k] = true
				}
			}
		}
	}
}

// consumerWill reports whether a consumer subtask that reads partition i
// of dataset d, over any edge of it, will run: whether will holds for
// some span of consumer subtasks (dense indices [lo, hi)) reading it.
func (p *planner) consumerWill(d, i int32, will func(lo, hi int32) bool) bool {
	m := p.s.vs[p.t.datasets[d].producer].parallelism
	var buf [1]span
	for _, ei := range p.t.datasets[d].edges {
		e := &p.t.edges[ei]
		cv := &p.s.vs[e.to]
		for _, sp := range e.consumerSpans(i, m, cv.parallelism, &buf) {
			if will(cv.base+sp[0], cv.base+sp[1]) {
				return true
			}
		}
	}
	return false
}

// anyWill reports whether a subtask in the dense range [lo, hi) will run.
func (p *planner) anyWill(lo, hi int32) bool {
	for y := lo; y < hi; y++ {
		if p.flags[y]&fWill != 0 {
			return true
		}
	}
	return false
}

// flinkAttempt returns the attempt Flink's new JobMaster deploys for
// subtask x, which will run. Its ExecutionVertices start with attempt
// counter 0 and create attempt 0 at once; Execution.recoverExecution swaps
// the recorded attempt id into a FINISHED one without advancing the
// counter. So a subtask it recovered as FINISHED, or cancelled for its
// coordinator, and then resets runs attempt 1, whatever attempt it had
// finished with; every other subtask runs attempt 0.
func (p *planner) flinkAttempt(x int32) int32 {
	if p.flags[x]&(fFinished|fCanceled) != 0 {
		return 1
	}
	return 0
}

// releasedByFlink reports whether Flink's partition release strategy had
// released partition i of dataset d, written by a subtask FINISHED in the
// log: every consumer subtask reading it, over every edge of the dataset,
// is in the finished map (before any trimming), so the old JobMaster
// released it (jobmanager.partition.release-during-job-execution;
// IntermediateResultPartition.canBeReleased: every ConsumedPartitionGroup
// holding it is fully consumed).
func (s *State) releasedByFlink(i, d int32) bool {
	if s.uninitializedConsumer(d) {
		return false
	}
	ds := &s.topo.datasets[d]
	m := s.vs[ds.producer].parallelism
	var buf [1]span
	for _, ei := range ds.edges {
		e := &s.topo.edges[ei]
		cv := &s.vs[e.to]
		for _, sp := range e.consumerSpans(i, m, cv.parallelism, &buf) {
			for y := cv.base + sp[0]; y < cv.base+sp[1]; y++ {
				if s.sub[y].finSeq == 0 {
					return false
				}
			}
		}
	}
	return true
}

func hasCoordinator(kind string) bool {
	return kind == format.CoordinatorBatchSnapshot || kind == format.CoordinatorNoBatchSnapshot
}
