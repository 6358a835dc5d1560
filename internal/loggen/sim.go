package loggen

import (
	"github.com/jobevent/jobevent/pkg/format"
)

// Subtask status in the simulation.
const (
	pending uint8 = iota
	running
	finished
)

// sim is the scheduler's view of the job: what runs, what may start.
type sim struct {
	verts    []simVertex
	edges    []simEdge
	index    map[string]int32
	sub      []simSub
	ready    []int32 // bag of subtasks that may be ready (checked when picked)
	running  []int32 // bag of running subtasks
	capacity int
	snaps    int // finishes of batch_snapshot vertices since the last snapshot
}

type simVertex struct {
	conf     format.Vertex
	par      int32 // 0 while not initialized
	base     int32
	finished int32
	in, out  []int32 // edge indices
}

type simEdge struct {
	from, to int32
	pattern  string
}

type simSub struct {
	v        int32
	status   uint8
	next     int32 // attempt number of the next start
	worker   string
	inReady  bool
	runPos   int32 // position in running while running
	bytesOut int64
}

func (s *sim) init(g *format.Graph, o Options) {
	s.index = make(map[string]int32)
	for _, v := range g.Vertices {
		s.index[v.ID] = int32(len(s.verts))
		s.verts = append(s.verts, simVertex{conf: v})
	}
	for _, e := range g.Edges {
		from, to := s.index[e.From], s.index[e.To]
		k := int32(len(s.edges))
		s.edges = append(s.edges, simEdge{from: from, to: to, pattern: e.Pattern})
		s.verts[from].out = append(s.verts[from].out, k)
		s.verts[to].in = append(s.verts[to].in, k)
	}
	s.capacity = o.Workers * o.Slots
}

// initialize allocates the subtasks of vertex v with parallelism p.
func (s *sim) initialize(v, p int32) {
	vx := &s.verts[v]
	vx.par, vx.base, vx.finished = p, int32(len(s.sub)), 0
	for i := int32(0); i < p; i++ {
		s.sub = append(s.sub, simSub{v: v})
		s.pushReady(vx.base + i)
	}
}

// canInitialize reports whether v is not initialized and every producer of
// it is fully finished.
func (s *sim) canInitialize(v int32) bool {
	if s.verts[v].par != 0 {
		return false
	}
	for _, k := range s.verts[v].in {
		p := &s.verts[s.edges[k].from]
		if p.par == 0 || p.finished < p.par {
			return false
		}
	}
	return true
}

func (s *sim) pushReady(x int32) {
	if st := &s.sub[x]; !st.inReady && st.status == pending {
		st.inReady = true
		s.ready = append(s.ready, x)
	}
}

// isReady reports whether x is pending and every producer subtask it reads
// is finished.
func (s *sim) isReady(x int32) bool {
	st := &s.sub[x]
	if st.status != pending {
		return false
	}
	vx := &s.verts[st.v]
	j := x - vx.base
	for _, k := range vx.in {
		e := &s.edges[k]
		p := &s.verts[e.from]
		if p.par == 0 {
			return false
		}
		if e.pattern != format.PatternPointwise {
			if p.finished < p.par {
				return false
			}
			continue
		}
		lo, hi := producerRange(e.pattern, j, p.par, vx.par)
		for i := lo; i < hi; i++ {
			if s.sub[p.base+i].status != finished {
				return false
			}
		}
	}
	return true
}

func (s *sim) addRunning(x int32) {
	s.sub[x].status = running
	s.sub[x].runPos = int32(len(s.running))
	s.running = append(s.running, x)
}

func (s *sim) removeRunning(x int32) {
	k := s.sub[x].runPos
	last := s.running[len(s.running)-1]
	s.running[k] = last
	s.sub[last].runPos = k
	s.running = s.running[:len(s.running)-1]
}

// setFinished marks x finished and queues the consumers it completes.
func (s *sim) setFinished(x int32) {
	st := &s.sub[x]
	st.status = finished
	vx := &s.verts[st.v]
	vx.finished++
	for _, k := range vx.out {
		e := &s.edges[k]
		c := &s.verts[e.to]
		if c.par == 0 {
			continue
		}
		if e.pattern != format.PatternPointwise {
			if vx.finished == vx.par {
				for y := c.base; y < c.base+c.par; y++ {
					s.pushReady(y)
				}
			}
			continue
		}
		lo, hi := consumerRange(e.pattern, x-vx.base, vx.par, c.par)
		for y := c.base + lo; y < c.base+hi; y++ {
			s.pushReady(y)
		}
	}
}

// reset makes x pending again.
func (s *sim) reset(x int32) {
	st := &s.sub[x]
	switch st.status {
	case running:
		s.removeRunning(x)
	case finished:
		s.verts[st.v].finished--
	}
	st.status = pending
	s.pushReady(x)
}

// allFinished reports whether every vertex is initialized and finished.
func (s *sim) allFinished() bool {
	for i := range s.verts {
		if v := &s.verts[i]; v.par == 0 || v.finished < v.par {
			return false
		}
	}
	return true
}

func (s *sim) subtask(r format.SubtaskRef) int32 {
	return s.verts[s.index[r.Vertex]].base + r.Subtask
}
