package flink

import (
	"net/netip"

	"github.com/jobevent/jobevent/pkg/flink/javaser"
)

// Record types of a job-events file (Flink's JobEvents type ids). They are
// part of the format.
const (
	TypeVertexFinished       = 1 // ExecutionVertexFinishedEvent
	TypeVertexReset          = 2 // ExecutionVertexResetEvent
	TypeJobVertexInitialized = 3 // ExecutionJobVertexInitializedEvent
)

// Event is the decoded payload of a record: *VertexFinished, *VertexReset
// or *JobVertexInitialized.
type Event interface {
	// RecordType returns the record type the event is written with.
	RecordType() int32
}

// VertexFinished is an ExecutionVertexFinishedEvent (type 1): a subtask
// attempt finished.
type VertexFinished struct {
	AttemptID ExecutionAttemptID  `json:"attempt_id"`
	Location  TaskManagerLocation `json:"location"`
	IOMetrics IOMetrics           `json:"io_metrics"`
	// Accumulators holds the user accumulators by name, in stream order;
	// nil when the event has none (a null map). Values are kept as decoded:
	// built-in counters are *javaser.Object of org.apache.flink.api.common.
	// accumulators classes, and any user class can appear.
	Accumulators []Accumulator `json:"accumulators,omitempty"`
	// CoordinatorSnapshots holds the operator coordinators' states written
	// with the event, in stream order (empty unless a snapshot point).
	CoordinatorSnapshots []CoordinatorSnapshot `json:"coordinator_snapshots,omitempty"`
	// SnapshotPoint reports whether the record carries a shuffle master
	// snapshot (its third length is positive): Flink's recovery keeps
	// finished subtasks only up to the last such record.
	SnapshotPoint bool `json:"snapshot_point"`
	// ShuffleMasterSnapshot is the decoded snapshot when SnapshotPoint, e.g.
	// an object of org.apache.flink.runtime.shuffle.EmptyShuffleMasterSnapshot.
	ShuffleMasterSnapshot javaser.Value `json:"-"`
	// ShuffleMasterSnapshotClass is its class name, "" when none.
	ShuffleMasterSnapshotClass string `json:"shuffle_master_snapshot_class,omitempty"`
}

func (*VertexFinished) RecordType() int32 { return TypeVertexFinished }

// TaskManagerLocation is where the attempt ran.
type TaskManagerLocation struct {
	// ResourceID is the TaskManager's resource id.
	ResourceID string `json:"resource_id"`
	// ResourceMetadata is the ResourceID's metadata, usually "".
	ResourceMetadata string `json:"resource_metadata,omitempty"`
	// Addr is the TaskManager's address.
	Addr netip.Addr `json:"addr"`
	// HostName is the host name the address was written with, "" if none.
	HostName string `json:"host_name,omitempty"`
	DataPort int32  `json:"data_port"`
	NodeID   string `json:"node_id,omitempty"`
}

// IOMetrics is the attempt's IOMetrics.
type IOMetrics struct {
	NumRecordsIn                int64   `json:"num_records_in"`
	NumRecordsOut               int64   `json:"num_records_out"`
	NumBytesIn                  int64   `json:"num_bytes_in"`
	NumBytesOut                 int64   `json:"num_bytes_out"`
	AccumulateBackPressuredTime int64   `json:"accumulate_back_pressured_time"`
	AccumulateBusyTime          float64 `json:"accumulate_busy_time"`
	AccumulateIdleTime          int64   `json:"accumulate_idle_time"`
	// ResultPartitionBytes holds, for each partition the attempt produced,
	// the bytes of each subpartition, in stream order; nil when none.
	ResultPartitionBytes []PartitionBytes `json:"result_partition_bytes,omitempty"`
}

// PartitionBytes is the size of each subpartition of one produced
// partition.
type PartitionBytes struct {
	Partition         PartitionID `json:"partition"`
	SubpartitionBytes []int64     `json:"subpartition_bytes"`
}

// Accumulator is one user accumulator of a finished attempt.
type Accumulator struct {
	Name string `json:"name"`
	// Class is the accumulator's class name, "" for null.
	Class string        `json:"class"`
	Value javaser.Value `json:"-"`
}

// CoordinatorSnapshot is the state of one operator coordinator, in the
// coordinator's own format (not Java serialization).
type CoordinatorSnapshot struct {
	OperatorID ID     `json:"operator_id"`
	State      []byte `json:"state"`
}

// VertexReset is an ExecutionVertexResetEvent (type 2): subtasks reset for
// a new attempt outside recovery.
type VertexReset struct {
	Vertices []ExecutionVertexID `json:"vertices"`
}

func (*VertexReset) RecordType() int32 { return TypeVertexReset }

// JobVertexInitialized is an ExecutionJobVertexInitializedEvent (type 3):
// a job vertex got its parallelism and the inputs of each subtask.
type JobVertexInitialized struct {
	JobVertexID ID    `json:"job_vertex_id"`
	Parallelism int32 `json:"parallelism"`
	// Inputs holds one entry per consumed dataset, in stream order.
	Inputs []VertexInput `json:"inputs"`
}

func (*JobVertexInitialized) RecordType() int32 { return TypeJobVertexInitialized }

// VertexInput is the JobVertexInputInfo of one consumed dataset.
type VertexInput struct {
	DataSetID ID `json:"dataset_id"`
	// Subtasks holds one entry per consumer subtask (ExecutionVertexInputInfo).
	Subtasks []SubtaskInput `json:"subtasks"`
}

// SubtaskInput is what one consumer subtask reads of a dataset.
type SubtaskInput struct {
	SubtaskIndex int32 `json:"subtask"`
	// Groups holds the consumed partition ranges, each with the
	// subpartition range read from every partition in it. Flink 1.20
	// writes exactly one group (partitionIndexRange, subpartitionIndexRange);
	// 2.x writes a map of them (consumedSubpartitionGroups).
	Groups []ConsumedGroup `json:"groups"`
}

// ConsumedGroup is a range of producer partitions (producer subtasks) and
// the range of subpartitions read from each.
type ConsumedGroup struct {
	Partitions    IndexRange `json:"partitions"`
	Subpartitions IndexRange `json:"subpartitions"`
}

// IndexRange is Flink's IndexRange: Start to End, both inclusive.
type IndexRange struct {
	Start int32 `json:"start"`
	End   int32 `json:"end"`
}
