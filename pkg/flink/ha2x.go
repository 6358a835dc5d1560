package flink

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"sort"
)

// build2x derives the job vertices of a 2.x StreamGraph, finishing the job
// vertices of order first (in that order), then every other one in
// creation order. It reports the ids of order that named no job vertex
// built by then.
func (h *HAInfo) build2x(order []ID) (unknown []ID) {
	a := newAdaptiveGraph(h.sg.clone())
	for _, id := range order {
		if !a.finish(id) {
			unknown = append(unknown, id)
		}
	}
	for {
		open := a.unfinished()
		if len(open) == 0 {
			break
		}
		a.finish(open[0].id)
	}
	h.Plan = &JobPlan{JobID: h.sg.jobID, Name: h.sg.jobName}
	h.Sources, h.Operators = map[string][]string{}, map[string][]string{}
	for _, v := range a.vertices {
		n := PlanNode{ID: v.id.String(), Description: v.name, Operator: v.name, Parallelism: a.sg.nodes[v.start].parallelism}
		for _, e := range a.sg.nodes[v.start].in {
			if containsID(v.sources, e.source) {
				continue
			}
			ship, pointwise := shipStrategy(e.partitioner)
			pattern := "ALL_TO_ALL"
			if pointwise {
				pattern = "POINTWISE"
			}
			prod := a.byStart[a.frozen[e.source]]
			if prod == nil {
				continue // a producer Flink never builds (a damaged graph)
			}
			n.Inputs = append(n.Inputs, PlanInput{Num: len(n.Inputs), ID: prod.id.String(), ShipStrategy: ship, Pattern: pattern})
		}
		var srcs, ops []string
		for _, id := range append(append([]int32(nil), v.sources...), v.nodes...) {
			if sn := a.sg.nodes[id]; sn.isSourceFactory() {
				srcs = append(srcs, sn.source)
				ops = append(ops, a.operatorID(id))
			}
		}
		if len(srcs) > 0 {
			h.Sources[n.ID], h.Operators[n.ID] = srcs, ops
		}
		h.Plan.Nodes = append(h.Plan.Nodes, n)
	}
	return unknown
}

// resolve2x rebuilds the 2.x plan in the order the job's log records job
// vertices finishing (apply2x).
func (h *HAInfo) resolve2x(ctx context.Context, fsys fs.FS, jobID string) {
	if jobID == "" {
		jobID = h.sg.jobID
	}
	order, seen, err := finishOrder(ctx, fsys, jobID)
	if err != nil {
		h.Assumptions = append(h.Assumptions, Assumption{Kind: AssumedVertexIDs, Text: fmt.Sprintf("JobVertexIDs derived from the StreamGraph assume job vertices finish in creation order: the job's log could not be read (%v)", err)})
		return
	}
	h.apply2x(order, seen)
}

// apply2x rebuilds the plan with the finish order and checks every
// JobVertexID the log names (seen) against it; on a mismatch the plan
// keeps names and inputs but no ids, and an assumption says so.
func (h *HAInfo) apply2x(order, seen []ID) {
	h.Assumptions = nil // kinds() below names the unknown sources again
	unknown := h.build2x(order)
	h.kinds()
	ids := map[string]bool{}
	for _, n := range h.Plan.Nodes {
		ids[n.ID] = true
	}
	var missing []string
	for _, id := range seen {
		if !ids[id.String()] {
			missing = append(missing, id.String())
		}
	}
	if len(unknown) == 0 && len(missing) == 0 {
		known := map[string]bool{}
		for _, id := range seen {
			known[id.String()] = true
		}
		later := 0
		for _, n := range h.Plan.Nodes {
			if !known[n.ID] {
				later++
			}
		}
		if later > 0 {
			h.Assumptions = append(h.Assumptions, Assumption{Kind: AssumedVertexIDs, Text: fmt.Sprintf("%d job vertices the log does not name yet have JobVertexIDs derived assuming job vertices finish in creation order from here on", later)})
		}
		return
	}
	sort.Strings(missing)
	for i := range h.Plan.Nodes {
		h.Plan.Nodes[i].ID = ""
		for j := range h.Plan.Nodes[i].Inputs {
			h.Plan.Nodes[i].Inputs[j].ID = ""
		}
	}
	h.Coordinators = map[string]string{}
	h.Assumptions = append(h.Assumptions, Assumption{Kind: AssumedVertexIDs, Text: fmt.Sprintf("the JobVertexIDs derived from the StreamGraph (%s) differ from the log's (%d unknown, e.g. %v): the HA plan gives names only, not ids", h.File, len(missing)+len(unknown), append(missing, idStrings(unknown)...)[0])})
}

func idStrings(ids []ID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.String()
	}
	return out
}

// finishOrder reads <jobID>/job-events/ and returns orderOf its events. A
// missing directory is an empty log.
func finishOrder(ctx context.Context, fsys fs.FS, jobID string) (order, seen []ID, err error) {
	sub, err := fs.Sub(fsys, jobEventsDir(jobID))
	if err != nil {
		return nil, nil, err
	}
	if _, err := fs.Stat(sub, "."); err != nil {
		return nil, nil, nil
	}
	r, err := NewReader(sub)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	var events []Event
	for {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		events = append(events, rec.Event)
	}
	order, seen = orderOf(events)
	return order, seen, nil
}

// orderOf returns the job vertices in the order they first had every
// subtask finished (a reset undoes a finish; the parallelism is the one
// their type 3 record gives), and every job vertex the events name, in
// order of appearance.
func orderOf(events []Event) (order, seen []ID) {
	par := map[ID]int32{}
	done := map[ID]map[int32]bool{}
	complete := map[ID]bool{}
	note := func(id ID) {
		if _, ok := done[id]; !ok {
			done[id] = map[int32]bool{}
			seen = append(seen, id)
		}
	}
	check := func(id ID) {
		if p := par[id]; !complete[id] && p > 0 && int32(len(done[id])) >= p {
			complete[id] = true
			order = append(order, id)
		}
	}
	for _, ev := range events {
		switch e := ev.(type) {
		case *JobVertexInitialized:
			note(e.JobVertexID)
			par[e.JobVertexID] = e.Parallelism
			check(e.JobVertexID)
		case *VertexFinished:
			v := e.AttemptID.Vertex
			note(v.JobVertexID)
			done[v.JobVertexID][v.SubtaskIndex] = true
			check(v.JobVertexID)
		case *VertexReset:
			for _, v := range e.Vertices {
				note(v.JobVertexID)
				delete(done[v.JobVertexID], v.SubtaskIndex)
			}
		}
	}
	return order, seen
}

// clone copies the graph so that a simulation, which changes parallelisms
// and partitioners as Flink does, leaves the original as read.
func (sg *streamGraph) clone() *streamGraph {
	c := *sg
	c.nodes = make(map[int32]*streamNode, len(sg.nodes))
	edges := map[*streamEdge]*streamEdge{}
	cp := func(es []*streamEdge) []*streamEdge {
		out := make([]*streamEdge, len(es))
		for i, e := range es {
			if edges[e] == nil {
				x := *e
				edges[e] = &x
			}
			out[i] = edges[e]
		}
		return out
	}
	for id, n := range sg.nodes {
		x := *n
		x.in, x.out = cp(n.in), cp(n.out)
		c.nodes[id] = &x
	}
	return &c
}
