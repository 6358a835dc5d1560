package flink

import (
	"fmt"

	"github.com/jobevent/jobevent/pkg/flink/javaser"
)

// Class names of Flink 1.20's JobGraph, as its HA store keeps it.
const (
	classJobGraph   = "org.apache.flink.runtime.jobgraph.JobGraph"
	classJobVertex  = "org.apache.flink.runtime.jobgraph.JobVertex"
	classJobEdge    = "org.apache.flink.runtime.jobgraph.JobEdge"
	classDataSet    = "org.apache.flink.runtime.jobgraph.IntermediateDataSet"
	classCoordProvr = "org.apache.flink.runtime.source.coordinator.SourceCoordinatorProvider"
)

// decodeJobGraph reads a Flink 1.20 JobGraph: its job vertices (ids,
// names, parallelism, inputs with their datasets), the Source classes of
// their coordinator providers and the job configuration.
func decodeJobGraph(v javaser.Value) (*HAInfo, error) {
	g, err := asObj(v, classJobGraph, "JobGraph")
	if err != nil {
		return nil, err
	}
	jid, err := g.id("jobID")
	if err != nil {
		return nil, err
	}
	info := &HAInfo{Version: "1.20", Coordinators: map[string]string{}, Sources: map[string][]string{}, Operators: map[string][]string{}}
	info.Plan = &JobPlan{JobID: jid.String()}
	if info.Plan.Name, err = g.string("jobName"); err != nil {
		return nil, err
	}
	if cv, _, err := g.value("jobConfiguration"); err == nil {
		info.Config = configuration(cv)
	}
	entries, _, err := g.mapEntries("taskVertices")
	if err != nil {
		return nil, err
	}
	for i, e := range entries {
		jv, err := asObj(e.Value, classJobVertex, fmt.Sprintf("JobGraph.taskVertices[%d]", i))
		if err != nil {
			return nil, err
		}
		node, srcs, ops, err := jobVertexNode(jv)
		if err != nil {
			return nil, err
		}
		info.Plan.Nodes = append(info.Plan.Nodes, node)
		if len(srcs) > 0 {
			info.Sources[node.ID], info.Operators[node.ID] = srcs, ops
		}
	}
	return info, nil
}

// jobVertexNode returns a JobVertex's node, and the Source class and
// OperatorID of each of its coordinator providers ("" when the provider
// holds none).
func jobVertexNode(jv obj) (PlanNode, []string, []string, error) {
	id, err := jv.id("id")
	if err != nil {
		return PlanNode{}, nil, nil, err
	}
	n := PlanNode{ID: id.String()}
	if n.Parallelism, err = jv.int32("parallelism"); err != nil {
		return n, nil, nil, err
	}
	if n.Description, err = jv.string("name"); err != nil {
		return n, nil, nil, err
	}
	n.Operator = n.Description
	ins, p, err := jv.list("inputs")
	if err != nil {
		return n, nil, nil, err
	}
	for k, iv := range ins {
		e, err := asObj(iv, classJobEdge, fmt.Sprintf("%s[%d]", p, k))
		if err != nil {
			return n, nil, nil, err
		}
		in, err := jobEdgeInput(e, k)
		if err != nil {
			return n, nil, nil, err
		}
		n.Inputs = append(n.Inputs, in)
	}
	coords, p, err := jv.list("operatorCoordinators")
	if err != nil {
		return n, nil, nil, err
	}
	var srcs, ops []string
	for k, cv := range coords {
		c, err := asObj(cv, classSerializedValue, fmt.Sprintf("%s[%d]", p, k))
		if err != nil {
			return n, nil, nil, err
		}
		pv, err := decodeSerialized(c)
		if err != nil {
			return n, nil, nil, err
		}
		srcs = append(srcs, providerSource(pv))
		ops = append(ops, providerOperator(pv))
	}
	return n, srcs, ops, nil
}

func jobEdgeInput(e obj, k int) (PlanInput, error) {
	ds, err := e.object("source", classDataSet)
	if err != nil {
		return PlanInput{}, err
	}
	dsID, err := ds.id("id")
	if err != nil {
		return PlanInput{}, err
	}
	prod, err := ds.object("producer", classJobVertex)
	if err != nil {
		return PlanInput{}, err
	}
	pid, err := prod.id("id")
	if err != nil {
		return PlanInput{}, err
	}
	in := PlanInput{Num: k, ID: pid.String(), DataSet: dsID.String()}
	if in.ShipStrategy, err = e.string("shipStrategyName"); err != nil {
		return in, err
	}
	if pv, _, _ := e.value("distributionPattern"); pv != nil {
		if en, ok := pv.(*javaser.Enum); ok {
			in.Pattern = en.Name
		}
	}
	return in, nil
}

// providerSource returns the Source class an operator coordinator provider
// holds ("" for a provider that is not a SourceCoordinatorProvider, such
// as a sink's committer coordinator).
func providerSource(v javaser.Value) string {
	o, ok := v.(*javaser.Object)
	if !ok {
		return ""
	}
	if s, ok := o.Field("source"); ok {
		if so, ok := s.(*javaser.Object); ok {
			return so.Class.Name
		}
	}
	return "?" + o.Class.Name
}

// providerOperator returns the OperatorID of an operator coordinator
// provider (RecreateOnResetOperatorCoordinator.Provider.operatorID), ""
// when it has none.
func providerOperator(v javaser.Value) string {
	o, ok := v.(*javaser.Object)
	if !ok {
		return ""
	}
	id, err := obj{o: o, path: "provider"}.id("operatorID")
	if err != nil || id == (ID{}) {
		return ""
	}
	return id.String()
}
