package replay

import (
	"fmt"

	"github.com/jobevent/jobevent/pkg/format"
)

// graphProblems lists what is wrong with a submitted graph: no vertex,
// empty or repeated ids, unknown coordinators or patterns, parallelisms
// out of range, edges naming unknown vertices, self-loops, repeated edges
// and cycles.
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
	seen := make(map[[2]string]bool, len(g.Edges))
	for _, e := range g.Edges {
		switch {
		case !ids[e.From] || !ids[e.To]:
			add("edge %s -> %s names a vertex that is not in the graph", e.From, e.To)
		case e.From == e.To:
			add("edge %s -> %s is a loop", e.From, e.To)
		case seen[[2]string{e.From, e.To}]:
			add("edge %s -> %s is repeated", e.From, e.To)
		}
		seen[[2]string{e.From, e.To}] = true
		switch e.Pattern {
		case "", format.PatternPointwise, format.PatternAllToAll:
		default:
			add("edge %s -> %s has pattern %q, want pointwise or all_to_all", e.From, e.To, e.Pattern)
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
