package replay

// The helpers of step 4 (planner.partitions): which recorded partitions
// are missing, and the closure of the resets to a fixed point.

// lookupMissing marks, for every FINISHED subtask, the recorded partitions
// that are not in avail. A nil avail holds every recorded partition:
// nothing is missing, and nothing is looked up.
func (p *planner) lookupMissing(avail partitionSet) {
	if avail == nil {
		return
	}
	total := 0
	for v := range p.t.ids {
		p.missOff[v] = total
		total += int(p.s.vs[v].parallelism) * len(p.t.outDS[v])
	}
	p.miss = make([]bool, total)
	for x := range p.s.sub {
		if p.flags[x]&fFinished != 0 {
			p.lookupSubtask(int32(x), avail)
		}
	}
}

// lookupSubtask marks the recorded partitions of FINISHED subtask x that
// are not in avail.
func (p *planner) lookupSubtask(x int32, avail partitionSet) {
	st := &p.s.sub[x]
	v := st.vertex
	i := x - p.s.vs[v].base
	dss := p.t.outDS[v]
	row := p.miss[p.missOff[v]+int(i)*len(dss):]
	parts := p.s.partsOf(x)
	if parts == nil {
		for k, d := range dss {
			row[k] = !avail.has(p.s, x, d)
		}
		return
	}
	for _, pr := range parts {
		if k := p.t.outSlot(v, pr.consumer); k >= 0 {
			row[k] = !avail.has(p.s, x, dss[k])
		}
	}
}

// missing reports whether FINISHED subtask x has a recorded partition of
// the dataset in its vertex's slot k (topology.outDS) that is not
// available.
func (p *planner) missing(x, k int32) bool {
	if p.miss == nil {
		return false // every recorded partition is available
	}
	v := p.s.sub[x].vertex
	i := x - p.s.vs[v].base
	return p.miss[p.missOff[v]+int(i)*len(p.t.outDS[v])+int(k)]
}

// seedUninitialized resets the producers of missing partitions of a
// dataset that a vertex not initialized reads (or that no edge of the
// graph reads yet): such partitions are always needed.
func (p *planner) seedUninitialized() {
	for v, dss := range p.t.outDS {
		pv := &p.s.vs[v]
		for k, d := range dss {
			if !p.s.uninitializedConsumer(d) {
				continue
			}
			for x := pv.base; x < pv.base+pv.parallelism; x++ {
				if p.flags[x]&fFinished != 0 && p.missing(x, int32(k)) {
					p.mark(x)
				}
			}
		}
	}
}

// uninitializedConsumer reports whether a consumer vertex of dataset d is
// not initialized, or d is open (its consumers are not in the graph).
func (s *State) uninitializedConsumer(d int32) bool {
	ds := &s.topo.datasets[d]
	if ds.open() {
		return true
	}
	for _, ei := range ds.edges {
		if s.vs[s.topo.edges[ei].to].parallelism == 0 {
			return true
		}
	}
	return false
}

// mark records that x will run and queues it for the closure.
func (p *planner) mark(x int32) {
	if p.flags[x]&fWill == 0 {
		p.flags[x] |= fWill
		p.queue = append(p.queue, x)
	}
}

// close runs the closure of step 4 to its fixed point: it takes subtasks
// that will run off the queue and marks, for each, the rest of its
// deferred vertex (once), the consumers that read it and the FINISHED
// producers of what it reads whose partition is missing.
func (p *planner) close() {
	for len(p.queue) > 0 {
		x := p.queue[len(p.queue)-1]
		p.queue = p.queue[:len(p.queue)-1]
		v := p.s.sub[x].vertex
		i := x - p.s.vs[v].base
		if p.deferred[v] && !p.expanded[v] {
			p.expanded[v] = true
			vs := &p.s.vs[v]
			for y := vs.base; y < vs.base+vs.parallelism; y++ {
				p.mark(y)
			}
		}
		for _, ei := range p.t.out[v] {
			p.closeDown(ei, i)
		}
		for _, ei := range p.t.in[v] {
			p.closeUp(ei, i)
		}
	}
}

// closeDown marks the consumers that read producer subtask i over edge ei.
func (p *planner) closeDown(ei int32, i int32) {
	e := &p.t.edges[ei]
	cv := &p.s.vs[e.to]
	if cv.parallelism == 0 {
		return
	}
	m := p.s.vs[e.from].parallelism
	if e.allToAll(m, cv.parallelism) {
		if p.downDone[ei] {
			return
		}
		p.downDone[ei] = true
	}
	var buf [1]span
	for _, sp := range e.consumerSpans(i, m, cv.parallelism, &buf) {
		for y := cv.base + sp[0]; y < cv.base+sp[1]; y++ {
			p.mark(y)
		}
	}
}

// closeUp marks the FINISHED producers, read by consumer subtask j over
// edge ei, whose partition for it is missing.
func (p *planner) closeUp(ei int32, j int32) {
	e := &p.t.edges[ei]
	pv := &p.s.vs[e.from]
	if pv.parallelism == 0 {
		return
	}
	n := p.s.vs[e.to].parallelism
	if e.allToAll(pv.parallelism, n) {
		if p.upDone[ei] {
			return
		}
		p.upDone[ei] = true
	}
	var buf [1]span
	for _, sp := range e.producerSpans(j, pv.parallelism, n, &buf) {
		for x := pv.base + sp[0]; x < pv.base+sp[1]; x++ {
			if p.flags[x]&fFinished != 0 && p.missing(x, e.slot) {
				p.mark(x)
			}
		}
	}
}
