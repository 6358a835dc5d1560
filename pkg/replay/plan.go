package replay

import (
	"encoding/json"

	"github.com/jobevent/jobevent/pkg/format"
)

// Decision is what recovery does with one subtask. The string values are
// part of the JSON of `replay --dry-run --format json`.
type Decision string

// The three decisions.
const (
	DecisionKeep  Decision = "keep"  // FINISHED: its finished attempt is kept
	DecisionRerun Decision = "rerun" // not FINISHED, and some attempt had started or finished
	DecisionRun   Decision = "run"   // not FINISHED, and no attempt ever started
)

// Reasons of a rerun, in the order a plan lists them. The string values are
// part of the JSON of `replay --dry-run --format json`.
const (
	// ReasonRunningAtFailover: its last attempt had not finished when the
	// master died (running, failed, or reset and waiting).
	ReasonRunningAtFailover = "running_at_failover"
	// ReasonFinishedAfterLastSnapshot: it finished, but its vertex's
	// coordinator is batch_snapshot and no snapshot followed that finish.
	ReasonFinishedAfterLastSnapshot = "finished_after_last_snapshot"
	// ReasonCoordinatorWithoutBatchSnapshot: its vertex's coordinator is
	// no_batch_snapshot and the whole vertex reruns (it had not fully
	// finished, or it was deferred and one of its subtasks was reset).
	ReasonCoordinatorWithoutBatchSnapshot = "coordinator_without_batch_snapshot"
	// ReasonPartitionLost: one of its own output partitions is needed (a
	// consumer of it runs, or the consumer vertex is not initialized) and
	// not available.
	ReasonPartitionLost = "partition_lost"
	// ReasonDownstreamOfReset: it finished, but something it consumed
	// reruns.
	ReasonDownstreamOfReset = "downstream_of_reset"
)

// reasonNames lists the reasons by bit, in plan order.
var reasonNames = [...]string{
	ReasonRunningAtFailover,
	ReasonFinishedAfterLastSnapshot,
	ReasonCoordinatorWithoutBatchSnapshot,
	ReasonPartitionLost,
	ReasonDownstreamOfReset,
}

const (
	rRunning uint8 = 1 << iota
	rTrimmed
	rCoordinator
	rPartitionLost
	rDownstream
)

// RecoveryPlan is the result of Plan. It marshals to the JSON of `jobevent
// replay --dry-run --format json` (DESIGN.md §6). It does not change after
// Plan returns and may be read concurrently.
type RecoveryPlan struct {
	Job      string        `json:"job"`
	LastSeq  int64         `json:"last_seq"`
	Epoch    int32         `json:"epoch"`    // the last epoch replayed
	Vertices []VertexPlan  `json:"vertices"` // in job_submitted order
	Subtasks []SubtaskPlan `json:"subtasks"` // by vertex order, then subtask
	Summary  Summary       `json:"summary"`

	topo     *topology
	kept     []keptRef
	resets   []int32 // indices into Subtasks
	deferred []string
}

// VertexPlan is one vertex of a plan. Parallelism is meaningful only when
// Initialized; in JSON it is null for a vertex not initialized.
type VertexPlan struct {
	Vertex      string
	Parallelism int32
	Initialized bool
	// Deferred reports whether the vertex is still deferred after the
	// plan: its coordinator is no_batch_snapshot, it is fully kept, and
	// the first later reset of any of its subtasks must reset all of them.
	Deferred bool
}

type vertexPlanJSON struct {
	Vertex      string `json:"vertex"`
	Parallelism *int32 `json:"parallelism"`
	Initialized bool   `json:"initialized"`
	Deferred    bool   `json:"deferred"`
}

// MarshalJSON writes {"vertex","parallelism","initialized","deferred"},
// with a null parallelism for a vertex not initialized.
func (v VertexPlan) MarshalJSON() ([]byte, error) {
	j := vertexPlanJSON{Vertex: v.Vertex, Initialized: v.Initialized, Deferred: v.Deferred}
	if v.Initialized {
		p := v.Parallelism
		j.Parallelism = &p
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (v *VertexPlan) UnmarshalJSON(data []byte) error {
	var j vertexPlanJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	*v = VertexPlan{Vertex: j.Vertex, Initialized: j.Initialized, Deferred: j.Deferred}
	if j.Parallelism != nil {
		v.Parallelism = *j.Parallelism
	}
	return nil
}

// SubtaskPlan is the decision for one subtask. Attempt is the kept attempt
// for keep, the next attempt (last attempt + 1) for rerun, 0 for run.
// Reasons is never nil: empty for keep and run. Plans share Reasons slices
// between rows: do not modify them.
type SubtaskPlan struct {
	Vertex   string   `json:"vertex"`
	Subtask  int32    `json:"subtask"`
	Decision Decision `json:"decision"`
	Attempt  int32    `json:"attempt"`
	Reasons  []string `json:"reasons"`
}

// Summary counts the decisions of a plan.
type Summary struct {
	Keep  int `json:"keep"`
	Rerun int `json:"rerun"`
	Run   int `json:"run"`
}

// KeptSubtask is what a recovering master needs to go on with a kept
// subtask: its attempt, where it ran, and its partitions.
type KeptSubtask struct {
	format.SubtaskRef
	Attempt    int32
	Worker     string
	Partitions []PartitionLoc
}

// keptRef holds what Kept expands; parts is shared with the State, which
// never modifies it in place.
type keptRef struct {
	v, i, attempt     int32
	worker            string
	parts             []partRec
	bytesOut, records int64
}

// Kept returns the kept subtasks, in plan order.
func (p *RecoveryPlan) Kept() []KeptSubtask {
	out := make([]KeptSubtask, len(p.kept))
	for k, r := range p.kept {
		out[k] = KeptSubtask{
			SubtaskRef: format.SubtaskRef{Vertex: p.topo.ids[r.v], Subtask: r.i},
			Attempt:    r.attempt,
			Worker:     r.worker,
			Partitions: partitionLocs(p.topo, r.v, r.i, r.attempt, r.worker, r.parts, r.bytesOut, r.records),
		}
	}
	return out
}

// Resets returns the subtasks a recovering master logs, right after its
// master_started, as one subtasks_reset with reason "recovery": the
// entries of the finished map that the plan reruns (those trimmed or reset
// by steps 2 to 4), in plan order. Logging them lets a second failover
// replay correctly.
func (p *RecoveryPlan) Resets() []format.SubtaskRef {
	out := make([]format.SubtaskRef, len(p.resets))
	for k, i := range p.resets {
		out[k] = format.SubtaskRef{Vertex: p.Subtasks[i].Vertex, Subtask: p.Subtasks[i].Subtask}
	}
	return out
}

// Deferred returns the vertices still deferred after the plan, in graph
// order: the runtime passes them to State.ExpandReset so that the first
// later reset of any of their subtasks resets all of them, once.
func (p *RecoveryPlan) Deferred() []string {
	return append([]string(nil), p.deferred...)
}
