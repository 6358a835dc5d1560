package replay

import "github.com/jobevent/jobevent/pkg/format"

// MaxParallelism is the largest parallelism the fold accepts for one
// vertex. A vertex_initialized event above it is skipped (and reported by
// Validate): it guards the memory of a fold against a damaged or hostile
// log. It is 32 times Flink's own upper bound (32,768).
const MaxParallelism = 1 << 20

// MaxSubtasks is the largest number of subtasks the fold accepts for a
// whole job, for the same reason as MaxParallelism.
const MaxSubtasks = 1 << 22

// topology is the job graph of job_submitted resolved to dense indices:
// vertices by their position in the graph, edges by their position in
// edges. It never changes once built, so plans may keep a pointer to it.
type topology struct {
	ids   []string         // vertex ids in job_submitted order
	index map[string]int32 // vertex id -> position in ids
	conf  []format.Vertex  // the submitted vertex, by position
	edges []edge
	in    [][]int32 // per vertex: indices of edges into it
	out   [][]int32 // per vertex: indices of edges out of it, in graph order
}

// edge is one resolved edge of the graph.
type edge struct {
	from, to  int32
	pointwise bool
	slot      int32 // position of the edge in out[from]
}

// newTopology resolves g. Vertices with a duplicate id keep the first;
// edges naming an unknown vertex, self-loops and repeated (from, to) pairs
// are dropped (Validate reports all of them).
func newTopology(g *format.Graph) *topology {
	t := &topology{index: make(map[string]int32)}
	if g == nil {
		return t
	}
	for _, v := range g.Vertices {
		if _, dup := t.index[v.ID]; dup {
			continue
		}
		t.index[v.ID] = int32(len(t.ids))
		t.ids = append(t.ids, v.ID)
		t.conf = append(t.conf, v)
	}
	t.in = make([][]int32, len(t.ids))
	t.out = make([][]int32, len(t.ids))
	seen := make(map[[2]int32]bool)
	for _, e := range g.Edges {
		from, ok1 := t.index[e.From]
		to, ok2 := t.index[e.To]
		if !ok1 || !ok2 || from == to || seen[[2]int32{from, to}] {
			continue
		}
		seen[[2]int32{from, to}] = true
		i := int32(len(t.edges))
		t.edges = append(t.edges, edge{
			from: from, to: to,
			pointwise: e.Pattern == format.PatternPointwise,
			slot:      int32(len(t.out[from])),
		})
		t.out[from] = append(t.out[from], i)
		t.in[to] = append(t.in[to], i)
	}
	return t
}

// vertex returns the position of vertex id, or -1.
func (t *topology) vertex(id string) int32 {
	if i, ok := t.index[id]; ok {
		return i
	}
	return -1
}

// outSlot returns the position in out[from] of the edge from -> to, or -1
// when there is no such edge.
func (t *topology) outSlot(from, to int32) int32 {
	for _, ei := range t.out[from] {
		if t.edges[ei].to == to {
			return t.edges[ei].slot
		}
	}
	return -1
}

// consumers returns the range [lo, hi) of the n consumer subtasks that
// read producer subtask i of m over an edge (docs/recovery.md, Partitions).
// Pointwise with m >= n: the one consumer j with
// floor(j*m/n) <= i < floor((j+1)*m/n); with m < n:
// [ceil(i*n/m), ceil((i+1)*n/m)). All-to-all: every consumer.
func consumers(pointwise bool, i, m, n int32) (lo, hi int32) {
	if !pointwise {
		return 0, n
	}
	if m <= 0 || n <= 0 || i < 0 || i >= m {
		return 0, 0
	}
	I, M, N := int64(i), int64(m), int64(n)
	if m >= n {
		j := ((I+1)*N - 1) / M
		return int32(j), int32(j + 1)
	}
	return int32(ceilDiv(I*N, M)), int32(ceilDiv((I+1)*N, M))
}

// producers returns the range [lo, hi) of the m producer subtasks that
// consumer subtask j of n reads over an edge: the inverse of consumers.
func producers(pointwise bool, j, m, n int32) (lo, hi int32) {
	if !pointwise {
		return 0, m
	}
	if m <= 0 || n <= 0 || j < 0 || j >= n {
		return 0, 0
	}
	J, M, N := int64(j), int64(m), int64(n)
	if m >= n {
		return int32(J * M / N), int32((J + 1) * M / N)
	}
	i := J * M / N
	return int32(i), int32(i + 1)
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// ConsumerRange returns the range [lo, hi) of the n consumer subtasks that
// read producer subtask i of m over an edge with the given pattern
// (docs/recovery.md, Partitions; Flink's
// EdgeManagerBuildUtil.connectPointwise). It is empty for arguments out of
// range. Safe for concurrent use.
func ConsumerRange(pattern string, i, m, n int32) (lo, hi int32) {
	if i < 0 || i >= m || n <= 0 {
		return 0, 0
	}
	return consumers(pattern == format.PatternPointwise, i, m, n)
}

// ProducerRange returns the range [lo, hi) of the m producer subtasks that
// consumer subtask j of n reads over an edge with the given pattern. It is
// empty for arguments out of range. Safe for concurrent use.
func ProducerRange(pattern string, j, m, n int32) (lo, hi int32) {
	if j < 0 || j >= n || m <= 0 {
		return 0, 0
	}
	return producers(pattern == format.PatternPointwise, j, m, n)
}
