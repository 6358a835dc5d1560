package replay

import (
	"errors"
	"fmt"

	"github.com/jobevent/jobevent/pkg/format"
)

// PartitionID names one result partition: the output of attempt Attempt of
// subtask Vertex/Subtask for consumer vertex Consumer (docs/recovery.md,
// Partitions).
type PartitionID struct {
	Vertex   string `json:"vertex"`
	Subtask  int32  `json:"subtask"`
	Attempt  int32  `json:"attempt"`
	Consumer string `json:"consumer"`
}

// PartitionLoc is a partition and where it lives. It is also the element
// of the list `replay --available FILE` reads.
type PartitionLoc struct {
	PartitionID
	Worker  string `json:"worker"`
	Bytes   int64  `json:"bytes"`
	Records int64  `json:"records"`
}

// Availability is the set A of partitions that survived a failover: what
// the workers that reconnected reported. A nil map has nothing available.
type Availability map[PartitionID]bool

// AllRecorded returns every partition of the currently finished attempts:
// the dry run's default assumption.
func AllRecorded(s *State) Availability {
	a, _ := BuildAvailability(s, AvailabilityOptions{})
	return a
}

// ErrNoWorkersAndAvailable reports AvailabilityOptions with both NoWorkers
// and an Available list.
var ErrNoWorkersAndAvailable = errors.New("jobevent/replay: no workers and an available list exclude each other")

// AvailabilityOptions describes A the way the CLI's flags do (`replay
// --dry-run --available FILE --lost-worker W --lost-partition V/I
// --no-workers`), one field per flag.
type AvailabilityOptions struct {
	// Available is the base set. Nil means every recorded partition (in
	// the Flink profile, every one that Flink's TaskManagers still hold:
	// not those it released once all their consumers had finished); a
	// non-nil list, even empty, replaces it.
	Available []PartitionLoc
	// LostWorkers removes from the base every partition stored on these
	// workers.
	LostWorkers []string
	// LostPartitions removes every partition of these producer subtasks
	// (any attempt, any consumer).
	LostPartitions []format.SubtaskRef
	// NoWorkers empties the base: no worker came back. It excludes
	// Available.
	NoWorkers bool
}

// BuildAvailability returns the set A that o describes for the state s.
// It fails for NoWorkers together with Available
// (ErrNoWorkersAndAvailable) and for a lost partition naming a vertex that
// is not in the graph (ErrUnknownVertex).
func BuildAvailability(s *State, o AvailabilityOptions) (Availability, error) {
	if o.NoWorkers && o.Available != nil {
		return nil, ErrNoWorkersAndAvailable
	}
	lostPart := make(map[format.SubtaskRef]bool, len(o.LostPartitions))
	for _, r := range o.LostPartitions {
		if s.topo.vertex(r.Vertex) < 0 {
			return nil, fmt.Errorf("replay: lost partition %s: vertex %q: %w", r, r.Vertex, ErrUnknownVertex)
		}
		lostPart[r] = true
	}
	lostWorker := make(map[string]bool, len(o.LostWorkers))
	for _, w := range o.LostWorkers {
		lostWorker[w] = true
	}
	if o.NoWorkers {
		return make(Availability), nil
	}
	keep := func(vertex string, subtask int32, worker string) bool {
		return !lostWorker[worker] && !lostPart[format.SubtaskRef{Vertex: vertex, Subtask: subtask}]
	}
	if o.Available != nil {
		a := make(Availability, len(o.Available))
		for _, p := range o.Available {
			if keep(p.Vertex, p.Subtask, p.Worker) {
				a[p.PartitionID] = true
			}
		}
		return a, nil
	}
	a := make(Availability, s.recordedPartitions())
	for x := range s.sub {
		st := &s.sub[x]
		if st.finSeq == 0 {
			continue
		}
		id := PartitionID{Vertex: s.topo.ids[st.vertex], Subtask: int32(x) - s.vs[st.vertex].base, Attempt: st.finAttempt}
		if !keep(id.Vertex, id.Subtask, s.workerName(st.worker)) {
			continue
		}
		s.eachConsumer(st, func(c int32) {
			if s.profile == ProfileFlink && s.releasedByFlink(st.vertex, id.Subtask, c) {
				return // Flink released it once every consumer had finished
			}
			id.Consumer = s.topo.ids[c]
			a[id] = true
		})
	}
	return a, nil
}

// eachConsumer calls f with the consumer vertex of every recorded
// partition of the finished entry st.
func (s *State) eachConsumer(st *subtask, f func(c int32)) {
	if st.parts != nil {
		for _, p := range st.parts {
			f(p.consumer)
		}
		return
	}
	for _, ei := range s.topo.out[st.vertex] {
		f(s.topo.edges[ei].to)
	}
}

// recordedPartitions counts the partitions of the finished entries.
func (s *State) recordedPartitions() int {
	n := 0
	for x := range s.sub {
		if st := &s.sub[x]; st.finSeq > 0 {
			s.eachConsumer(st, func(int32) { n++ })
		}
	}
	return n
}
