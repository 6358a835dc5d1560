package flink

import (
	"fmt"
	"sort"
	"strings"

	"github.com/jobevent/jobevent/pkg/format"
)

// Options is the side information a Flink log does not hold. The zero
// value is valid: names are then unknown, and the kinds of coordinators and
// the producer of a dataset are derived as Open documents.
type Options struct {
	// Plan is the job's plan JSON (ParsePlan), nil when not given.
	Plan *JobPlan
	// Coordinators gives the coordinator kind (format.CoordinatorNone,
	// CoordinatorBatchSnapshot, CoordinatorNoBatchSnapshot) of vertices by
	// 32-hex id or by name.
	Coordinators map[string]string
	// Job is the job id to record. Empty means the plan's job id when a
	// plan is given (callers pass JobOfDir's answer when the directory's
	// path names the job).
	Job string
}

// jobVertex is one job vertex as the log shows it.
type jobVertex struct {
	id          ID
	parallelism int32 // from its type 3 record; 0 when not initialized
	inputs      []VertexInput
	snapshots   bool // its operator appears in coordinator snapshots
	resets      bool
}

// graphBuilder collects, over a first pass of the records, what the
// synthesized job_submitted needs.
type graphBuilder struct {
	vertices  []*jobVertex
	byID      map[ID]*jobVertex
	producers map[ID]ID // dataset -> producer, from partition bytes
}

func newGraphBuilder() *graphBuilder {
	return &graphBuilder{byID: map[ID]*jobVertex{}, producers: map[ID]ID{}}
}

func (g *graphBuilder) vertex(id ID) *jobVertex {
	v := g.byID[id]
	if v == nil {
		v = &jobVertex{id: id}
		g.byID[id] = v
		g.vertices = append(g.vertices, v)
	}
	return v
}

// add takes in one record's event.
func (g *graphBuilder) add(e Event) {
	switch e := e.(type) {
	case *JobVertexInitialized:
		v := g.vertex(e.JobVertexID)
		if v.parallelism == 0 {
			v.parallelism, v.inputs = e.Parallelism, e.Inputs
		}
	case *VertexFinished:
		g.vertex(e.AttemptID.Vertex.JobVertexID)
		for _, p := range e.IOMetrics.ResultPartitionBytes {
			g.producers[p.Partition.DataSetID] = e.AttemptID.Vertex.JobVertexID
		}
		for _, c := range e.CoordinatorSnapshots {
			// A chain's head operator has the vertex's id.
			if v := g.byID[c.OperatorID]; v != nil {
				v.snapshots = true
			}
		}
	case *VertexReset:
		for _, ev := range e.Vertices {
			g.vertex(ev.JobVertexID).resets = true
		}
	}
}

// graph resolves what was collected into a job graph, with the plan's
// vertices that the log never names, and returns the assumptions it made.
func (g *graphBuilder) graph(opts Options) (*format.Graph, map[string]string, []string, error) {
	var notes []string
	for _, n := range planNodes(opts.Plan) {
		id, err := parseID(n.ID)
		if err != nil {
			return nil, nil, nil, err
		}
		g.vertex(id)
	}
	names := map[string]string{}
	out := &format.Graph{}
	var assumed []string
	for _, v := range g.vertices {
		id := v.id.String()
		fv := format.Vertex{ID: id, Parallelism: v.parallelism, MaxParallelism: v.parallelism}
		if n := opts.Plan.node(id); n != nil {
			names[id] = n.Name()
			fv.Operator = names[id]
			if fv.Parallelism == 0 {
				fv.MaxParallelism = max(n.Parallelism, 1)
			}
		}
		kind, given := coordinatorOf(opts.Coordinators, id, names[id])
		if !given {
			kind = format.CoordinatorNone
			if v.snapshots {
				kind = format.CoordinatorBatchSnapshot
			}
			assumed = append(assumed, fmt.Sprintf("%s %s", vertexLabel(id, names[id]), kind))
		}
		fv.Coordinator = kind
		out.Vertices = append(out.Vertices, fv)
	}
	if len(assumed) > 0 {
		notes = append(notes, "coordinator kinds assumed (the log cannot tell; give --coordinator VERTEX=KIND): "+strings.Join(assumed, ", "))
	}
	for _, v := range g.vertices {
		for k, in := range v.inputs {
			prod, how, ok := g.producer(v, k, in, opts.Plan)
			if !ok {
				notes = append(notes, fmt.Sprintf("the producer of dataset %s, read by %s, is unknown (give --flink-plan): the edge is left out", in.DataSetID, vertexLabel(v.id.String(), names[v.id.String()])))
				continue
			}
			if how != "" {
				notes = append(notes, how)
			}
			pattern, note := edgePattern(g.byID[prod].parallelism, v.parallelism, in)
			if note != "" {
				notes = append(notes, fmt.Sprintf("dataset %s: %s", in.DataSetID, note))
			}
			out.Edges = append(out.Edges, format.Edge{From: prod.String(), To: v.id.String(), Pattern: pattern})
		}
	}
	// Producers before consumers, as job_submitted lists them in Flink's
	// own order of initialization.
	return out, names, notes, nil
}

// producer finds the vertex that produces dataset in, the k-th input of
// consumer v: from the partition bytes of a finished producer, from the
// plan (the k-th input of the consumer's node), from Flink 2.x's dataset
// ids (derived from the producer's id), or, failing those, the only
// vertex that fits. how says what was assumed, "" for a fact.
func (g *graphBuilder) producer(v *jobVertex, k int, in VertexInput, plan *JobPlan) (ID, string, bool) {
	if p, ok := g.producers[in.DataSetID]; ok {
		return p, "", true
	}
	if n := plan.node(v.id.String()); n != nil && len(n.Inputs) == len(v.inputs) {
		if id, err := parseID(n.Inputs[k].ID); err == nil {
			g.vertex(id)
			return id, "", true
		}
	}
	for _, c := range g.vertices {
		if c != v && derivedDataSet(c.id, in.DataSetID) {
			return c.id, "", true
		}
	}
	parts := partitionCount(in)
	var fits []*jobVertex
	for _, c := range g.vertices {
		if c != v && c.parallelism == parts {
			fits = append(fits, c)
		}
	}
	if len(fits) == 1 && plan == nil {
		return fits[0].id, fmt.Sprintf("assumed %s produces dataset %s (the only vertex with %d subtasks; give --flink-plan to be sure)", fits[0].id, in.DataSetID, parts), true
	}
	return ID{}, "", false
}

// derivedDataSet reports whether dataset's id is derived from producer's
// as Flink 2.x derives it (lower = producer.upper + e, upper =
// producer.lower + e, e an edge's int32 hash).
func derivedDataSet(producer, dataset ID) bool {
	d1 := uint64(dataset.Lower) - uint64(producer.Upper)
	d2 := uint64(dataset.Upper) - uint64(producer.Lower)
	return d1 == d2 && int64(d1) == int64(int32(d1))
}

// partitionCount returns how many partitions (producer subtasks) the
// consumer's subtasks read from, taken together: the producer's
// parallelism.
func partitionCount(in VertexInput) int32 {
	var n int32
	for _, s := range in.Subtasks {
		for _, gr := range s.Groups {
			n = max(n, gr.Partitions.End+1)
		}
	}
	return n
}

// edgePattern tells from the ranges each consumer subtask reads whether
// an edge is all-to-all (every subtask reads every partition) or
// pointwise as jobevent wires it (Flink's EdgeManagerBuildUtil). Anything
// else is kept as all-to-all, the wider closure, with a note.
func edgePattern(m, n int32, in VertexInput) (string, string) {
	all, point := true, true
	for _, s := range in.Subtasks {
		lo, hi := int32(-1), int32(-1)
		for i, gr := range s.Groups {
			if i == 0 || gr.Partitions.Start < lo {
				lo = gr.Partitions.Start
			}
			hi = max(hi, gr.Partitions.End)
		}
		if lo != 0 || hi != m-1 {
			all = false
		}
		wlo, whi := pointwiseRange(m, n, s.SubtaskIndex)
		if lo != wlo || hi != whi {
			point = false
		}
	}
	switch {
	case m == 0 || n == 0 || all:
		// One producer or one consumer: both patterns wire alike.
		return format.PatternAllToAll, ""
	case point:
		return format.PatternPointwise, ""
	}
	return format.PatternAllToAll, "the partition ranges its consumers read are neither pointwise nor all-to-all: planned as all-to-all"
}

// pointwiseRange returns the producer subtasks [lo, hi] that consumer j of
// a pointwise edge between m producers and n consumers reads.
func pointwiseRange(m, n, j int32) (int32, int32) {
	if m >= n {
		return int32(int64(j) * int64(m) / int64(n)), int32((int64(j)+1)*int64(m)/int64(n)) - 1
	}
	// Producer i feeds consumers [ceil(i*n/m), ceil((i+1)*n/m)).
	for i := int32(0); i < m; i++ {
		lo := (int64(i)*int64(n) + int64(m) - 1) / int64(m)
		hi := ((int64(i)+1)*int64(n) + int64(m) - 1) / int64(m)
		if int64(j) >= lo && int64(j) < hi {
			return i, i
		}
	}
	return -1, -1
}

// coordinatorOf returns the kind given for vertex id (or its name).
func coordinatorOf(kinds map[string]string, id, name string) (string, bool) {
	if k, ok := kinds[id]; ok {
		return k, true
	}
	if name != "" {
		if k, ok := kinds[name]; ok {
			return k, true
		}
	}
	return "", false
}

func vertexLabel(id, name string) string {
	if name == "" {
		return id
	}
	return fmt.Sprintf("%s (%s)", id, name)
}

func planNodes(p *JobPlan) []PlanNode {
	if p == nil {
		return nil
	}
	// Sources first, then consumers after their producers: the plan's
	// own order is sinks first.
	nodes := append([]PlanNode(nil), p.Nodes...)
	depth := map[string]int{}
	var walk func(id string, seen map[string]bool) int
	walk = func(id string, seen map[string]bool) int {
		if d, ok := depth[id]; ok {
			return d
		}
		if seen[id] {
			return 0
		}
		seen[id] = true
		d := 0
		if n := p.node(id); n != nil {
			for _, in := range n.Inputs {
				d = max(d, walk(in.ID, seen)+1)
			}
		}
		depth[id] = d
		return d
	}
	for _, n := range nodes {
		walk(n.ID, map[string]bool{})
	}
	sort.SliceStable(nodes, func(a, b int) bool { return depth[nodes[a].ID] < depth[nodes[b].ID] })
	return nodes
}

// parseID reads a 32-hex AbstractID as Flink prints it.
func parseID(s string) (ID, error) {
	if !hexID32(s) {
		return ID{}, fmt.Errorf("flink: %q is not a 32-hex id", s)
	}
	var lo, hi uint64
	fmt.Sscanf(s[:16], "%x", &lo)
	fmt.Sscanf(s[16:], "%x", &hi)
	return ID{Lower: int64(lo), Upper: int64(hi)}, nil
}
