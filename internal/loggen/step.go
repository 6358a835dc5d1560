package loggen

import (
	"fmt"

	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

var (
	consumerRange = replay.ConsumerRange
	producerRange = replay.ProducerRange
)

// bytesPerTask is what an auto-parallelism vertex gets per subtask.
const bytesPerTask = 1 << 20

// step emits the events of one scheduling decision.
func (g *Generator) step() {
	s := &g.sim
	switch {
	case g.seq == 0:
		g.begin()
		return
	case len(g.failAt) > 0 && g.seq >= g.failAt[0]:
		g.failAt = g.failAt[1:]
		g.failover()
		return
	}
	if len(s.running) < s.capacity && (len(s.running) == 0 || g.rng.Intn(2) == 0) {
		if x := g.pickReady(); x >= 0 {
			g.start(x)
			return
		}
	}
	if len(s.running) > 0 {
		g.end(s.running[g.rng.Intn(len(s.running))])
		return
	}
	if s.allFinished() {
		g.emit(format.Event{Kind: format.KindJobFinished, Status: format.StatusFinished})
		return
	}
	// Nothing can run: only a graph the generator was given can do this.
	g.emit(format.Event{Kind: format.KindJobFinished, Status: format.StatusFailed, Error: "loggen: no subtask can run"})
}

// begin emits job_submitted, master_started and the sources'
// vertex_initialized.
func (g *Generator) begin() {
	g.epoch = 1
	g.emit(format.Event{Kind: format.KindJobSubmitted, Graph: g.graph})
	g.emit(format.Event{Kind: format.KindMasterStarted, Master: "127.0.0.1:7100"})
	g.initializeReady()
}

// initializeReady initializes every vertex whose producers are all
// finished.
func (g *Generator) initializeReady() {
	s := &g.sim
	for v := range s.verts {
		if s.canInitialize(int32(v)) {
			g.initialize(int32(v))
		}
	}
}

func (g *Generator) initialize(v int32) {
	s := &g.sim
	vx := &s.verts[v]
	p := vx.conf.Parallelism
	if p == 0 {
		var bytes int64
		for _, k := range vx.in {
			pv := &s.verts[s.edges[k].from]
			for x := pv.base; x < pv.base+pv.par; x++ {
				bytes += s.sub[x].bytesOut
			}
		}
		p = int32(min(max((bytes+bytesPerTask-1)/bytesPerTask, 1), int64(max(vx.conf.MaxParallelism, 1))))
	}
	g.emit(format.Event{Kind: format.KindVertexInitialized, Vertex: vx.conf.ID, Parallelism: p})
	s.initialize(v, p)
}

// pickReady takes a ready subtask out of the bag, or returns -1.
func (g *Generator) pickReady() int32 {
	s := &g.sim
	for len(s.ready) > 0 {
		k := g.rng.Intn(len(s.ready))
		x := s.ready[k]
		s.ready[k] = s.ready[len(s.ready)-1]
		s.ready = s.ready[:len(s.ready)-1]
		s.sub[x].inReady = false
		if s.isReady(x) {
			return x
		}
	}
	return -1
}

func (g *Generator) ref(x int32) format.SubtaskRef {
	st := &g.sim.sub[x]
	vx := &g.sim.verts[st.v]
	return format.SubtaskRef{Vertex: vx.conf.ID, Subtask: x - vx.base}
}

// start deploys the next attempt of x; it may hit partition-not-found.
func (g *Generator) start(x int32) {
	s := &g.sim
	st := &s.sub[x]
	r := g.ref(x)
	st.worker = fmt.Sprintf("w%d", 1+g.rng.Intn(g.o.Workers))
	attempt := st.next
	st.next++
	g.emit(format.Event{Kind: format.KindSubtaskStarted, Vertex: r.Vertex, Subtask: r.Subtask, Attempt: attempt, Worker: st.worker})
	s.addRunning(x)
	vx := &s.verts[st.v]
	if len(vx.in) == 0 || g.rng.Float64() >= g.o.PartitionLossRate {
		return
	}
	e := &s.edges[vx.in[g.rng.Intn(len(vx.in))]]
	pv := &s.verts[e.from]
	lo, hi := producerRange(e.pattern, r.Subtask, pv.par, vx.par)
	if hi <= lo {
		return
	}
	producer := g.ref(pv.base + lo + g.rng.Int31n(hi-lo))
	g.emit(format.Event{Kind: format.KindSubtaskFailed, Vertex: r.Vertex, Subtask: r.Subtask, Attempt: attempt,
		Worker: st.worker, Error: "partition not found: " + producer.String()})
	s.removeRunning(x)
	s.sub[x].status = pending
	g.resetAll(g.st.ExpandReset([]format.SubtaskRef{producer, r}, g.deferred), "partition_not_found")
}

// resetAll logs one subtasks_reset and applies it to the simulation.
func (g *Generator) resetAll(refs []format.SubtaskRef, reason string) {
	if len(refs) == 0 {
		return
	}
	g.emit(format.Event{Kind: format.KindSubtasksReset, Subtasks: refs, Reason: reason})
	for _, r := range refs {
		g.sim.reset(g.sim.subtask(r))
	}
}

// end finishes or fails the running attempt of x.
func (g *Generator) end(x int32) {
	s := &g.sim
	st := &s.sub[x]
	r := g.ref(x)
	attempt := st.next - 1
	s.removeRunning(x)
	if g.rng.Float64() < g.o.FailureRate {
		st.status = pending
		g.emit(format.Event{Kind: format.KindSubtaskFailed, Vertex: r.Vertex, Subtask: r.Subtask, Attempt: attempt,
			Worker: st.worker, Error: "task failed: injected by loggen"})
		g.resetAll([]format.SubtaskRef{r}, "failure")
		return
	}
	g.emit(g.finishEvent(x, r, attempt))
	s.setFinished(x)
	vx := &s.verts[st.v]
	if vx.conf.Coordinator == format.CoordinatorBatchSnapshot {
		s.snaps++
		if s.snaps >= g.o.SnapshotEvery || vx.finished == vx.par {
			g.snapshot()
		}
	}
	if vx.finished == vx.par {
		for _, k := range vx.out {
			if c := s.edges[k].to; s.canInitialize(c) {
				g.initialize(c)
			}
		}
	}
	if s.allFinished() {
		g.emit(format.Event{Kind: format.KindJobFinished, Status: format.StatusFinished})
	}
}

// finishEvent builds the subtask_finished of x, with its partitions.
func (g *Generator) finishEvent(x int32, r format.SubtaskRef, attempt int32) format.Event {
	s := &g.sim
	st := &s.sub[x]
	vx := &s.verts[st.v]
	records := 100 + g.rng.Int63n(10000)
	bytes := records * (20 + g.rng.Int63n(180))
	e := format.Event{Kind: format.KindSubtaskFinished, Vertex: r.Vertex, Subtask: r.Subtask, Attempt: attempt,
		Worker: st.worker, RecordsIn: records, BytesIn: bytes}
	if len(vx.in) == 0 {
		e.RecordsIn, e.BytesIn = 0, 0
	}
	if len(vx.out) > 0 {
		e.RecordsOut, e.BytesOut = records, bytes
	}
	st.bytesOut = e.BytesOut
	if len(vx.out) == 1 && g.rng.Intn(5) == 0 {
		return e // absent partitions: one per out-edge, on the worker
	}
	e.Partitions = make([]format.Partition, 0, len(vx.out))
	for k, ei := range vx.out {
		share := bytes / int64(len(vx.out))
		recs := records / int64(len(vx.out))
		if k == 0 {
			share += bytes % int64(len(vx.out))
			recs += records % int64(len(vx.out))
		}
		e.Partitions = append(e.Partitions, format.Partition{Consumer: s.verts[s.edges[ei].to].conf.ID, Bytes: share, Records: recs})
	}
	return e
}

// snapshot logs the state of every initialized batch_snapshot coordinator.
func (g *Generator) snapshot() {
	s := &g.sim
	s.snaps = 0
	coords := make(map[string][]byte)
	for _, vx := range s.verts {
		if vx.par > 0 && vx.conf.Coordinator == format.CoordinatorBatchSnapshot {
			coords[vx.conf.ID] = fmt.Appendf(nil, `{"finished":%d,"of":%d}`, vx.finished, vx.par)
		}
	}
	g.emit(format.Event{Kind: format.KindSnapshot, Coordinators: coords})
}
