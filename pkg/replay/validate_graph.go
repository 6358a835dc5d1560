package replay

import (
	"fmt"

	"github.com/jobevent/jobevent/pkg/format"
)

// graphProblems lists what is wrong with a submitted graph: no vertex,
// empty or repeated ids, unknown coordinators or patterns, parallelisms
// out of range, edges naming unknown vertices, self-loops, repeated edges
// (the same producer, consumer and dataset: two datasets between two
// vertices are legal), a dataset of two producers, ranges that do not
// name every consumer subtask, and cycles.
func graphProblems(g *format.Graph) []string {
	if g == nil || len(g.Vertices) == 0 {
		return []string{"the graph has no vertex"}
	}
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	ids := make(map[string]bool, len(g.Vertices))
	for i, v := range g.Vertices {
		switch {
		case v.ID == "":
			add("vertex %d has no id", i)
		case ids[v.ID]:
			add("vertex id %q is repeated", v.ID)
		}
		ids[v.ID] = true
		switch v.Coordinator {
		case "", format.CoordinatorNone, format.CoordinatorBatchSnapshot, format.CoordinatorNoBatchSnapshot:
		default:
			add("vertex %q has coordinator %q, want none, batch_snapshot or no_batch_snapshot", v.ID, v.Coordinator)
		}
		switch {
		case v.Parallelism < 0 || v.MaxParallelism < 0:
			add("vertex %q has a negative parallelism", v.ID)
		case v.Parallelism == 0 && v.MaxParallelism == 0:
			add("vertex %q has auto parallelism and no max_parallelism", v.ID)
		case v.MaxParallelism > 0 && v.Parallelism > v.MaxParallelism:
			add("vertex %q has parallelism %d above its max_parallelism %d", v.ID, v.Parallelism, v.MaxParallelism)
		}
	}
	producer := make(map[string]string, len(g.Datasets)) // dataset id -> producer
	for _, d := range g.Datasets {
		switch {
		case d.ID == "":
			add("a dataset of %q has no id", d.Producer)
		case !ids[d.Producer]:
			add("dataset %s names producer %q, which is not in the graph", d.ID, d.Producer)
		case producer[d.ID] != "":
			add("dataset %s is declared twice", d.ID)
		}
		producer[d.ID] = d.Producer
	}
	type key struct{ from, to, dataset string }
	seen := make(map[key]bool, len(g.Edges))
	for _, e := range g.Edges {
		name := e.From + " -> " + e.To
		if e.Dataset != "" {
			name += " (dataset " + e.Dataset + ")"
		}
		k := key{e.From, e.To, e.Dataset}
		switch {
		case !ids[e.From] || !ids[e.To]:
			add("edge %s names a vertex that is not in the graph", name)
		case e.From == e.To:
			add("edge %s is a loop", name)
		case seen[k]:
			add("edge %s is repeated", name)
		case e.Dataset != "" && producer[e.Dataset] != "" && producer[e.Dataset] != e.From:
			add("edge %s reads a dataset that %q produces", name, producer[e.Dataset])
		}
		seen[k] = true
		if e.Dataset != "" && producer[e.Dataset] == "" {
			producer[e.Dataset] = e.From
		}
		switch e.Pattern {
		case "", format.PatternPointwise, format.PatternAllToAll:
		default:
			add("edge %s has pattern %q, want pointwise or all_to_all", name, e.Pattern)
		}
	}
	byEdge := make(map[int32][]format.Range)
	for _, r := range g.Ranges {
		if r.Edge < 0 || int(r.Edge) >= len(g.Edges) {
			add("a range names edge %d; the graph has %d", r.Edge, len(g.Edges))
			continue
		}
		byEdge[r.Edge] = append(byEdge[r.Edge], r)
	}
	for i, e := range g.Edges {
		if msg := rangesProblem(byEdge[int32(i)]); msg != "" {
			add("edge %s -> %s: %s", e.From, e.To, msg)
		}
	}
	if cyc := cycleVertex(newTopology(g)); cyc != "" {
		add("the graph has a cycle through vertex %q", cyc)
	}
	return out
}

// cycleVertex returns a vertex on a cycle of t, or "" when t is acyclic
// (Kahn's algorithm: what is never freed lies on or after a cycle).
func cycleVertex(t *topology) string {
	indeg := make([]int, len(t.ids))
	for _, e := range t.edges {
		indeg[e.to]++
	}
	var free []int32
	for v, d := range indeg {
		if d == 0 {
			free = append(free, int32(v))
		}
	}
	for len(free) > 0 {
		v := free[len(free)-1]
		free = free[:len(free)-1]
		for _, ei := range t.out[v] {
			to := t.edges[ei].to
			if indeg[to]--; indeg[to] == 0 {
				free = append(free, to)
			}
		}
	}
	for v, d := range indeg {
		if d > 0 {
			return t.ids[v]
		}
	}
	return ""
}

// rangesProblem says what is wrong with an edge's explicit ranges, "" when
// nothing is: each names a subtask and producer subtasks First <= Last,
// none negative, and the consumer subtasks named are 0 to n-1 for some n.
func rangesProblem(rs []format.Range) string {
	if len(rs) == 0 {
		return ""
	}
	var n int32
	for _, r := range rs {
		if r.Subtask < 0 || r.First < 0 || r.Last < r.First || r.Subtask >= MaxParallelism || r.Last >= MaxParallelism {
			return fmt.Sprintf("range of subtask %d reads producer subtasks %d to %d", r.Subtask, r.First, r.Last)
		}
		n = max(n, r.Subtask+1)
	}
	named := make([]bool, n)
	for _, r := range rs {
		named[r.Subtask] = true
	}
	for j, ok := range named {
		if !ok {
			return fmt.Sprintf("no range for consumer subtask %d of %d", j, n)
		}
	}
	return ""
}
