package flink

import (
	"encoding/json"
	"fmt"
	"strings"
)

// JobPlan is the part of Flink's job plan JSON (REST GET /jobs/:jobid/plan,
// or JsonPlanGenerator's output) that a Flink log lacks: vertex names, and
// which vertex each input of a vertex comes from.
type JobPlan struct {
	JobID string     `json:"jid"`
	Name  string     `json:"name"`
	Nodes []PlanNode `json:"nodes"`
	// DataSets maps a dataset (IntermediateDataSetID, 32-hex) to the
	// JobVertexID of its producer, when the plan comes from where Flink
	// names them (the HA storage directory's JobGraph); nil for a REST
	// plan, which names producers per input only. The producer lookup
	// takes it first.
	DataSets map[string]string `json:"-"`
}

// PlanNode is one job vertex of a plan.
type PlanNode struct {
	ID          string      `json:"id"` // the 32-hex JobVertexID
	Parallelism int32       `json:"parallelism"`
	Description string      `json:"description"`
	Operator    string      `json:"operator"`
	Inputs      []PlanInput `json:"inputs"`
}

// PlanInput is one input of a plan node, in the order of the vertex's
// inputs (the order of its consumed datasets).
type PlanInput struct {
	Num          int    `json:"num"`
	ID           string `json:"id"` // the producer's JobVertexID
	ShipStrategy string `json:"ship_strategy"`
	Exchange     string `json:"exchange"`
	// DataSet is the IntermediateDataSetID read, and Pattern its
	// DistributionPattern (POINTWISE, ALL_TO_ALL), when the plan comes from
	// Flink's HA store (ReadHA); REST plans carry neither.
	DataSet string `json:"-"`
	Pattern string `json:"-"`
}

// ParsePlan reads a plan JSON as REST returns it ({"plan": {...}}) or bare
// ({"jid": ..., "nodes": [...]}).
func ParsePlan(data []byte) (*JobPlan, error) {
	var wrapped struct {
		Plan *JobPlan `json:"plan"`
	}
	if err := json.Unmarshal(data, &wrapped); err != nil {
		return nil, fmt.Errorf("flink plan: %w", err)
	}
	p := wrapped.Plan
	if p == nil {
		p = new(JobPlan)
		if err := json.Unmarshal(data, p); err != nil {
			return nil, fmt.Errorf("flink plan: %w", err)
		}
	}
	if len(p.Nodes) == 0 {
		return nil, fmt.Errorf("flink plan: no nodes (want the JSON of GET /jobs/:jobid/plan)")
	}
	for i, n := range p.Nodes {
		if !hexID32(n.ID) {
			return nil, fmt.Errorf("flink plan: node %d: id %q is not a 32-hex JobVertexID", i, n.ID)
		}
	}
	return p, nil
}

// datasetProducers returns DataSets as ids; entries that are not 32-hex
// ids are left out. Nil for no plan or a plan without datasets.
func (p *JobPlan) datasetProducers() map[ID]ID {
	if p == nil || len(p.DataSets) == 0 {
		return nil
	}
	out := make(map[ID]ID, len(p.DataSets))
	for d, prod := range p.DataSets {
		did, err1 := parseID(d)
		pid, err2 := parseID(prod)
		if err1 == nil && err2 == nil {
			out[did] = pid
		}
	}
	return out
}

// node returns the plan node of vertex id, or nil.
func (p *JobPlan) node(id string) *PlanNode {
	if p == nil {
		return nil
	}
	for i := range p.Nodes {
		if p.Nodes[i].ID == id {
			return &p.Nodes[i]
		}
	}
	return nil
}

// Name returns the vertex's name as Flink's web UI shows it: the chained
// operators of the description joined by " -> ", e.g. "Source: numbers ->
// src" for "Source: numbers<br/>+- src<br/>".
func (n *PlanNode) Name() string {
	var parts []string
	for _, p := range strings.Split(n.Description, "<br/>") {
		p = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(p), "+-"))
		if p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return n.Operator
	}
	return strings.Join(parts, " -> ")
}

// hexID32 reports whether s looks like an AbstractID as Flink prints it.
func hexID32(s string) bool {
	if len(s) != 32 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// fillDataSets fills DataSets from the inputs that name their dataset
// (the HA JobGraph's do): each dataset's producer is the vertex its
// readers name.
func (p *JobPlan) fillDataSets() {
	if p == nil {
		return
	}
	for _, n := range p.Nodes {
		for _, in := range n.Inputs {
			if in.DataSet == "" || in.ID == "" {
				continue
			}
			if p.DataSets == nil {
				p.DataSets = map[string]string{}
			}
			p.DataSets[in.DataSet] = in.ID
		}
	}
}
