package replay

// The helpers of step 5 (planner.result): the reasons of every rerun.

// reasonNames lists the reasons by bit, in plan order.
var reasonNames = [...]string{
	ReasonRecoveryDisabled,
	ReasonLogUnreadable,
	ReasonRunningAtFailover,
	ReasonFinishedAfterLastSnapshot,
	ReasonCoordinatorWithoutBatchSnapshot,
	ReasonPartitionLost,
	ReasonDownstreamOfReset,
}

// Reason bits of a planner, in the order of reasonNames.
const (
	rDisabled uint8 = 1 << iota
	rUnreadable
	rRunning
	rTrimmed
	rCoordinator
	rPartitionLost
	rDownstream
)

// reasonSets holds, by reason bits, the Reasons slice of one plan: rows
// with the same reasons share it.
type reasonSets [1 << len(reasonNames)][]string

// of returns the reasons of the bits r, in plan order; never nil.
func (sets *reasonSets) of(r uint8) []string {
	if sets[r] == nil {
		sets[r] = []string{}
		for b, name := range reasonNames {
			if r&(1<<b) != 0 {
				sets[r] = append(sets[r], name)
			}
		}
	}
	return sets[r]
}

// resetReasons returns partition_lost and downstream_of_reset for the
// FINISHED subtask x of vertex v that will run.
func (p *planner) resetReasons(x, v int32) uint8 {
	var r uint8
	vs := &p.s.vs[v]
	i := x - vs.base
	var buf [1]span
	for k, d := range p.t.outDS[v] {
		if p.missing(x, int32(k)) && (p.s.uninitializedConsumer(d) || p.consumerWill(d, i, p.willIn)) {
			r |= rPartitionLost
			break
		}
	}
	for _, ei := range p.t.in[v] {
		e := &p.t.edges[ei]
		pv := &p.s.vs[e.from]
		if pv.parallelism == 0 {
			continue
		}
		for _, sp := range e.producerSpans(i, pv.parallelism, vs.parallelism, &buf) {
			if p.willIn(pv.base+sp[0], pv.base+sp[1]) {
				r |= rDownstream
			}
		}
		if r&rDownstream != 0 {
			break
		}
	}
	return r
}

// willIn reports whether a subtask in the dense range [lo, hi) will run.
func (p *planner) willIn(lo, hi int32) bool {
	return hi > lo && p.prefix[hi]-p.prefix[lo] > 0
}
