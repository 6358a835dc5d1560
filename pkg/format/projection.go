package format

import (
	"fmt"
	"strings"
)

// Fields is a set of event fields: the projection a SegmentReader decodes
// (SegmentReader.Project). Reading only the fields a command needs skips
// the other columns of a segment without decompressing them.
type Fields uint32

// The fields of an event, one bit each: the common fields, then the
// kind-specific fields in the order of the event table.
const (
	FieldSeq Fields = 1 << iota
	FieldTime
	FieldEpoch
	FieldKind
	FieldJob
	FieldGraph
	FieldMaster
	FieldRecovering
	FieldVertex
	FieldSubtask
	FieldParallelism
	FieldAttempt
	FieldWorker
	FieldRecordsIn
	FieldRecordsOut
	FieldBytesIn
	FieldBytesOut
	FieldPartitions
	FieldError
	FieldSubtasks
	FieldReason
	FieldCoordinators
	FieldStatus

	// AllFields is every field: what a SegmentReader decodes unless told
	// otherwise.
	AllFields = FieldStatus<<1 - 1
)

// commonFields is how many fields precede the kind-specific ones in
// Fields.
const commonFields = 5

// has reports whether the kind-specific field f is in fs.
func (fs Fields) has(f field) bool { return fs&(1<<(commonFields+f)) != 0 }

// fieldsNames are the snake_case names of the bits of Fields, in order.
var fieldsNames = func() []string {
	names := []string{"seq", "time", "epoch", "kind", "job"}
	for f := range numFields {
		names = append(names, fieldNames[f])
	}
	return names
}()

// ParseFields returns the set of the fields named (snake_case, as in
// canonical JSONL and the segment's columns). An unknown name is an error
// naming it.
func ParseFields(names ...string) (Fields, error) {
	var fs Fields
	for _, name := range names {
		i := indexOf(fieldsNames, strings.TrimSpace(name))
		if i < 0 {
			return 0, fmt.Errorf("format: unknown event field %q (want one of %s)", name, strings.Join(fieldsNames, ", "))
		}
		fs |= 1 << i
	}
	return fs, nil
}

func indexOf(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}

// String lists the fields of fs by name, separated by commas.
func (fs Fields) String() string {
	var names []string
	for i, n := range fieldsNames {
		if fs&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	return strings.Join(names, ",")
}

// columnField is the field each leaf column belongs to.
var columnField = [numColumns]Fields{
	colSeq: FieldSeq, colTime: FieldTime, colEpoch: FieldEpoch, colKind: FieldKind, colJob: FieldJob,
	colVertexID: FieldGraph, colVertexOperator: FieldGraph, colVertexParallelism: FieldGraph,
	colVertexMaxParallelism: FieldGraph, colVertexCoordinator: FieldGraph,
	colEdgeFrom: FieldGraph, colEdgeTo: FieldGraph, colEdgePattern: FieldGraph, colEdgeDataset: FieldGraph,
	colRangeEdge: FieldGraph, colRangeSubtask: FieldGraph, colRangeFirst: FieldGraph, colRangeLast: FieldGraph,
	colDatasetID: FieldGraph, colDatasetProducer: FieldGraph,
	colMaster: FieldMaster, colRecovering: FieldRecovering,
	colVertex: FieldVertex, colSubtask: FieldSubtask, colParallelism: FieldParallelism,
	colAttempt: FieldAttempt, colWorker: FieldWorker,
	colRecordsIn: FieldRecordsIn, colRecordsOut: FieldRecordsOut, colBytesIn: FieldBytesIn, colBytesOut: FieldBytesOut,
	colPartitionConsumer: FieldPartitions, colPartitionBytes: FieldPartitions, colPartitionRecords: FieldPartitions,
	colError: FieldError, colSubtasksVertex: FieldSubtasks, colSubtasksSubtask: FieldSubtasks, colReason: FieldReason,
	colCoordinatorsVertex: FieldCoordinators, colCoordinatorsState: FieldCoordinators, colStatus: FieldStatus,
}

// Project makes the reader decode only the fields in fs, plus seq, which
// it always decodes (errors name it); their columns alone are read. With
// FieldKind, each column read is checked against the kinds that have it,
// as in a full decode; without it, there is no kind to check against (the
// segment's checksum was verified all the same).
// Read then writes only those fields of the events in its buffer and
// leaves the others as they are: zero in a new buffer, and in one only
// ever read into with the same projection, as a caller reusing its
// buffer does. It must
// be called before the first Read or Next; later calls do nothing. The
// whole segment's checksum was verified by OpenSegment whatever the
// projection.
func (r *SegmentReader) Project(fs Fields) {
	if r.decoder.rowGroup > 0 || r.err != nil {
		return
	}
	r.decoder.fields = fs | FieldSeq
}

// Project returns e with the fields outside fs zeroed, seq kept: the
// event as a SegmentReader projected on fs reads it.
func (e Event) Project(fs Fields) Event {
	p := Event{Seq: e.Seq}
	if fs&FieldKind != 0 {
		p.Kind = e.Kind
	}
	pick := func(f Fields, set func()) {
		if fs&f != 0 {
			set()
		}
	}
	pick(FieldTime, func() { p.Time = e.Time })
	pick(FieldEpoch, func() { p.Epoch = e.Epoch })
	pick(FieldJob, func() { p.Job = e.Job })
	pick(FieldGraph, func() { p.Graph = e.Graph })
	pick(FieldMaster, func() { p.Master = e.Master })
	pick(FieldRecovering, func() { p.Recovering = e.Recovering })
	pick(FieldVertex, func() { p.Vertex = e.Vertex })
	pick(FieldSubtask, func() { p.Subtask = e.Subtask })
	pick(FieldParallelism, func() { p.Parallelism = e.Parallelism })
	pick(FieldAttempt, func() { p.Attempt = e.Attempt })
	pick(FieldWorker, func() { p.Worker = e.Worker })
	pick(FieldRecordsIn, func() { p.RecordsIn = e.RecordsIn })
	pick(FieldRecordsOut, func() { p.RecordsOut = e.RecordsOut })
	pick(FieldBytesIn, func() { p.BytesIn = e.BytesIn })
	pick(FieldBytesOut, func() { p.BytesOut = e.BytesOut })
	pick(FieldPartitions, func() { p.Partitions = e.Partitions })
	pick(FieldError, func() { p.Error = e.Error })
	pick(FieldSubtasks, func() { p.Subtasks = e.Subtasks })
	pick(FieldReason, func() { p.Reason = e.Reason })
	pick(FieldCoordinators, func() { p.Coordinators = e.Coordinators })
	pick(FieldStatus, func() { p.Status = e.Status })
	return p
}
