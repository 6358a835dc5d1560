package loggen

import (
	"fmt"
	"sort"

	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// failover ends the epoch: the next master replays the log, plans with
// replay.Plan on what the workers still hold, logs master_started and the
// plan's resets, and carries on from the plan.
func (g *Generator) failover() {
	avail := replay.AllRecorded(g.st)
	for id := range g.lost {
		delete(avail, id)
	}
	if g.o.LoseWorkerOnFailover {
		w := fmt.Sprintf("w%d", 1+g.rng.Intn(g.o.Workers))
		for _, p := range g.st.Partitions() {
			if p.Worker == w {
				delete(avail, p.PartitionID)
				g.lost[p.PartitionID] = true
			}
		}
	}
	plan := replay.Plan(g.st, avail)
	g.epoch++
	g.emit(format.Event{Kind: format.KindMasterStarted, Master: fmt.Sprintf("127.0.0.1:%d", 7100+g.epoch-1), Recovering: true})
	if resets := plan.Resets(); len(resets) > 0 {
		g.emit(format.Event{Kind: format.KindSubtasksReset, Subtasks: resets, Reason: format.ReasonRecovery})
	}
	g.deferred = make(map[string]bool)
	for _, v := range plan.Deferred() {
		g.deferred[v] = true
	}
	g.restore(plan)
	g.initializeReady()
}

// restore sets the simulation to the plan: kept subtasks finished,
// everything else pending with the plan's next attempt, nothing running.
func (g *Generator) restore(plan *replay.RecoveryPlan) {
	s := &g.sim
	for _, x := range s.running {
		s.sub[x].status = pending
	}
	s.running = s.running[:0]
	for i := range s.verts {
		s.verts[i].finished = 0
	}
	for _, row := range plan.Subtasks {
		x := s.subtask(format.SubtaskRef{Vertex: row.Vertex, Subtask: row.Subtask})
		st := &s.sub[x]
		if row.Decision == replay.DecisionKeep {
			st.status = finished
			s.verts[st.v].finished++
			continue
		}
		st.status, st.next = pending, row.Attempt
	}
	for x := range s.sub {
		s.pushReady(int32(x))
	}
}

// failoverSeqs returns the seqs after which the master fails over: the
// explicit ones and Failovers random ones within the estimated length.
func (g *Generator) failoverSeqs() []int64 {
	seqs := append([]int64(nil), g.o.FailoverAt...)
	est := g.estimate()
	for i := 0; i < g.o.Failovers; i++ {
		seqs = append(seqs, est/10+g.rng.Int63n(est-est/10+1))
	}
	sort.Slice(seqs, func(a, b int) bool { return seqs[a] < seqs[b] })
	return seqs
}

// estimate guesses the number of events of the log.
func (g *Generator) estimate() int64 {
	var subtasks int64
	for _, v := range g.graph.Vertices {
		p := v.Parallelism
		if p == 0 {
			p = max(v.MaxParallelism/2, 1)
		}
		subtasks += int64(p)
	}
	f := min(g.o.FailureRate, 0.9)
	est := int64(float64(subtasks) * (2 + 3*f/(1-f)))
	if g.o.StopAfter > 0 && g.o.StopAfter < est {
		est = g.o.StopAfter
	}
	return max(est, 20)
}
