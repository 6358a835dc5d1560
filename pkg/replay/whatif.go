package replay

import "fmt"

// Unmatched is a value of AvailabilityOptions that names nothing in the
// log, so that it changes nothing: a worker no finished subtask ran on, a
// subtask out of its vertex's range, an unknown vertex in Available.
type Unmatched struct {
	// Option is the field the value came from: "LostWorkers",
	// "LostPartitions" or "Available".
	Option string
	// Value is the value as a person writes it: "w3", "source/9",
	// "source/0 attempt 0 for words on w1".
	Value string
	// Why says what the log holds instead.
	Why string
}

// Unmatched returns the values of o that name nothing in the state s, in
// the order of o's fields and values. A lost partition of a vertex not in
// the graph is not among them: BuildAvailability refuses it.
func (o AvailabilityOptions) Unmatched(s *State) []Unmatched {
	var out []Unmatched
	var held []bool // by worker index: some finished entry ran on it
	if len(o.LostWorkers) > 0 {
		held = make([]bool, len(s.workers))
		for x := range s.sub {
			if st := &s.sub[x]; st.finSeq > 0 && st.worker >= 0 {
				held[st.worker] = true
			}
		}
	}
	for _, w := range o.LostWorkers {
		i, ok := s.workerIdx[w]
		switch {
		case !ok:
			out = append(out, Unmatched{Option: "LostWorkers", Value: w,
				Why: fmt.Sprintf("no finished subtask ran on worker %s up to seq %d: no partition of it is recorded", w, s.lastSeq)})
		case !held[i]:
			// Subtasks did finish there (the fold knows the worker from
			// their subtask_finished), and every one was reset since.
			out = append(out, Unmatched{Option: "LostWorkers", Value: w,
				Why: fmt.Sprintf("every subtask that finished on worker %s was reset by seq %d: no partition of it is recorded now", w, s.lastSeq)})
		}
	}
	for _, r := range o.LostPartitions {
		if why := s.noSubtask(r.Vertex, r.Subtask); why != "" && s.topo.vertex(r.Vertex) >= 0 {
			out = append(out, Unmatched{Option: "LostPartitions", Value: r.String(), Why: why})
		}
	}
	for _, p := range o.Available {
		why := s.noSubtask(p.Vertex, p.Subtask)
		if why == "" && s.topo.vertex(p.Consumer) < 0 {
			why = fmt.Sprintf("consumer vertex %q is not in the job's graph", p.Consumer)
		}
		if why != "" {
			out = append(out, Unmatched{Option: "Available",
				Value: fmt.Sprintf("%s/%d attempt %d for %s on %s", p.Vertex, p.Subtask, p.Attempt, p.Consumer, p.Worker), Why: why})
		}
	}
	return out
}

// noSubtask says why vertex/i names no subtask of s, "" when it names
// one (or its vertex is not initialized yet, so that any i may exist).
func (s *State) noSubtask(vertex string, i int32) string {
	v := s.topo.vertex(vertex)
	if v < 0 {
		return fmt.Sprintf("vertex %q is not in the job's graph", vertex)
	}
	if p := s.vs[v].parallelism; p > 0 && i >= p {
		return fmt.Sprintf("vertex %s has parallelism %d: its subtasks are 0 to %d", vertex, p, p-1)
	}
	return ""
}
