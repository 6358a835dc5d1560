package flink

import (
	"fmt"
	"slices"
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
	vertices []*jobVertex
	byID     map[ID]*jobVertex
	// sized maps a dataset to its producer, from the partition bytes of
	// finished records (which real Flink leaves out); finishedDataSets
	// lists those datasets in the order first seen.
	sized            map[ID]ID
	finishedDataSets []ID
}

func newGraphBuilder() *graphBuilder {
	return &graphBuilder{byID: map[ID]*jobVertex{}, sized: map[ID]ID{}}
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
			d := p.Partition.DataSetID
			if _, ok := g.sized[d]; !ok {
				g.finishedDataSets = append(g.finishedDataSets, d)
			}
			g.sized[d] = e.AttemptID.Vertex.JobVertexID
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
	producers, pnotes := g.producers(opts.Plan, names)
	notes = append(notes, pnotes...)
	consumed := map[ID]bool{}
	for _, v := range g.vertices {
		for _, in := range v.inputs {
			consumed[in.DataSetID] = true
			prod, ok := producers[in.DataSetID]
			if !ok {
				continue
			}
			pattern, ranges := edgeShape(g.byID[prod].parallelism, v.parallelism, in)
			for _, r := range ranges {
				r.Edge = int32(len(out.Edges))
				out.Ranges = append(out.Ranges, r)
			}
			out.Edges = append(out.Edges, format.Edge{
				From: prod.String(), To: v.id.String(), Pattern: pattern, Dataset: in.DataSetID.String(),
			})
		}
	}
	out.Edges = append(out.Edges, g.planEdges(opts.Plan)...)
	// A dataset whose producer a finish names but that no initialized
	// vertex reads has consumers not initialized yet: declared, so that
	// its partitions count as needed.
	for _, d := range g.finishedDataSets {
		if !consumed[d] {
			out.Datasets = append(out.Datasets, format.Dataset{ID: d.String(), Producer: g.sized[d].String()})
		}
	}
	// Producers before consumers, as job_submitted lists them in Flink's
	// own order of initialization.
	return out, names, notes, nil
}

// planEdges returns the edges of the plan into vertices the log has not
// initialized (they have no type 3 record, so no input infos): one per
// producer of the vertex's plan node, pointwise for Flink's FORWARD and
// RESCALE ship strategies (DistributionPattern.POINTWISE), all-to-all
// otherwise. The REST plan names no dataset, so each edge reads a dataset
// of its own; its partitions are needed while the vertex is not
// initialized, as Flink reserves them.
func (g *graphBuilder) planEdges(plan *JobPlan) []format.Edge {
	var out []format.Edge
	seen := map[[2]string]bool{}
	for _, n := range planNodes(plan) {
		id, err := parseID(n.ID)
		if err != nil {
			continue
		}
		if v := g.byID[id]; v != nil && v.parallelism > 0 {
			continue
		}
		for _, in := range n.Inputs {
			if !hexID32(in.ID) || in.ID == n.ID || seen[[2]string{in.ID, n.ID}] {
				continue
			}
			seen[[2]string{in.ID, n.ID}] = true
			pattern := format.PatternAllToAll
			switch strings.ToUpper(in.ShipStrategy) {
			case "FORWARD", "RESCALE":
				pattern = format.PatternPointwise
			}
			out = append(out, format.Edge{From: in.ID, To: n.ID, Pattern: pattern})
		}
	}
	return out
}

// producers resolves the producer of every dataset the initialized
// vertices read, by producerOf, and returns the notes of what it assumed
// or could not tell.
func (g *graphBuilder) producers(plan *JobPlan, names map[string]string) (map[ID]ID, []string) {
	known := plan.datasetProducers()
	out := map[ID]ID{}
	var notes []string
	pending := map[ID][]ID{} // dataset -> candidate producers the plan leaves
	for _, v := range g.vertices {
		for _, in := range v.inputs {
			if _, done := out[in.DataSetID]; done {
				continue
			}
			prod, cands, note := g.producerOf(v, in, plan, known)
			if prod != (ID{}) {
				out[in.DataSetID] = prod
				if note != "" {
					notes = append(notes, note)
				}
				delete(pending, in.DataSetID)
				continue
			}
			if prev, seen := pending[in.DataSetID]; seen && prev != nil {
				cands = intersect(prev, cands) // every consumer's plan names the producer
			}
			pending[in.DataSetID] = cands
		}
	}
	g.eliminate(pending, out, plan)
	for _, v := range g.vertices {
		rest := g.unaccounted(v, out, plan)
		for _, in := range v.inputs {
			cands, open := pending[in.DataSetID]
			if _, done := out[in.DataSetID]; done || !open {
				continue
			}
			label := vertexLabel(v.id.String(), names[v.id.String()])
			switch {
			case len(cands) > 0:
				// In the order of the plan's inputs, as Flink's
				// LinkedHashMap of input infos holds them for a vertex
				// of fixed parallelism.
				pick := cands[0]
				for k, r := range rest {
					if slices.Contains(cands, r) {
						pick, rest = r, slices.Delete(rest, k, k+1)
						break
					}
				}
				out[in.DataSetID] = pick
				notes = append(notes, fmt.Sprintf("assumed %s produces dataset %s, read by %s (by the order of the plan's inputs: its producers of equal parallelism cannot tell which dataset is whose)", pick, in.DataSetID, label))
			case plan != nil:
				notes = append(notes, fmt.Sprintf("the producer of dataset %s, read by %s, is none of the plan's inputs of that vertex: the edge is left out", in.DataSetID, label))
			default:
				notes = append(notes, fmt.Sprintf("the producer of dataset %s, read by %s, is unknown (give --flink-plan): the edge is left out", in.DataSetID, label))
			}
			delete(pending, in.DataSetID)
		}
	}
	return out, notes
}

// unaccounted returns the producers of consumer v's plan inputs, in plan
// order, less one for each of its datasets whose producer is decided.
func (g *graphBuilder) unaccounted(v *jobVertex, out map[ID]ID, plan *JobPlan) []ID {
	n := plan.node(v.id.String())
	if n == nil {
		return nil
	}
	var rest []ID
	for _, pi := range n.Inputs {
		if id, err := parseID(pi.ID); err == nil {
			rest = append(rest, id)
		}
	}
	for _, in := range v.inputs {
		if p, ok := out[in.DataSetID]; ok {
			if k := slices.Index(rest, p); k >= 0 {
				rest = slices.Delete(rest, k, k+1)
			}
		}
	}
	return rest
}

func intersect(a, b []ID) []ID {
	var out []ID
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// producerOf finds the vertex that produces dataset in, read by consumer
// v: from the plan's dataset -> producer map (known, from the HA
// JobGraph), from the partition bytes of a finish of the producer
// (synthetic logs: real Flink writes none), from Flink 2.x's dataset ids
// (derived from the producer's id), from the plan's inputs of v (those
// whose parallelism fits the partitions read), or, without a plan, the
// only vertex that fits. It returns the producer (zero when not decided),
// the candidates the plan leaves when it allows several, and a note of
// what it assumed.
func (g *graphBuilder) producerOf(v *jobVertex, in VertexInput, plan *JobPlan, known map[ID]ID) (ID, []ID, string) {
	if p, ok := known[in.DataSetID]; ok {
		g.vertex(p)
		return p, nil, ""
	}
	if p, ok := g.sized[in.DataSetID]; ok {
		return p, nil, ""
	}
	for _, c := range g.vertices {
		if c != v && derivedDataSet(c.id, in.DataSetID) {
			return c.id, nil, ""
		}
	}
	parts := partitionCount(in)
	if n := plan.node(v.id.String()); n != nil {
		var cands []ID
		for _, pi := range n.Inputs {
			id, err := parseID(pi.ID)
			if err != nil || slices.Contains(cands, id) {
				continue
			}
			if p := g.parallelismOf(id, plan); p == 0 || p == parts {
				cands = append(cands, id)
			}
		}
		if len(cands) == 1 {
			g.vertex(cands[0])
			return cands[0], nil, ""
		}
		return ID{}, cands, ""
	}
	var fits []*jobVertex
	for _, c := range g.vertices {
		if c != v && c.parallelism == parts {
			fits = append(fits, c)
		}
	}
	if len(fits) == 1 && plan == nil {
		return fits[0].id, nil, fmt.Sprintf("assumed %s produces dataset %s (the only vertex with %d subtasks; give --flink-plan to be sure)", fits[0].id, in.DataSetID, parts)
	}
	return ID{}, nil, ""
}

// parallelismOf returns the parallelism of vertex id, from its type 3
// record or else the plan; 0 when neither says.
func (g *graphBuilder) parallelismOf(id ID, plan *JobPlan) int32 {
	if v := g.byID[id]; v != nil && v.parallelism > 0 {
		return v.parallelism
	}
	if n := plan.node(id.String()); n != nil {
		return n.Parallelism
	}
	return 0
}

// eliminate decides pending datasets whose producer the plan leaves open:
// each plan input of a consumer is read through one of its datasets, so a
// producer that no other dataset of the consumer still needs to account
// for is struck from the candidates once its inputs are covered, and a
// dataset left with one candidate is decided.
func (g *graphBuilder) eliminate(pending map[ID][]ID, out map[ID]ID, plan *JobPlan) {
	for changed := true; changed; {
		changed = false
		for _, v := range g.vertices {
			n := plan.node(v.id.String())
			if n == nil {
				continue
			}
			need := map[ID]int{} // plan inputs by producer, not yet accounted for
			for _, pi := range n.Inputs {
				if id, err := parseID(pi.ID); err == nil {
					need[id]++
				}
			}
			for _, in := range v.inputs {
				if p, ok := out[in.DataSetID]; ok && need[p] > 0 {
					need[p]--
				}
			}
			for _, in := range v.inputs {
				cands := pending[in.DataSetID]
				if _, done := out[in.DataSetID]; done || len(cands) < 2 {
					continue
				}
				var left []ID
				for _, c := range cands {
					if need[c] > 0 {
						left = append(left, c)
					}
				}
				switch {
				case len(left) == 1:
					out[in.DataSetID] = left[0]
					need[left[0]]--
					delete(pending, in.DataSetID)
					changed = true
				case len(left) > 1 && len(left) < len(cands):
					pending[in.DataSetID] = left
					changed = true
				}
			}
		}
	}
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

// edgeShape returns the pattern of an edge between m producer and n
// consumer subtasks from the ranges each consumer subtask reads (the
// type 3 input infos): all-to-all when every subtask reads every
// partition, pointwise when they are what jobevent's pointwise wiring
// computes (Flink 1.20's EdgeManagerBuildUtil), and otherwise pointwise
// with the ranges themselves (Flink 2.x balances pointwise ranges by
// bytes, PointwiseVertexInputInfoComputer): the ranges read are the
// truth, never recomputed from a pattern.
func edgeShape(m, n int32, in VertexInput) (string, []format.Range) {
	all, point := true, true
	var ranges []format.Range
	for _, s := range in.Subtasks {
		lo, hi := int32(-1), int32(-1)
		for i, gr := range s.Groups {
			if i == 0 || gr.Partitions.Start < lo {
				lo = gr.Partitions.Start
			}
			hi = max(hi, gr.Partitions.End)
			ranges = append(ranges, format.Range{Subtask: s.SubtaskIndex, First: gr.Partitions.Start, Last: gr.Partitions.End})
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
		return format.PatternAllToAll, nil
	case point:
		return format.PatternPointwise, nil
	}
	return format.PatternPointwise, ranges
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
