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
// edges, datasets by their position in datasets. It never changes once
// built, so plans may keep a pointer to it.
//
// A dataset is what a producer vertex writes once per subtask and one or
// more edges read (Flink's IntermediateDataSet, format.Edge.Dataset): its
// partitions are identified by (dataset, producer subtask), and a partition
// is needed while a consumer subtask of any edge reading it will run. An
// edge without a dataset id reads a dataset of its own, so in jobevent's
// jobs datasets and edges are one to one.
type topology struct {
	ids      []string         // vertex ids in job_submitted order
	index    map[string]int32 // vertex id -> position in ids
	conf     []format.Vertex  // the submitted vertex, by position
	edges    []edge
	datasets []dataset
	in       [][]int32 // per vertex: indices of edges into it
	out      [][]int32 // per vertex: indices of edges out of it, in graph order
	outDS    [][]int32 // per vertex: indices of the datasets it produces, in graph order
}

// edge is one resolved edge of the graph.
type edge struct {
	from, to  int32
	pointwise bool
	ds        int32      // the dataset it reads
	slot      int32      // position of its dataset in outDS[from]
	spans     *edgeSpans // explicit ranges (format.Graph.Ranges); nil: the pattern
}

// dataset is one resolved dataset.
type dataset struct {
	id       string // "" for the dataset of an edge without one
	producer int32
	edges    []int32 // the edges reading it, in graph order
}

// open reports whether no edge of the graph reads the dataset: its
// consumers are vertices the graph does not name yet (format.Graph.Datasets).
func (d *dataset) open() bool { return len(d.edges) == 0 }

// newTopology resolves g. Vertices with a duplicate id keep the first;
// edges naming an unknown vertex, self-loops, repeated (from, to) pairs of
// one dataset, and edges whose dataset another vertex produces are dropped
// (Validate reports all of them).
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
	t.outDS = make([][]int32, len(t.ids))
	named := make(map[string]int32) // dataset id -> index
	for _, d := range g.Datasets {
		if p, ok := t.index[d.Producer]; ok && d.ID != "" {
			if _, dup := named[d.ID]; !dup {
				named[d.ID] = t.addDataset(d.ID, p)
			}
		}
	}
	type key struct {
		from, to int32
		ds       string
	}
	seen := make(map[key]bool)
	byEdge := make(map[int32][]format.Range) // graph edge index -> its ranges
	for _, r := range g.Ranges {
		byEdge[r.Edge] = append(byEdge[r.Edge], r)
	}
	for gi, e := range g.Edges {
		from, ok1 := t.index[e.From]
		to, ok2 := t.index[e.To]
		k := key{from, to, e.Dataset}
		if !ok1 || !ok2 || from == to || seen[k] {
			continue
		}
		ds := int32(-1)
		if e.Dataset != "" {
			d, ok := named[e.Dataset]
			if !ok {
				d = t.addDataset(e.Dataset, from)
				named[e.Dataset] = d
			}
			if t.datasets[d].producer != from {
				continue
			}
			ds = d
		} else {
			ds = t.addDataset("", from)
		}
		seen[k] = true
		i := int32(len(t.edges))
		t.edges = append(t.edges, edge{
			from: from, to: to,
			pointwise: e.Pattern == format.PatternPointwise,
			ds:        ds,
			spans:     newEdgeSpans(byEdge[int32(gi)]),
		})
		t.datasets[ds].edges = append(t.datasets[ds].edges, i)
		t.out[from] = append(t.out[from], i)
		t.in[to] = append(t.in[to], i)
	}
	for _, dss := range t.outDS {
		for k, d := range dss {
			for _, ei := range t.datasets[d].edges {
				t.edges[ei].slot = int32(k)
			}
		}
	}
	return t
}

// addDataset appends a dataset of producer p and returns its index.
func (t *topology) addDataset(id string, p int32) int32 {
	d := int32(len(t.datasets))
	t.datasets = append(t.datasets, dataset{id: id, producer: p})
	t.outDS[p] = append(t.outDS[p], d)
	return d
}

// vertex returns the position of vertex id, or -1.
func (t *topology) vertex(id string) int32 {
	if i, ok := t.index[id]; ok {
		return i
	}
	return -1
}

// outSlot returns the position in outDS[from] of the dataset that the
// first edge from -> to reads, or -1 when there is no such edge: the
// partition a listed format.Partition for consumer to names.
func (t *topology) outSlot(from, to int32) int32 {
	for _, ei := range t.out[from] {
		if t.edges[ei].to == to {
			return t.edges[ei].slot
		}
	}
	return -1
}

// firstConsumer returns the vertex of the first edge reading dataset d,
// -1 for an open dataset.
func (t *topology) firstConsumer(d int32) int32 {
	if es := t.datasets[d].edges; len(es) > 0 {
		return t.edges[es[0]].to
	}
	return -1
}

// span is a range [lo, hi) of subtasks.
type span [2]int32

// edgeSpans holds an edge's explicit ranges both ways: the producer
// subtasks each consumer subtask reads, and the consumer subtasks that
// read each producer subtask, as sorted, disjoint spans.
type edgeSpans struct {
	prods [][]span // by consumer subtask
	cons  [][]span // by producer subtask
}

// newEdgeSpans indexes rs; nil for no ranges, or ranges that name a
// negative subtask or an empty range (Validate reports those).
func newEdgeSpans(rs []format.Range) *edgeSpans {
	if len(rs) == 0 {
		return nil
	}
	var n, m int32
	for _, r := range rs {
		if r.Subtask < 0 || r.First < 0 || r.Last < r.First || r.Subtask >= MaxParallelism || r.Last >= MaxParallelism {
			return nil
		}
		n, m = max(n, r.Subtask+1), max(m, r.Last+1)
	}
	reads := make([][]bool, n) // small: explicit ranges come from Flink's input infos
	for j := range reads {
		reads[j] = make([]bool, m)
	}
	for _, r := range rs {
		for i := r.First; i <= r.Last; i++ {
			reads[r.Subtask][i] = true
		}
	}
	es := &edgeSpans{prods: make([][]span, n), cons: make([][]span, m)}
	for j := int32(0); j < n; j++ {
		es.prods[j] = runs(m, func(i int32) bool { return reads[j][i] })
	}
	for i := int32(0); i < m; i++ {
		es.cons[i] = runs(n, func(j int32) bool { return reads[j][i] })
	}
	return es
}

// runs returns the maximal spans of [0, n) where in holds.
func runs(n int32, in func(int32) bool) []span {
	var out []span
	for k := int32(0); k < n; k++ {
		if !in(k) {
			continue
		}
		lo := k
		for k < n && in(k) {
			k++
		}
		out = append(out, span{lo, k})
	}
	return out
}

// explicit reports whether the edge's explicit ranges apply between m
// producer and n consumer subtasks: they name every consumer subtask and
// no producer subtask beyond m. Otherwise the pattern decides.
func (e *edge) explicit(m, n int32) bool {
	return e.spans != nil && int32(len(e.spans.prods)) == n && int32(len(e.spans.cons)) <= m
}

// allToAll reports whether every consumer subtask reads every producer
// subtask over the edge by its pattern (so that a closure may visit it
// once).
func (e *edge) allToAll(m, n int32) bool {
	return !e.pointwise && !e.explicit(m, n)
}

// consumerSpans returns the consumer subtasks of n that read producer
// subtask i of m over the edge, using buf for the pattern's one span.
func (e *edge) consumerSpans(i, m, n int32, buf *[1]span) []span {
	if e.explicit(m, n) {
		if i < 0 || i >= int32(len(e.spans.cons)) {
			return nil
		}
		return e.spans.cons[i]
	}
	lo, hi := consumers(e.pointwise, i, m, n)
	buf[0] = span{lo, hi}
	return buf[:]
}

// producerSpans returns the producer subtasks of m that consumer subtask
// j of n reads over the edge, using buf for the pattern's one span.
func (e *edge) producerSpans(j, m, n int32, buf *[1]span) []span {
	if e.explicit(m, n) {
		if j < 0 || j >= n {
			return nil
		}
		return e.spans.prods[j]
	}
	lo, hi := producers(e.pointwise, j, m, n)
	buf[0] = span{lo, hi}
	return buf[:]
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
