package replay

import "github.com/jobevent/jobevent/pkg/format"

// Plan decides, from the state of a log and the set avail of partitions
// that survived (A), what a recovering master does with every subtask of
// every initialized vertex: keep it, rerun it, or run it. The recovering
// master and `jobevent replay --dry-run` both call Plan; the dry run is
// not an estimate of recovery, it is recovery without the side effects.
//
// The rule (DESIGN.md §5, Flink 1.20's batch job recovery):
//
//  1. Replay. The finished map holds, per subtask, its last finished
//     attempt; subtasks_reset removes entries. Parallelism comes from
//     vertex_initialized and is never recomputed.
//  2. Trim. A finished entry of a vertex whose coordinator is
//     batch_snapshot is kept only if a snapshot event follows its latest
//     subtask_finished (the restored split assignment must not predate a
//     kept finish). Every other entry is kept. Kept entries are FINISHED;
//     every other subtask will run.
//  3. Coordinators. batch_snapshot: only its unfinished subtasks run
//     (restored from the last snapshot). no_batch_snapshot and fully
//     finished: nothing now, but the vertex is deferred: the first later
//     reset of any of its subtasks resets all of them, once.
//     no_batch_snapshot and not fully finished: all its subtasks rerun.
//  4. Partitions. A partition of a FINISHED producer is needed when its
//     consumer vertex is not initialized or a consumer subtask that reads
//     it will run; otherwise it is optional and ignored. A needed
//     partition not in A is missing: its producer is reset. An available
//     partition is reused even when all its consumers had finished.
//
// Every reset closes, to a fixed point, over the FINISHED consumers of
// what reruns (pointwise edges: only the consumer subtasks that read that
// producer), over the producers of any partition a rerunning subtask reads
// that is not available, and over deferred vertices. A subtask that will
// run for any reason is treated as reset here (a subtask that was running
// at the failover cannot have finished consumers in a well-formed log, so
// this only matters for logs Validate rejects). The result is the least
// set closed under these rules, so it does not depend on the order in
// which they are applied.
//
// Result: keep (FINISHED; the kept attempt), rerun (the next attempt, last
// attempt + 1) or run (never started; attempt 0). A rerun carries every
// reason that holds in the final plan, in this order:
// running_at_failover (not in the finished map at the failover),
// finished_after_last_snapshot (trimmed by step 2),
// coordinator_without_batch_snapshot (its no_batch_snapshot vertex reruns
// whole), partition_lost (one of its output partitions is not available,
// and its consumer vertex is not initialized or a subtask reading it
// reruns), downstream_of_reset (it finished and a subtask it reads
// reruns).
//
// Plan only reads s. Its cost is linear in the subtasks and edges of the
// job, plus one lookup in avail per partition of a FINISHED subtask.
func Plan(s *State, avail Availability) *RecoveryPlan {
	p := newPlanner(s)
	p.classify()
	p.lookupMissing(avail)
	p.coordinators()
	p.seedUninitialized()
	p.close()
	p.explain()
	return p.result()
}

// Per-subtask flags of a planner.
const (
	fInMap    uint8 = 1 << iota // in the finished map at the failover
	fTrimmed                    // removed by step 2
	fFinished                   // FINISHED after step 2
	fWill                       // will run (rerun or run)
	fStarted                    // some attempt had started or finished
)

// planner holds the dense working arrays of one Plan call.
type planner struct {
	s       *State
	t       *topology
	flags   []uint8 // per subtask
	reasons []uint8 // per subtask
	miss    []bool  // per subtask and out-edge slot: recorded, not available
	missOff []int   // per vertex: offset of its subtasks in miss

	deferred, expanded, resetAll []bool // per vertex
	downDone, upDone             []bool // per all-to-all edge: closure done
	queue                        []int32
	prefix                       []int32 // prefix counts of fWill
	kept                         int     // FINISHED subtasks not marked: an upper bound of keeps
}

func newPlanner(s *State) *planner {
	nv, n := len(s.topo.ids), len(s.sub)
	return &planner{
		s: s, t: s.topo,
		flags: make([]uint8, n), reasons: make([]uint8, n),
		missOff:  make([]int, nv),
		deferred: make([]bool, nv), expanded: make([]bool, nv), resetAll: make([]bool, nv),
		downDone: make([]bool, len(s.topo.edges)), upDone: make([]bool, len(s.topo.edges)),
	}
}

// classify applies steps 1 and 2: which subtasks are FINISHED.
func (p *planner) classify() {
	for x := range p.s.sub {
		st := &p.s.sub[x]
		var f uint8
		if st.lastAttempt >= 0 {
			f |= fStarted
		}
		if st.finSeq > 0 {
			f |= fInMap
			if p.t.conf[st.vertex].Coordinator == format.CoordinatorBatchSnapshot && p.s.snapshotSeq <= st.finSeq {
				f |= fTrimmed
			} else {
				f |= fFinished
			}
		}
		if f&fFinished == 0 {
			f |= fWill
			p.queue = append(p.queue, int32(x))
		} else {
			p.kept++
		}
		p.flags[x] = f
	}
}

// lookupMissing marks, for every FINISHED subtask, the recorded partitions
// that are not in avail.
func (p *planner) lookupMissing(avail Availability) {
	total := 0
	for v := range p.t.ids {
		p.missOff[v] = total
		total += int(p.s.vs[v].parallelism) * len(p.t.out[v])
	}
	p.miss = make([]bool, total)
	for x := range p.s.sub {
		if p.flags[x]&fFinished != 0 {
			p.lookupSubtask(int32(x), avail)
		}
	}
}

func (p *planner) lookupSubtask(x int32, avail Availability) {
	st := &p.s.sub[x]
	v := st.vertex
	i := x - p.s.vs[v].base
	outs := p.t.out[v]
	row := p.miss[p.missOff[v]+int(i)*len(outs):]
	id := PartitionID{Vertex: p.t.ids[v], Subtask: i, Attempt: st.finAttempt}
	if st.parts == nil {
		for k, ei := range outs {
			id.Consumer = p.t.ids[p.t.edges[ei].to]
			row[k] = !avail[id]
		}
		return
	}
	for _, pr := range st.parts {
		id.Consumer = p.t.ids[pr.consumer]
		if k := p.t.outSlot(v, pr.consumer); k >= 0 {
			row[k] = !avail[id]
		}
	}
}

// missing reports whether FINISHED subtask x has a recorded partition for
// the consumer of its out-edge slot k that is not available.
func (p *planner) missing(x, k int32) bool {
	v := p.s.sub[x].vertex
	i := x - p.s.vs[v].base
	return p.miss[p.missOff[v]+int(i)*len(p.t.out[v])+int(k)]
}

// coordinators applies step 3.
func (p *planner) coordinators() {
	for v := range p.t.ids {
		vs := &p.s.vs[v]
		if vs.parallelism == 0 || p.t.conf[v].Coordinator != format.CoordinatorNoBatchSnapshot {
			continue
		}
		if vs.finished == vs.parallelism {
			p.deferred[v] = true
			continue
		}
		p.resetAll[v] = true
		for x := vs.base; x < vs.base+vs.parallelism; x++ {
			p.mark(x)
		}
	}
}

// seedUninitialized resets the producers of missing partitions whose
// consumer vertex is not initialized: such partitions are always needed.
func (p *planner) seedUninitialized() {
	for _, e := range p.t.edges {
		if p.s.vs[e.to].parallelism != 0 {
			continue
		}
		pv := &p.s.vs[e.from]
		for x := pv.base; x < pv.base+pv.parallelism; x++ {
			if p.flags[x]&fFinished != 0 && p.missing(x, e.slot) {
				p.mark(x)
			}
		}
	}
}

// mark records that x will run and queues it for the closure.
func (p *planner) mark(x int32) {
	if p.flags[x]&fWill == 0 {
		p.flags[x] |= fWill
		p.queue = append(p.queue, x)
	}
}

// close runs the closure to its fixed point.
func (p *planner) close() {
	for len(p.queue) > 0 {
		x := p.queue[len(p.queue)-1]
		p.queue = p.queue[:len(p.queue)-1]
		v := p.s.sub[x].vertex
		i := x - p.s.vs[v].base
		if p.deferred[v] && !p.expanded[v] {
			p.expanded[v] = true
			vs := &p.s.vs[v]
			for y := vs.base; y < vs.base+vs.parallelism; y++ {
				p.mark(y)
			}
		}
		for _, ei := range p.t.out[v] {
			p.closeDown(ei, i)
		}
		for _, ei := range p.t.in[v] {
			p.closeUp(ei, i)
		}
	}
}

// closeDown marks the consumers that read producer subtask i over edge ei.
func (p *planner) closeDown(ei int32, i int32) {
	e := &p.t.edges[ei]
	cv := &p.s.vs[e.to]
	if cv.parallelism == 0 {
		return
	}
	if !e.pointwise {
		if p.downDone[ei] {
			return
		}
		p.downDone[ei] = true
	}
	lo, hi := consumers(e.pointwise, i, p.s.vs[e.from].parallelism, cv.parallelism)
	for y := cv.base + lo; y < cv.base+hi; y++ {
		p.mark(y)
	}
}

// closeUp marks the FINISHED producers, read by consumer subtask j over
// edge ei, whose partition for it is missing.
func (p *planner) closeUp(ei int32, j int32) {
	e := &p.t.edges[ei]
	pv := &p.s.vs[e.from]
	if pv.parallelism == 0 {
		return
	}
	if !e.pointwise {
		if p.upDone[ei] {
			return
		}
		p.upDone[ei] = true
	}
	lo, hi := producers(e.pointwise, j, pv.parallelism, p.s.vs[e.to].parallelism)
	for x := pv.base + lo; x < pv.base+hi; x++ {
		if p.flags[x]&fFinished != 0 && p.missing(x, e.slot) {
			p.mark(x)
		}
	}
}

// explain computes the reasons of every rerun from the final plan.
func (p *planner) explain() {
	p.prefix = make([]int32, len(p.flags)+1)
	for x, f := range p.flags {
		p.prefix[x+1] = p.prefix[x]
		if f&fWill != 0 {
			p.prefix[x+1]++
		}
	}
	for x, f := range p.flags {
		if f&fWill == 0 || f&fStarted == 0 {
			continue
		}
		v := p.s.sub[x].vertex
		var r uint8
		switch {
		case f&fInMap == 0:
			r |= rRunning
		case f&fTrimmed != 0:
			r |= rTrimmed
		}
		if p.resetAll[v] || p.expanded[v] {
			r |= rCoordinator
		}
		if f&fFinished != 0 {
			r |= p.resetReasons(int32(x), v)
		}
		p.reasons[x] = r
	}
}

// resetReasons returns partition_lost and downstream_of_reset for the
// FINISHED subtask x of vertex v that will run.
func (p *planner) resetReasons(x, v int32) uint8 {
	var r uint8
	vs := &p.s.vs[v]
	i := x - vs.base
	for k, ei := range p.t.out[v] {
		e := &p.t.edges[ei]
		if !p.missing(x, int32(k)) {
			continue
		}
		cv := &p.s.vs[e.to]
		lo, hi := consumers(e.pointwise, i, vs.parallelism, cv.parallelism)
		if cv.parallelism == 0 || p.willIn(cv.base+lo, cv.base+hi) {
			r |= rPartitionLost
			break
		}
	}
	for _, ei := range p.t.in[v] {
		e := &p.t.edges[ei]
		pv := &p.s.vs[e.from]
		lo, hi := producers(e.pointwise, i, pv.parallelism, vs.parallelism)
		if pv.parallelism > 0 && p.willIn(pv.base+lo, pv.base+hi) {
			r |= rDownstream
			break
		}
	}
	return r
}

// willIn reports whether a subtask in the dense range [lo, hi) will run.
func (p *planner) willIn(lo, hi int32) bool {
	return hi > lo && p.prefix[hi]-p.prefix[lo] > 0
}
