package flink

import (
	"fmt"
	"strconv"
)

// ID is one of Flink's AbstractIDs: a JobID, JobVertexID, OperatorID,
// IntermediateDataSetID or ExecutionGraphID.
type ID struct {
	Lower, Upper int64
}

// String returns the ID as Flink prints it: 32 lowercase hex digits, the
// lower part first, each part big-endian.
func (id ID) String() string {
	return fmt.Sprintf("%016x%016x", uint64(id.Lower), uint64(id.Upper))
}

// MarshalText returns String's form.
func (id ID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// ExecutionVertexID names one subtask of a job vertex.
type ExecutionVertexID struct {
	JobVertexID  ID
	SubtaskIndex int32
}

// String returns "<job vertex id>_<subtask>", as Flink prints it.
func (v ExecutionVertexID) String() string {
	return v.JobVertexID.String() + "_" + strconv.Itoa(int(v.SubtaskIndex))
}

// MarshalText returns String's form.
func (v ExecutionVertexID) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// ExecutionAttemptID names one attempt of a subtask within one execution
// graph (one JobMaster incarnation).
type ExecutionAttemptID struct {
	ExecutionGraphID ID
	Vertex           ExecutionVertexID
	AttemptNumber    int32
}

// String returns "<graph id>_<job vertex id>_<subtask>_<attempt>", as
// Flink prints it.
func (a ExecutionAttemptID) String() string {
	return a.ExecutionGraphID.String() + "_" + a.Vertex.String() + "_" + strconv.Itoa(int(a.AttemptNumber))
}

// MarshalText returns String's form.
func (a ExecutionAttemptID) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// PartitionID is an IntermediateResultPartitionID: partition PartitionNum
// (the producer subtask) of a dataset.
type PartitionID struct {
	DataSetID    ID
	PartitionNum int32
}

// String returns "<dataset id>#<partition>", as Flink prints it.
func (p PartitionID) String() string {
	return p.DataSetID.String() + "#" + strconv.Itoa(int(p.PartitionNum))
}

// MarshalText returns String's form.
func (p PartitionID) MarshalText() ([]byte, error) { return []byte(p.String()), nil }
