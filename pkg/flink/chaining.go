package flink

import (
	"sort"
	"strings"
)

// This file ports how Flink 2.x turns a submitted StreamGraph into job
// vertices: AdaptiveGraphManager (the JobGraph is built progressively, a
// job vertex once every job vertex it reads from has finished) with the
// chaining rules of StreamingJobGraphGenerator (isChainable,
// isChainableSource, areOperatorsChainable) and the hash of
// StreamGraphHasherV2 (hasher.go), as of Flink 2.3.0. The hash of a node
// depends on how many nodes were hashed before it, so the ids depend on
// the order in which job vertices finished: the order the job-events log
// records.

// jobVertexSim is one job vertex the simulation built.
type jobVertexSim struct {
	start   int32
	id      ID
	name    string
	nodes   []int32 // the chained stream nodes, head first
	outs    []*streamEdge
	sources []int32 // chained sources (HEAD_WITH_SOURCES)
}

// adaptiveGraph is the state of a simulated AdaptiveGraphManager.
type adaptiveGraph struct {
	sg           *streamGraph
	chainingOn   bool
	diffMaxPar   bool
	hashes       map[int32][16]byte
	frozen       map[int32]int32 // stream node -> start node of its job vertex
	pending      map[int32][]int32
	vertices     []*jobVertexSim
	byStart      map[int32]*jobVertexSim
	finished     map[int32]bool // by start node
	chainedNames map[int32]string
}

func newAdaptiveGraph(sg *streamGraph) *adaptiveGraph {
	a := &adaptiveGraph{
		sg:           sg,
		chainingOn:   sg.config["pipeline.operator-chaining.enabled"] != "false",
		diffMaxPar:   sg.config["pipeline.operator-chaining.chain-operators-with-different-max-parallelism"] != "false",
		hashes:       map[int32][16]byte{},
		frozen:       map[int32]int32{},
		pending:      map[int32][]int32{},
		byStart:      map[int32]*jobVertexSim{},
		finished:     map[int32]bool{},
		chainedNames: map[int32]string{},
	}
	if sg.dynamic {
		a.setParallelismsForDynamicGraph()
	}
	var srcs []*streamNode
	for _, id := range sg.sources {
		srcs = append(srcs, sg.nodes[id])
	}
	a.create(srcs)
	return a
}

// finish is onJobVertexFinished for the job vertex with id; it reports
// whether that vertex exists.
func (a *adaptiveGraph) finish(id ID) bool {
	for _, v := range a.vertices {
		if v.id == id && !a.finished[v.start] {
			a.finished[v.start] = true
			var next []*streamNode
			for _, e := range v.outs {
				next = append(next, a.sg.nodes[e.target])
			}
			a.create(next)
			return true
		}
	}
	return false
}

// unfinished returns the job vertices built and not yet finished, in
// creation order.
func (a *adaptiveGraph) unfinished() []*jobVertexSim {
	var out []*jobVertexSim
	for _, v := range a.vertices {
		if !a.finished[v.start] {
			out = append(out, v)
		}
	}
	return out
}

// create is createJobVerticesAndUpdateGraph.
func (a *adaptiveGraph) create(nodes []*streamNode) {
	for _, n := range nodes {
		if a.isSource(n.id) && a.isChainableSource(n) {
			a.hash(n.id)
			t := n.out[0].target
			a.pending[t] = append(a.pending[t], n.id)
		} else if _, ok := a.pending[n.id]; !ok {
			a.pending[n.id] = nil
		}
	}
	var ready []int32
	for start := range a.pending {
		if a.ready(start) {
			ready = append(ready, start)
		}
	}
	sort.Slice(ready, func(i, j int) bool { return ready[i] < ready[j] })
	for _, start := range ready {
		v := &jobVertexSim{start: start, sources: a.pending[start]}
		delete(a.pending, start)
		a.chain(v, start)
		v.id = hashID(a.hashes[start])
		v.name = a.chainedNames[start]
		a.vertices = append(a.vertices, v)
		a.byStart[start] = v
		for _, n := range v.nodes {
			a.frozen[n] = start
		}
		for _, s := range v.sources {
			a.frozen[s] = start
		}
	}
}

// ready is isReadyToCreateJobVertex.
func (a *adaptiveGraph) ready(start int32) bool {
	if _, ok := a.frozen[start]; ok {
		return false
	}
	chained := a.pending[start]
	for _, e := range a.sg.nodes[start].in {
		if _, ok := a.hashes[e.source]; !ok {
			return false
		}
		if containsID(chained, e.source) {
			continue
		}
		up, ok := a.frozen[e.source]
		if !ok || !a.finished[up] {
			return false
		}
	}
	return true
}

// chain is createChain with canCreateNewChain false: it hashes the node,
// then follows its chainable outputs depth first.
func (a *adaptiveGraph) chain(v *jobVertexSim, id int32) {
	if _, ok := a.frozen[id]; ok || containsID(v.nodes, id) {
		return // a cycle, which only a damaged file can hold
	}
	a.hash(id)
	n := a.sg.nodes[id]
	v.nodes = append(v.nodes, id)
	var chainable []*streamEdge
	for _, e := range n.out {
		if a.isChainable(e) {
			chainable = append(chainable, e)
			a.chain(v, e.target)
		} else {
			v.outs = append(v.outs, e)
		}
	}
	name := n.name
	if id == v.start && len(v.sources) > 0 {
		var srcs []string
		for _, s := range v.sources {
			srcs = append(srcs, a.sg.nodes[s].name)
		}
		name += " [" + strings.Join(srcs, ", ") + "]"
	}
	switch len(chainable) {
	case 0:
	case 1:
		name += " -> " + a.chainedNames[chainable[0].target]
	default:
		var outs []string
		for _, e := range chainable {
			outs = append(outs, a.chainedNames[e.target])
		}
		name += " -> (" + strings.Join(outs, ", ") + ")"
	}
	a.chainedNames[id] = name
}

// hash is StreamGraphHasherV2.generateHashesByStreamNodeId.
func (a *adaptiveGraph) hash(id int32) {
	if _, ok := a.hashes[id]; ok {
		return
	}
	n := a.sg.nodes[id]
	if n.uid != "" {
		a.hashes[id] = userHash(n.uid)
		return
	}
	chainable := 0
	for _, e := range n.out {
		if a.isChainable(e) {
			chainable++
		}
	}
	in := make([][16]byte, 0, len(n.in))
	for _, e := range n.in {
		in = append(in, a.hashes[e.source])
	}
	a.hashes[id] = deterministicHash(len(a.hashes), chainable, in)
}

func (a *adaptiveGraph) isSource(id int32) bool { return containsID(a.sg.sources, id) }

// isChainable is StreamingJobGraphGenerator.isChainable(edge, graph).
func (a *adaptiveGraph) isChainable(e *streamEdge) bool {
	return len(a.sg.nodes[e.target].in) == 1 && a.isChainableInput(e)
}

// isChainableSource is StreamingJobGraphGenerator.isChainableSource.
func (a *adaptiveGraph) isChainableSource(n *streamNode) bool {
	if !n.isSourceFactory() || len(n.out) != 1 {
		return false
	}
	e := n.out[0]
	return a.sg.nodes[e.target].chaining == "HEAD_WITH_SOURCES" && a.isChainableInput(e)
}

func (a *adaptiveGraph) isChainableInput(e *streamEdge) bool {
	up, down := a.sg.nodes[e.source], a.sg.nodes[e.target]
	if !a.chainingOn || !sameGroup(up.slotSharingGroup, down.slotSharingGroup) ||
		!a.operatorsChainable(up, down) || !partitionerChainable(e, a.sg.dynamic) {
		return false
	}
	for _, in := range down.in {
		if in != e && in.typeNumber == e.typeNumber {
			return false // a union
		}
	}
	return true
}

// operatorsChainable is areOperatorsChainable (without the check of
// yielding operators behind legacy sources, which a batch job has none of).
func (a *adaptiveGraph) operatorsChainable(up, down *streamNode) bool {
	if up.factory == "" || down.factory == "" {
		return false
	}
	ok := up.chaining != "NEVER"
	switch down.chaining {
	case "NEVER", "HEAD":
		ok = false
	case "HEAD_WITH_SOURCES":
		ok = ok && up.isSourceFactory()
	}
	ok = ok && up.parallelism == down.parallelism
	if !a.diffMaxPar {
		ok = ok && up.maxParallelism == down.maxParallelism
	}
	return ok
}

// partitionerChainable is arePartitionerAndExchangeModeChainable.
func partitionerChainable(e *streamEdge, dynamic bool) bool {
	switch e.partitioner {
	case "ForwardForConsecutiveHashPartitioner":
		return dynamic
	case "ForwardPartitioner", "ForwardForUnspecifiedPartitioner":
		return e.exchangeMode != "BATCH"
	}
	return false
}

func sameGroup(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func containsID(ids []int32, id int32) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// setParallelismsForDynamicGraph is AdaptiveGraphManager's
// setVertexParallelismsForDynamicGraphIfNecessary: chainable "forward for
// unspecified" edges become forward edges, nodes without a parallelism of
// their own get -1 (decided at run time), and nodes joined by forward
// edges share the parallelism and max parallelism one of them decided.
func (a *adaptiveGraph) setParallelismsForDynamicGraph() {
	ids := a.sg.sortedIDs()
	for _, id := range ids {
		for _, e := range a.sg.nodes[id].out {
			if e.partitioner != "ForwardForConsecutiveHashPartitioner" && e.partitioner != "ForwardForUnspecifiedPartitioner" {
				continue
			}
			src := a.sg.nodes[e.source]
			if (a.isSource(src.id) && a.isChainableSource(src)) || a.isChainable(e) {
				e.partitioner = "ForwardPartitioner"
			}
		}
	}
	for _, id := range ids {
		if n := a.sg.nodes[id]; !n.parallelismConfigured && a.sg.autoParallel {
			n.parallelism = -1
		}
	}
	parent := map[int32]int32{}
	for _, id := range ids {
		parent[id] = id
	}
	var find func(int32) int32
	find = func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for _, id := range ids {
		for _, e := range a.sg.nodes[id].out {
			if e.partitioner == "ForwardPartitioner" {
				parent[find(e.source)] = find(e.target)
			}
		}
	}
	members := map[int32][]*streamNode{}
	for _, id := range ids {
		members[find(id)] = append(members[find(id)], a.sg.nodes[id])
	}
	for _, ns := range members {
		if len(ns) < 2 {
			continue
		}
		par, maxPar := int32(-1), int32(-1)
		for _, n := range ns {
			if n.parallelism > 0 {
				par = n.parallelism
			}
			if n.maxParallelism > 0 && (maxPar < 0 || n.maxParallelism < maxPar) {
				maxPar = n.maxParallelism
			}
		}
		for _, n := range ns {
			if par > 0 {
				n.parallelism = par
			}
			if maxPar > 0 {
				n.maxParallelism = maxPar
			}
		}
	}
}

func (sg *streamGraph) sortedIDs() []int32 {
	ids := make([]int32, 0, len(sg.nodes))
	for id := range sg.nodes {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// shipStrategy is the name Flink's plan gives a partitioner of an edge
// between two job vertices (StreamPartitioner.toString), and whether it is
// pointwise.
func shipStrategy(partitioner string) (string, bool) {
	switch partitioner {
	case "ForwardPartitioner":
		return "FORWARD", true
	case "ForwardForUnspecifiedPartitioner", "RescalePartitioner":
		// A "forward for unspecified" edge that is not chained becomes a
		// rescale edge (tryConvertPartitionerForDynamicGraph).
		return "RESCALE", true
	case "ForwardForConsecutiveHashPartitioner":
		return "HASH", false
	case "RebalancePartitioner":
		return "REBALANCE", false
	case "KeyGroupStreamPartitioner":
		return "HASH", false
	case "BroadcastPartitioner":
		return "BROADCAST", false
	case "ShufflePartitioner":
		return "SHUFFLE", false
	case "GlobalPartitioner":
		return "GLOBAL", false
	case "CustomPartitionerWrapper":
		return "CUSTOM", false
	}
	return strings.ToUpper(strings.TrimSuffix(partitioner, "Partitioner")), false
}

// operatorID returns the OperatorID Flink gives the coordinator of stream
// node id (new OperatorID(hash of the node)), "" when it is not hashed.
func (a *adaptiveGraph) operatorID(id int32) string {
	h, ok := a.hashes[id]
	if !ok {
		return ""
	}
	return hashID(h).String()
}
