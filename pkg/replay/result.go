package replay

// result assembles the RecoveryPlan of a planner whose closure is done.
func (p *planner) result() *RecoveryPlan {
	s := p.s
	plan := &RecoveryPlan{
		Job: s.job, LastSeq: s.lastSeq, Epoch: s.epoch,
		Vertices: make([]VertexPlan, 0, len(p.t.ids)),
		Subtasks: make([]SubtaskPlan, 0, len(s.sub)),
		topo:     p.t,
		kept:     make([]keptRef, 0, p.kept),
	}
	var sets [1 << len(reasonNames)][]string
	reasonSet := func(r uint8) []string {
		if sets[r] == nil {
			sets[r] = []string{}
			for b, name := range reasonNames {
				if r&(1<<b) != 0 {
					sets[r] = append(sets[r], name)
				}
			}
		}
		return sets[r]
	}
	for v, id := range p.t.ids {
		vs := &s.vs[v]
		still := p.deferred[v] && !p.expanded[v]
		plan.Vertices = append(plan.Vertices, VertexPlan{
			Vertex: id, Parallelism: vs.parallelism, Initialized: vs.parallelism > 0, Deferred: still,
		})
		if still {
			plan.deferred = append(plan.deferred, id)
		}
		for i := int32(0); i < vs.parallelism; i++ {
			x := vs.base + i
			row := SubtaskPlan{Vertex: id, Subtask: i, Reasons: reasonSet(0)}
			st := &s.sub[x]
			f := p.flags[x]
			switch {
			case f&fWill == 0:
				row.Decision, row.Attempt = DecisionKeep, st.finAttempt
				plan.Summary.Keep++
				plan.kept = append(plan.kept, keptRef{
					v: int32(v), i: i, attempt: st.finAttempt, worker: s.workerName(st.worker),
					parts: st.parts, bytesOut: st.bytesOut, records: st.recOut,
				})
			case f&fStarted != 0:
				row.Decision, row.Attempt, row.Reasons = DecisionRerun, st.lastAttempt+1, reasonSet(p.reasons[x])
				plan.Summary.Rerun++
				if f&fInMap != 0 {
					plan.resets = append(plan.resets, int32(len(plan.Subtasks)))
				}
			default:
				row.Decision = DecisionRun
				plan.Summary.Run++
			}
			plan.Subtasks = append(plan.Subtasks, row)
		}
	}
	return plan
}
