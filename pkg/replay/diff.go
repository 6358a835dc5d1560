package replay

import (
	"fmt"
	"reflect"

	"github.com/jobevent/jobevent/pkg/format"
)

// Difference is one thing that differs between two logs: Path names it
// (`vertex map parallelism`, `subtask map/3 attempt`, `job status`), A and
// B are its values in each (null where it is absent). For event diffs,
// SeqA and SeqB locate the events.
type Difference struct {
	Path string `json:"path"`
	A    any    `json:"a"`
	B    any    `json:"b"`
	SeqA int64  `json:"seq_a,omitempty"`
	SeqB int64  `json:"seq_b,omitempty"`
}

// DiffResult is the result of Diff or DiffEvents.
type DiffResult struct {
	Differences []Difference `json:"differences"`
}

// Equal reports whether no difference was found.
func (r *DiffResult) Equal() bool { return len(r.Differences) == 0 }

// Diff compares the replayed state of two logs semantically: the job id,
// the graph (vertices, their operator, coordinator and configured
// parallelism; edges and their pattern), the parallelism of each vertex,
// each subtask's final decision and attempt (the plan with every recorded
// partition available), each finished entry's partitions, records and
// bytes, and the job's final status. Seqs, times, epochs and workers are
// not compared: two runs of the same job on different machines, or with a
// failover, are equal when they reach the same state.
func Diff(a, b *State) *DiffResult {
	d := &differ{res: &DiffResult{Differences: []Difference{}}}
	d.cmp("job id", a.job, b.job)
	d.graph(a.graph, b.graph)
	d.parallelism(a, b)
	d.plans(Plan(a, AllRecorded(a)), Plan(b, AllRecorded(b)))
	d.finished(a, b)
	d.cmp("job status", a.status, b.status)
	return d.res
}

type differ struct{ res *DiffResult }

// cmp records a difference when a and b differ; nil stands for absent.
func (d *differ) cmp(path string, a, b any) {
	if !reflect.DeepEqual(a, b) {
		d.res.Differences = append(d.res.Differences, Difference{Path: path, A: a, B: b})
	}
}

// union returns the keys of a, then those only in b, in their order.
func union(a, b []string) []string {
	seen := make(map[string]bool, len(a))
	out := append([]string(nil), a...)
	for _, k := range a {
		seen[k] = true
	}
	for _, k := range b {
		if !seen[k] {
			out = append(out, k)
		}
	}
	return out
}

func (d *differ) graph(a, b *format.Graph) {
	va, vb := verticesByID(a), verticesByID(b)
	for _, id := range union(vertexIDs(a), vertexIDs(b)) {
		x, okA := va[id]
		y, okB := vb[id]
		if !okA || !okB {
			d.cmp("vertex "+id, present(okA, x.Operator), present(okB, y.Operator))
			continue
		}
		d.cmp("vertex "+id+" operator", x.Operator, y.Operator)
		d.cmp("vertex "+id+" coordinator", coordinatorName(x.Coordinator), coordinatorName(y.Coordinator))
		d.cmp("vertex "+id+" configured parallelism", x.Parallelism, y.Parallelism)
		d.cmp("vertex "+id+" max_parallelism", x.MaxParallelism, y.MaxParallelism)
	}
	ea, eb := edgesByName(a), edgesByName(b)
	for _, name := range union(edgeNames(a), edgeNames(b)) {
		x, okA := ea[name]
		y, okB := eb[name]
		d.cmp("edge "+name, present(okA, patternName(x)), present(okB, patternName(y)))
	}
}

// present returns v, or nil when absent.
func present(ok bool, v any) any {
	if !ok {
		return nil
	}
	return v
}

func patternName(p string) string {
	if p == "" {
		return format.PatternAllToAll
	}
	return p
}

func vertexIDs(g *format.Graph) []string {
	var ids []string
	if g != nil {
		for _, v := range g.Vertices {
			ids = append(ids, v.ID)
		}
	}
	return ids
}

func verticesByID(g *format.Graph) map[string]format.Vertex {
	m := make(map[string]format.Vertex)
	if g != nil {
		for _, v := range g.Vertices {
			if _, dup := m[v.ID]; !dup {
				m[v.ID] = v
			}
		}
	}
	return m
}

func edgeNames(g *format.Graph) []string {
	var names []string
	if g != nil {
		for _, e := range g.Edges {
			names = append(names, edgeName(e))
		}
	}
	return names
}

func edgesByName(g *format.Graph) map[string]string {
	m := make(map[string]string)
	if g != nil {
		for _, e := range g.Edges {
			m[edgeName(e)] = e.Pattern
		}
	}
	return m
}

// edgeName names an edge in a diff: "from->to", and its dataset in
// brackets when the graph names one (two datasets may join two vertices).
func edgeName(e format.Edge) string {
	if e.Dataset != "" {
		return e.From + "->" + e.To + "[" + e.Dataset + "]"
	}
	return e.From + "->" + e.To
}

func (d *differ) parallelism(a, b *State) {
	for _, id := range union(a.topo.ids, b.topo.ids) {
		pa, okA := a.Parallelism(id)
		pb, okB := b.Parallelism(id)
		d.cmp("vertex "+id+" parallelism", present(okA, pa), present(okB, pb))
	}
}

func (d *differ) plans(a, b *RecoveryPlan) {
	type key struct {
		v string
		i int32
	}
	rb := make(map[key]SubtaskPlan, len(b.Subtasks))
	for _, r := range b.Subtasks {
		rb[key{r.Vertex, r.Subtask}] = r
	}
	seen := make(map[key]bool, len(a.Subtasks))
	pair := func(x, y *SubtaskPlan, name string) {
		var da, db, aa, ab any
		if x != nil {
			da, aa = string(x.Decision), x.Attempt
		}
		if y != nil {
			db, ab = string(y.Decision), y.Attempt
		}
		d.cmp("subtask "+name+" decision", da, db)
		d.cmp("subtask "+name+" attempt", aa, ab)
	}
	for k := range a.Subtasks {
		x := &a.Subtasks[k]
		kk := key{x.Vertex, x.Subtask}
		seen[kk] = true
		if y, ok := rb[kk]; ok {
			pair(x, &y, refName(kk.v, kk.i))
		} else {
			pair(x, nil, refName(kk.v, kk.i))
		}
	}
	for k := range b.Subtasks {
		y := &b.Subtasks[k]
		if !seen[key{y.Vertex, y.Subtask}] {
			pair(nil, y, refName(y.Vertex, y.Subtask))
		}
	}
}

func refName(v string, i int32) string { return fmt.Sprintf("%s/%d", v, i) }

func (d *differ) finished(a, b *State) {
	fa, fb := a.Finished(), b.Finished()
	mb := make(map[format.SubtaskRef]*FinishedEntry, len(fb))
	for k := range fb {
		mb[fb[k].SubtaskRef] = &fb[k]
	}
	seen := make(map[format.SubtaskRef]bool, len(fa))
	for k := range fa {
		x := &fa[k]
		seen[x.SubtaskRef] = true
		d.entry(x.SubtaskRef, x, mb[x.SubtaskRef])
	}
	for k := range fb {
		if y := &fb[k]; !seen[y.SubtaskRef] {
			d.entry(y.SubtaskRef, nil, y)
		}
	}
}

// entry compares the finished entries of one subtask (nil: not finished).
func (d *differ) entry(r format.SubtaskRef, x, y *FinishedEntry) {
	name := "subtask " + r.String() + " "
	field := func(f func(*FinishedEntry) any) (any, any) {
		var va, vb any
		if x != nil {
			va = f(x)
		}
		if y != nil {
			vb = f(y)
		}
		return va, vb
	}
	for _, c := range []struct {
		name string
		get  func(*FinishedEntry) any
	}{
		{"records_in", func(e *FinishedEntry) any { return e.RecordsIn }},
		{"records_out", func(e *FinishedEntry) any { return e.RecordsOut }},
		{"bytes_in", func(e *FinishedEntry) any { return e.BytesIn }},
		{"bytes_out", func(e *FinishedEntry) any { return e.BytesOut }},
		{"partitions", func(e *FinishedEntry) any { return partitionSummary(e.Partitions) }},
	} {
		va, vb := field(c.get)
		d.cmp(name+c.name, va, vb)
	}
}

// partitionSummary describes partitions by consumer, bytes and records:
// what two runs of one job share (attempts and workers may differ).
func partitionSummary(ps []PartitionLoc) []string {
	out := make([]string, len(ps))
	for k, p := range ps {
		out[k] = fmt.Sprintf("%s: %d bytes, %d records", p.Consumer, p.Bytes, p.Records)
	}
	return out
}
