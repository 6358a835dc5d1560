package flink

import (
	"fmt"
	"sort"

	"github.com/jobevent/jobevent/pkg/flink/javaser"
)

// Class names of Flink 2.x's StreamGraph, as its HA store keeps it.
const (
	classStreamGraph     = "org.apache.flink.streaming.api.graph.StreamGraph"
	classUDOHolder       = "org.apache.flink.streaming.api.graph.StreamGraph$UserDefinedObjectsHolder"
	classSerializedValue = "org.apache.flink.util.SerializedValue"
	classStreamNode      = "org.apache.flink.streaming.api.graph.StreamNode"
	classStreamEdge      = "org.apache.flink.streaming.api.graph.StreamEdge"
	classOperatorFactory = "org.apache.flink.streaming.api.operators.AbstractStreamOperatorFactory"
	classSourceFactory   = "org.apache.flink.streaming.api.operators.SourceOperatorFactory"
	classTuple2          = "org.apache.flink.api.java.tuple.Tuple2"
	classConfiguration   = "org.apache.flink.configuration.Configuration"

	partitionerPackage = "org.apache.flink.streaming.runtime.partitioner."
)

// streamGraph is what jobevent reads of a Flink 2.x StreamGraph: enough to
// rebuild the JobGraph its AdaptiveGraphManager builds.
type streamGraph struct {
	jobID, jobName string
	config         map[string]string
	nodes          map[int32]*streamNode
	sources        []int32 // sorted
	dynamic        bool
	autoParallel   bool
}

// streamNode is one StreamNode: an operator before chaining.
type streamNode struct {
	id                    int32
	name                  string
	parallelism           int32
	maxParallelism        int32
	parallelismConfigured bool
	slotSharingGroup      *string
	uid                   string
	chaining              string // ChainingStrategy: ALWAYS, HEAD, NEVER, HEAD_WITH_SOURCES
	factory               string // the operator factory's class
	source                string // the Source class of a SourceOperatorFactory
	in, out               []*streamEdge
}

// streamEdge is one StreamEdge.
type streamEdge struct {
	source, target int32
	typeNumber     int32
	partitioner    string // short class name, e.g. "ForwardPartitioner"
	exchangeMode   string
}

// decodeStreamGraph reads the StreamGraph object of a
// submittedExecutionPlan file: its fields, and the stream nodes and
// operator factories nested in SerializedValues (each its own Java stream).
func decodeStreamGraph(v javaser.Value) (*streamGraph, error) {
	g, err := asObj(v, classStreamGraph, "StreamGraph")
	if err != nil {
		return nil, err
	}
	sg := &streamGraph{nodes: map[int32]*streamNode{}}
	if sg.jobName, err = g.string("jobName"); err != nil {
		return nil, err
	}
	if jv, _, _ := g.value("jobId"); jv != nil {
		id, err := abstractID(jv, "StreamGraph.jobId")
		if err != nil {
			return nil, err
		}
		sg.jobID = id.String()
	}
	sg.dynamic, _ = fieldBool(g, "dynamic")
	sg.autoParallel, _ = fieldBool(g, "autoParallelismEnabled")
	if cv, _, err := g.value("jobConfiguration"); err == nil {
		sg.config = configuration(cv)
	}
	sv, p, err := g.value("sources")
	if err != nil {
		return nil, err
	}
	set, err := javaser.AsSet(sv)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	for _, e := range set {
		b, err := javaser.AsBoxed(e)
		i, ok := b.(int32)
		if err != nil || !ok {
			return nil, fmt.Errorf("%s: element is %s, want an Integer", p, describe(e))
		}
		sg.sources = append(sg.sources, i)
	}
	sort.Slice(sg.sources, func(i, j int) bool { return sg.sources[i] < sg.sources[j] })
	h, err := g.object("userDefinedObjectsHolder", classUDOHolder)
	if err != nil {
		return nil, err
	}
	if err := sg.readNodes(h); err != nil {
		return nil, err
	}
	if err := sg.readFactories(h); err != nil {
		return nil, err
	}
	for _, id := range sg.sources {
		if sg.nodes[id] == nil {
			return nil, fmt.Errorf("StreamGraph: source %d is no stream node", id)
		}
	}
	return sg, nil
}

// serializedValue decodes the Java stream held by a SerializedValue field.
func serializedValue(b obj, name string) (javaser.Value, error) {
	sv, err := b.object(name, classSerializedValue)
	if err != nil {
		return nil, err
	}
	return decodeSerialized(sv)
}

// decodeSerialized decodes the Java stream a SerializedValue holds.
func decodeSerialized(sv obj) (javaser.Value, error) {
	data, p, err := sv.value("serializedData")
	if err != nil {
		return nil, err
	}
	arr, ok := data.(*javaser.Array)
	if !ok {
		return nil, fmt.Errorf("%s is %s, want a byte[]", p, describe(data))
	}
	raw, ok := arr.Data.([]byte)
	if !ok {
		return nil, fmt.Errorf("%s is %s, want a byte[]", p, describe(data))
	}
	v, err := javaser.DecodeObject(raw, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return v, nil
}

func (sg *streamGraph) readNodes(h obj) error {
	v, err := serializedValue(h, "serializedStreamNodes")
	if err != nil {
		return err
	}
	entries, err := javaser.AsMap(v)
	if err != nil {
		return fmt.Errorf("StreamGraph stream nodes: %w", err)
	}
	edges := map[*javaser.Object]*streamEdge{}
	for _, e := range entries {
		n, err := asObj(e.Value, classStreamNode, "StreamNode")
		if err != nil {
			return err
		}
		sn, err := readNode(n, edges)
		if err != nil {
			return err
		}
		if sg.nodes[sn.id] != nil {
			return fmt.Errorf("StreamGraph: stream node %d twice", sn.id)
		}
		sg.nodes[sn.id] = sn
	}
	for _, n := range sg.nodes {
		for _, e := range append(append([]*streamEdge(nil), n.in...), n.out...) {
			if sg.nodes[e.source] == nil || sg.nodes[e.target] == nil {
				return fmt.Errorf("StreamGraph: edge %d -> %d names a missing node", e.source, e.target)
			}
		}
	}
	return nil
}

func readNode(n obj, edges map[*javaser.Object]*streamEdge) (*streamNode, error) {
	sn := &streamNode{chaining: "ALWAYS"}
	var err error
	if sn.id, err = n.int32("id"); err != nil {
		return nil, err
	}
	if sn.parallelism, err = n.int32("parallelism"); err != nil {
		return nil, err
	}
	if sn.maxParallelism, err = n.int32("maxParallelism"); err != nil {
		return nil, err
	}
	sn.parallelismConfigured, _ = fieldBool(n, "parallelismConfigured")
	if sn.name, err = n.string("operatorName"); err != nil {
		return nil, err
	}
	if v, _, err := n.value("slotSharingGroup"); err == nil && v != nil {
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("StreamNode %d: slotSharingGroup is %s", sn.id, describe(v))
		}
		sn.slotSharingGroup = &s
	}
	if sn.uid, err = n.string("transformationUID"); err != nil {
		return nil, err
	}
	for _, side := range []string{"inEdges", "outEdges"} {
		list, p, err := n.list(side)
		if err != nil {
			return nil, err
		}
		for _, ev := range list {
			e, err := readEdge(ev, p.String(), edges)
			if err != nil {
				return nil, err
			}
			if side == "inEdges" {
				sn.in = append(sn.in, e)
			} else {
				sn.out = append(sn.out, e)
			}
		}
	}
	return sn, nil
}

func readEdge(v javaser.Value, path string, edges map[*javaser.Object]*streamEdge) (*streamEdge, error) {
	e, err := asObj(v, classStreamEdge, path)
	if err != nil {
		return nil, err
	}
	if se := edges[e.o]; se != nil {
		return se, nil
	}
	se := &streamEdge{}
	if se.source, err = e.int32("sourceId"); err != nil {
		return nil, err
	}
	if se.target, err = e.int32("targetId"); err != nil {
		return nil, err
	}
	if se.typeNumber, err = e.int32("typeNumber"); err != nil {
		return nil, err
	}
	pv, p, err := e.value("outputPartitioner")
	if err != nil {
		return nil, err
	}
	po, ok := pv.(*javaser.Object)
	if !ok {
		return nil, fmt.Errorf("%s is %s, want a partitioner", p, describe(pv))
	}
	se.partitioner = shortName(po.Class.Name)
	if mv, _, _ := e.value("exchangeMode"); mv != nil {
		if en, ok := mv.(*javaser.Enum); ok {
			se.exchangeMode = en.Name
		}
	}
	edges[e.o] = se
	return se, nil
}

// readFactories reads each stream node's operator factory: its class,
// chaining strategy and, for a FLIP-27 source, the Source class.
func (sg *streamGraph) readFactories(h obj) error {
	list, p, err := h.list("streamNodeToSerializedOperatorFactories")
	if err != nil {
		return err
	}
	for _, tv := range list {
		t, err := asObj(tv, classTuple2, p.String())
		if err != nil {
			return err
		}
		kv, _, err := t.value("f0")
		if err != nil {
			return err
		}
		b, _ := javaser.AsBoxed(kv)
		id, ok := b.(int32)
		if !ok || sg.nodes[id] == nil {
			return fmt.Errorf("%s: factory of %s, not of a stream node", p, describe(kv))
		}
		fv, err := serializedValue(t, "f1")
		if err != nil {
			return err
		}
		if err := sg.nodes[id].readFactory(fv); err != nil {
			return err
		}
	}
	return nil
}

func (n *streamNode) readFactory(v javaser.Value) error {
	o, ok := v.(*javaser.Object)
	if !ok {
		return fmt.Errorf("stream node %d: operator factory is %s", n.id, describe(v))
	}
	n.factory = o.Class.Name
	if cs, ok := o.Field("chainingStrategy"); ok {
		if en, ok := cs.(*javaser.Enum); ok {
			n.chaining = en.Name
		}
	}
	if o.ClassData(classSourceFactory) != nil {
		if s, ok := o.Field("source"); ok {
			if so, ok := s.(*javaser.Object); ok {
				n.source = so.Class.Name
			}
		}
	}
	return nil
}

func (n *streamNode) isSourceFactory() bool { return n.factory == classSourceFactory }

func fieldBool(b obj, name string) (bool, error) {
	v, p, err := b.value(name)
	if err != nil {
		return false, err
	}
	x, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("%s is %s, want a boolean", p, describe(v))
	}
	return x, nil
}

// configuration renders a Flink Configuration's entries as strings (a
// value of a class jobevent does not know is its class name).
func configuration(v javaser.Value) map[string]string {
	c, err := asObj(v, classConfiguration, "Configuration")
	if err != nil {
		return nil
	}
	entries, _, err := c.mapEntries("confData")
	if err != nil {
		return nil
	}
	out := make(map[string]string, len(entries))
	for _, e := range entries {
		k, ok := e.Key.(string)
		if !ok {
			continue
		}
		out[k] = configValue(e.Value)
	}
	return out
}

func configValue(v javaser.Value) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case *javaser.Enum:
		return x.Name
	case *javaser.Object:
		if b, err := javaser.AsBoxed(x); err == nil {
			return fmt.Sprint(b)
		}
		if l, err := javaser.AsList(x); err == nil {
			s := ""
			for i, e := range l {
				if i > 0 {
					s += ";"
				}
				s += configValue(e)
			}
			return s
		}
		return "<" + printable(x.Class.Name) + ">"
	}
	return fmt.Sprint(v)
}
