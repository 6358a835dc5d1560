package replay_test

import (
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// The reference: the recovery rule of docs/recovery.md written as plainly
// as possible, with maps and repeated passes to a fixed point, sharing no
// code with the package.
// Property tests compare replay.Plan with it on generated logs.

type refEntry struct {
	attempt int32
	seq     int64
	parts   map[string]bool // consumers with a partition; nil: every out-edge
}

type refState struct {
	graph       *format.Graph
	par         map[string]int32
	finished    map[format.SubtaskRef]refEntry
	lastAttempt map[format.SubtaskRef]int32
	snapshot    int64
	epoch       int32
}

func refFold(events []format.Event) *refState {
	s := &refState{par: map[string]int32{}, finished: map[format.SubtaskRef]refEntry{}, lastAttempt: map[format.SubtaskRef]int32{}}
	for _, e := range events {
		if e.Epoch < s.epoch {
			continue
		}
		s.epoch = e.Epoch
		r := format.SubtaskRef{Vertex: e.Vertex, Subtask: e.Subtask}
		switch e.Kind {
		case format.KindJobSubmitted:
			s.graph = e.Graph
		case format.KindVertexInitialized:
			s.par[e.Vertex] = e.Parallelism
		case format.KindSubtaskStarted, format.KindSubtaskFailed, format.KindSubtaskFinished:
			if a, ok := s.lastAttempt[r]; !ok || e.Attempt > a {
				s.lastAttempt[r] = e.Attempt
			}
			if e.Kind == format.KindSubtaskFinished {
				ent := refEntry{attempt: e.Attempt, seq: e.Seq}
				if e.Partitions != nil {
					ent.parts = map[string]bool{}
					for _, p := range e.Partitions {
						ent.parts[p.Consumer] = true
					}
				}
				s.finished[r] = ent
			}
		case format.KindSubtasksReset:
			for _, x := range e.Subtasks {
				delete(s.finished, x)
			}
		case format.KindSnapshot:
			s.snapshot = e.Seq
		}
	}
	return s
}

func (s *refState) vertex(id string) format.Vertex { return *s.graph.Vertex(id) }

// refPlan returns decision, attempt and reasons per subtask.
func refPlan(s *refState, avail replay.Availability) map[format.SubtaskRef]replay.SubtaskPlan {
	type ref = format.SubtaskRef
	all := map[ref]bool{}
	for v, p := range s.par {
		for i := int32(0); i < p; i++ {
			all[ref{Vertex: v, Subtask: i}] = true
		}
	}
	trimmed, finished := map[ref]bool{}, map[ref]bool{}
	for r, ent := range s.finished {
		if s.vertex(r.Vertex).Coordinator == format.CoordinatorBatchSnapshot && s.snapshot < ent.seq {
			trimmed[r] = true
		} else {
			finished[r] = true
		}
	}
	will := map[ref]bool{}
	for r := range all {
		if !finished[r] {
			will[r] = true
		}
	}
	whole, deferred := map[string]bool{}, map[string]bool{}
	for v, p := range s.par {
		if s.vertex(v).Coordinator != format.CoordinatorNoBatchSnapshot {
			continue
		}
		n := int32(0)
		for i := int32(0); i < p; i++ {
			if finished[ref{Vertex: v, Subtask: i}] {
				n++
			}
		}
		if n == p {
			deferred[v] = true
		} else {
			whole[v] = true
		}
	}
	lost := func(r ref, consumer string) bool {
		ent := s.finished[r]
		if ent.parts != nil && !ent.parts[consumer] {
			return false
		}
		return !avail[replay.PartitionID{Vertex: r.Vertex, Subtask: r.Subtask, Attempt: ent.attempt, Consumer: consumer}]
	}
	// needed: consumer vertex not initialized, or a reader of it will run.
	needed := func(e format.Edge, i int32) bool {
		n, ok := s.par[e.To]
		if !ok {
			return true
		}
		for j := int32(0); j < n; j++ {
			if reads(e.Pattern, i, s.par[e.From], j, n) && will[ref{Vertex: e.To, Subtask: j}] {
				return true
			}
		}
		return false
	}
	for changed := true; changed; {
		changed = false
		set := func(r ref) {
			if !will[r] {
				will[r], changed = true, true
			}
		}
		for v := range whole {
			for i := int32(0); i < s.par[v]; i++ {
				set(ref{Vertex: v, Subtask: i})
			}
		}
		for v := range deferred {
			for i := int32(0); i < s.par[v]; i++ {
				if will[ref{Vertex: v, Subtask: i}] {
					whole[v] = true
					delete(deferred, v)
					changed = true
					break
				}
			}
		}
		for _, e := range s.graph.Edges {
			m, okP := s.par[e.From]
			n, okC := s.par[e.To]
			for i := int32(0); okP && i < m; i++ {
				p := ref{Vertex: e.From, Subtask: i}
				for j := int32(0); okC && j < n; j++ {
					if reads(e.Pattern, i, m, j, n) && will[p] {
						set(ref{Vertex: e.To, Subtask: j})
					}
				}
				if finished[p] && !will[p] && lost(p, e.To) && needed(e, i) {
					set(p)
				}
			}
		}
	}
	out := map[ref]replay.SubtaskPlan{}
	for r := range all {
		row := replay.SubtaskPlan{Vertex: r.Vertex, Subtask: r.Subtask, Reasons: []string{}}
		last, started := s.lastAttempt[r]
		_, inMap := s.finished[r]
		switch {
		case !will[r]:
			row.Decision, row.Attempt = replay.DecisionKeep, s.finished[r].attempt
		case !started:
			row.Decision = replay.DecisionRun
		default:
			row.Decision, row.Attempt = replay.DecisionRerun, last+1
			if !inMap {
				row.Reasons = append(row.Reasons, replay.ReasonRunningAtFailover)
			}
			if trimmed[r] {
				row.Reasons = append(row.Reasons, replay.ReasonFinishedAfterLastSnapshot)
			}
			if whole[r.Vertex] {
				row.Reasons = append(row.Reasons, replay.ReasonCoordinatorWithoutBatchSnapshot)
			}
			if finished[r] {
				row.Reasons = append(row.Reasons, refResetReasons(s, r, will, lost, needed)...)
			}
		}
		out[r] = row
	}
	return out
}

func refResetReasons(s *refState, r format.SubtaskRef, will map[format.SubtaskRef]bool,
	lost func(format.SubtaskRef, string) bool, needed func(format.Edge, int32) bool) []string {
	var out []string
	for _, e := range s.graph.Edges {
		if e.From == r.Vertex && lost(r, e.To) && needed(e, r.Subtask) {
			out = append(out, replay.ReasonPartitionLost)
			break
		}
	}
	for _, e := range s.graph.Edges {
		m, ok := s.par[e.From]
		if e.To != r.Vertex || !ok {
			continue
		}
		for i := int32(0); i < m; i++ {
			if reads(e.Pattern, i, m, r.Subtask, s.par[r.Vertex]) && will[format.SubtaskRef{Vertex: e.From, Subtask: i}] {
				return append(out, replay.ReasonDownstreamOfReset)
			}
		}
	}
	return out
}
