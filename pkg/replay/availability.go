package replay

import (
	"errors"
	"fmt"
	"io"

	"github.com/jobevent/jobevent/pkg/format"
)

// PartitionID names one result partition: the output of attempt Attempt of
// subtask Vertex/Subtask for consumer vertex Consumer (docs/recovery.md,
// Partitions). When the graph names the edge's dataset (a Flink log),
// Dataset holds its id, and the partition is the one of that dataset,
// whichever vertex reads it: Consumer is then the dataset's first
// consumer vertex ("" when the graph names none).
type PartitionID struct {
	Vertex   string `json:"vertex"`
	Subtask  int32  `json:"subtask"`
	Attempt  int32  `json:"attempt"`
	Consumer string `json:"consumer"`
	Dataset  string `json:"dataset,omitempty"`
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
	if err := o.check(s); err != nil {
		return nil, err
	}
	lostPart := make(map[format.SubtaskRef]bool, len(o.LostPartitions))
	for _, r := range o.LostPartitions {
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
				a[s.canonical(p.PartitionID)] = true
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
		i := int32(x) - s.vs[st.vertex].base
		if !keep(s.topo.ids[st.vertex], i, s.workerName(st.worker)) {
			continue
		}
		s.eachDataset(int32(x), func(d int32) {
			if s.profile == ProfileFlink && s.releasedByFlink(i, d) {
				return // Flink released it once every consumer had finished
			}
			a[s.partitionID(st.vertex, i, st.finAttempt, d)] = true
		})
	}
	return a, nil
}

// partitionID returns the id of the partition of dataset d written by
// attempt of subtask i of its producer v.
func (s *State) partitionID(v, i, attempt, d int32) PartitionID {
	id := PartitionID{Vertex: s.topo.ids[v], Subtask: i, Attempt: attempt, Dataset: s.topo.datasets[d].id}
	if c := s.topo.firstConsumer(d); c >= 0 {
		id.Consumer = s.topo.ids[c]
	}
	return id
}

// canonical returns the id under which Availability holds the partition
// that id names: an id naming a consumer of a dataset with an id, or the
// dataset alone, becomes partitionID's form. An id that names no
// partition of the graph is returned as it is.
func (s *State) canonical(id PartitionID) PartitionID {
	v := s.topo.vertex(id.Vertex)
	if v < 0 {
		return id
	}
	for _, d := range s.topo.outDS[v] {
		ds := &s.topo.datasets[d]
		if id.Dataset != "" {
			if ds.id == id.Dataset {
				return s.partitionID(v, id.Subtask, id.Attempt, d)
			}
			continue
		}
		for _, ei := range ds.edges {
			if s.topo.ids[s.topo.edges[ei].to] == id.Consumer {
				return s.partitionID(v, id.Subtask, id.Attempt, d)
			}
		}
	}
	return id
}

// eachDataset calls f with the dataset of every recorded partition of the
// finished entry x: every dataset its vertex produces, or those of the
// consumers its subtask_finished listed.
func (s *State) eachDataset(x int32, f func(d int32)) {
	v := s.sub[x].vertex
	if parts := s.partsOf(x); parts != nil {
		for _, p := range parts {
			if k := s.topo.outSlot(v, p.consumer); k >= 0 {
				f(s.topo.outDS[v][k])
			}
		}
		return
	}
	for _, d := range s.topo.outDS[v] {
		f(d)
	}
}

// recordedPartitions counts the partitions of the finished entries.
func (s *State) recordedPartitions() int {
	n := 0
	for x := range s.sub {
		if st := &s.sub[x]; st.finSeq > 0 {
			s.eachDataset(int32(x), func(int32) { n++ })
		}
	}
	return n
}

// check returns the error BuildAvailability returns for o, if any.
func (o AvailabilityOptions) check(s *State) error {
	if o.NoWorkers && o.Available != nil {
		return ErrNoWorkersAndAvailable
	}
	for _, r := range o.LostPartitions {
		if s.topo.vertex(r.Vertex) < 0 {
			return fmt.Errorf("replay: lost partition %s: vertex %q: %w", r, r.Vertex, ErrUnknownVertex)
		}
	}
	return nil
}

// PlanDryRun is what `replay --dry-run` does once the log is folded: the
// plan of PlanRecovery(s, A, po) for the set A that o describes, with the
// error of BuildAvailability(s, o). It builds no A when the plan does not
// read it (a full restart, a job the log ends), nor when o keeps every
// recorded partition as its base (no Available list, not NoWorkers) in
// jobevent's profile: the planner then asks the lost workers and
// partitions of o directly, and with none lost it looks nothing up.
func PlanDryRun(s *State, o AvailabilityOptions, po PlanOptions) (*RecoveryPlan, error) {
	d, err := DecideDryRun(s, o, po)
	if err != nil {
		return nil, err
	}
	return d.Plan(), nil
}

// DecideDryRun decides the plan of PlanDryRun(s, o, po), with its error,
// without laying it out as rows: see DryRun.
func DecideDryRun(s *State, o AvailabilityOptions, po PlanOptions) (*DryRun, error) {
	if err := o.check(s); err != nil {
		return nil, err
	}
	if o.Available != nil || o.NoWorkers || s.profile == ProfileFlink {
		a, err := BuildAvailability(s, o)
		if err != nil {
			return nil, err
		}
		return &DryRun{p: decideRecovery(s, a, po)}, nil
	}
	var set partitionSet // nil: every recorded partition
	if r := newRecordedSet(s, o); r != nil {
		set = r
	}
	return &DryRun{p: decideRecovery(s, set, po)}, nil
}

// A DryRun is the plan of PlanDryRun decided for every subtask but not yet
// laid out as rows. Plan lays them out as a RecoveryPlan; WriteJSON writes
// them as it decides them and holds none, for a plan too large to keep:
// the rows of a job of a million subtasks take 72 MB. A DryRun reads the
// State it was decided from, which must not change while the DryRun is
// used. It is not safe for concurrent use.
type DryRun struct {
	p    *planner
	plan *RecoveryPlan // laid out by Plan
}

// Plan returns the plan, laid out as rows on the first call; later calls
// return the same plan.
func (d *DryRun) Plan() *RecoveryPlan {
	if d.plan == nil {
		d.plan = d.p.layout()
	}
	return d.plan
}

// WriteJSON writes the plan's JSON to w: the bytes WritePlanJSON writes
// for Plan(), each row decided as it is written and then dropped (from
// the plan laid out, once Plan was called). names are the vertices' names,
// as for WritePlanJSON.
func (d *DryRun) WriteJSON(w io.Writer, names map[string]string) error {
	if d.plan != nil {
		return WritePlanJSON(w, d.plan, names)
	}
	return writePlanJSON(w, d.p.head(), names, d.p.writeRows)
}

// partitionSet is the set A as the planner asks it; a nil partitionSet
// holds every recorded partition.
type partitionSet interface {
	// has reports whether A holds the partition of dataset d that
	// FINISHED subtask x recorded.
	has(s *State, x, d int32) bool
}

// has looks the partition up in the map.
func (a Availability) has(s *State, x, d int32) bool {
	st := &s.sub[x]
	v := st.vertex
	return a[s.partitionID(v, x-s.vs[v].base, st.finAttempt, d)]
}

// recordedSet is the A of BuildAvailability for options without an
// Available list or NoWorkers, in jobevent's profile: every recorded
// partition, except those on a lost worker or of a lost subtask.
type recordedSet struct {
	lostWorker  []bool         // by index into State.workers
	lostSubtask map[int32]bool // dense subtask indices
}

// newRecordedSet returns the set for o, nil when o loses nothing.
func newRecordedSet(s *State, o AvailabilityOptions) *recordedSet {
	if len(o.LostWorkers) == 0 && len(o.LostPartitions) == 0 {
		return nil
	}
	r := &recordedSet{lostWorker: make([]bool, len(s.workers)), lostSubtask: make(map[int32]bool)}
	for _, w := range o.LostWorkers {
		if i, ok := s.workerIdx[w]; ok {
			r.lostWorker[i] = true
		}
	}
	for _, ref := range o.LostPartitions {
		if v := s.topo.vertex(ref.Vertex); v >= 0 && ref.Subtask >= 0 && ref.Subtask < s.vs[v].parallelism {
			r.lostSubtask[s.vs[v].base+ref.Subtask] = true
		}
	}
	return r
}

func (r *recordedSet) has(s *State, x, _ int32) bool {
	w := s.sub[x].worker
	return !(w >= 0 && r.lostWorker[w]) && !r.lostSubtask[x]
}
