package format

import (
	"fmt"
	"time"
)

// Kind names an event kind. The string values are part of the format: they
// are written as the "kind" field of canonical JSONL and as the kind column
// of a Parquet segment.
type Kind string

// The nine event kinds (docs/format.md).
const (
	KindJobSubmitted      Kind = "job_submitted"
	KindMasterStarted     Kind = "master_started"
	KindVertexInitialized Kind = "vertex_initialized"
	KindSubtaskStarted    Kind = "subtask_started"
	KindSubtaskFinished   Kind = "subtask_finished"
	KindSubtaskFailed     Kind = "subtask_failed"
	KindSubtasksReset     Kind = "subtasks_reset"
	KindSnapshot          Kind = "snapshot"
	KindJobFinished       Kind = "job_finished"
)

// FlinkMasterPrefix starts the master of every master_started event of a
// log read from Flink's job-events (each JobMaster incarnation is named
// "flink-jobmaster <ExecutionGraphID>"), and so of a log imported from
// one. A log whose masters are Flink's is planned with Flink's rule.
const FlinkMasterPrefix = "flink-jobmaster"

// IsFlinkMaster reports whether master names a Flink JobMaster.
func IsFlinkMaster(master string) bool {
	return len(master) >= len(FlinkMasterPrefix) && master[:len(FlinkMasterPrefix)] == FlinkMasterPrefix
}

// Kinds lists every kind in the order of the design's table.
var Kinds = []Kind{
	KindJobSubmitted, KindMasterStarted, KindVertexInitialized,
	KindSubtaskStarted, KindSubtaskFinished, KindSubtaskFailed,
	KindSubtasksReset, KindSnapshot, KindJobFinished,
}

// Valid reports whether k is one of the nine kinds.
func (k Kind) Valid() bool {
	for _, known := range Kinds {
		if k == known {
			return true
		}
	}
	return false
}

// Coordinator kinds of a vertex. The string values are part of the format.
const (
	CoordinatorNone            = "none"
	CoordinatorBatchSnapshot   = "batch_snapshot"
	CoordinatorNoBatchSnapshot = "no_batch_snapshot"
)

// Edge patterns. The string values are part of the format.
const (
	PatternPointwise = "pointwise"
	PatternAllToAll  = "all_to_all"
)

// Job statuses of job_finished. The string values are part of the format.
const (
	StatusFinished = "finished"
	StatusFailed   = "failed"
	StatusCanceled = "canceled"
)

// ReasonRecovery is the reason a recovering master gives in the
// subtasks_reset event that records the resets its plan decided.
const ReasonRecovery = "recovery"

// Event is one state change of a job. It is a flat, sparse record: the
// common fields are always set, and only the fields that belong to Kind are
// meaningful (docs/format.md). Codecs write exactly the fields of the kind.
type Event struct {
	Seq   int64     // 1-based, +1 per event across the whole log
	Time  time.Time // UTC, nanosecond precision
	Epoch int32     // master attempt, 1-based
	Kind  Kind
	Job   string

	// job_submitted
	Graph *Graph

	// master_started
	Master     string
	Recovering bool

	// vertex_initialized, subtask_started, subtask_finished, subtask_failed
	Vertex      string
	Subtask     int32
	Parallelism int32 // vertex_initialized
	Attempt     int32 // 0-based
	Worker      string

	// subtask_finished
	RecordsIn  int64
	RecordsOut int64
	BytesIn    int64
	BytesOut   int64
	// Partitions lists the result partitions of a finished attempt. Nil
	// means absent: one partition per out-edge, stored on Worker. A non-nil
	// empty slice means the attempt produced none.
	Partitions []Partition

	// subtask_failed, job_finished: empty when there is none.
	Error string

	// subtasks_reset
	Subtasks []SubtaskRef
	Reason   string

	// snapshot: opaque coordinator state by vertex id.
	Coordinators map[string][]byte

	// job_finished
	Status string
}

// Graph is the job graph recorded by job_submitted.
type Graph struct {
	Vertices []Vertex
	Edges    []Edge
	// Ranges lists, for the edges whose consumed ranges are not what
	// their Pattern computes (Flink 2.x balances pointwise ranges by
	// bytes), the producer subtasks each consumer subtask reads: every
	// consumer subtask of such an edge has one or more rows. Nil for
	// jobevent's own jobs.
	Ranges []Range
	// Datasets declares datasets by their producer (Flink's
	// IntermediateDataSets), for those whose consumers the graph may not
	// name: a dataset no edge reads is consumed by vertices not yet known,
	// so its partitions are always needed. An edge's Dataset need not be
	// declared here. Nil for jobevent's own jobs.
	Datasets []Dataset
}

// Dataset is the output of one producer vertex that one or more consumer
// vertices read (Flink's IntermediateDataSet).
type Dataset struct {
	ID       string
	Producer string // vertex id
}

// Vertex is one vertex of the job graph.
type Vertex struct {
	ID       string
	Operator string
	// Parallelism is the configured parallelism; 0 means decided at run
	// time (auto), bounded by MaxParallelism.
	Parallelism    int32
	MaxParallelism int32
	// Coordinator is CoordinatorNone, CoordinatorBatchSnapshot or
	// CoordinatorNoBatchSnapshot.
	Coordinator string
}

// Edge connects a producer vertex to a consumer vertex.
type Edge struct {
	From    string
	To      string
	Pattern string // PatternPointwise or PatternAllToAll
	// Dataset names the dataset the edge reads. Edges with one From and
	// one Dataset read the same partitions: one per producer subtask,
	// needed while a consumer subtask of any of them will run. Empty: the
	// edge reads a dataset of its own, as every edge of jobevent's jobs.
	Dataset string
}

// Range says that consumer subtask Subtask of edge Edge (an index into
// Graph.Edges) reads producer subtasks First to Last, both included.
type Range struct {
	Edge    int32
	Subtask int32
	First   int32
	Last    int32
}

// Partition describes one result partition of a finished attempt.
type Partition struct {
	Consumer string // consumer vertex id
	Bytes    int64
	Records  int64
}

// SubtaskRef names one subtask of a vertex.
type SubtaskRef struct {
	Vertex  string
	Subtask int32
}

// String returns "vertex/subtask".
func (r SubtaskRef) String() string { return fmt.Sprintf("%s/%d", r.Vertex, r.Subtask) }

// Vertex returns the vertex with the given id, or nil when the graph has none.
func (g *Graph) Vertex(id string) *Vertex {
	if g == nil {
		return nil
	}
	for i := range g.Vertices {
		if g.Vertices[i].ID == id {
			return &g.Vertices[i]
		}
	}
	return nil
}

// Notice is something a reader of a log passed over or noticed without
// failing: a torn tail segment, rows of a fenced master, an object whose
// name is not part of the layout. Readers report notices; replay ignores
// them and validate turns them into findings.
type Notice struct {
	Kind    NoticeKind
	Key     string // object key, when known
	Seq     int64  // first seq concerned, when known
	Epoch   int32  // epoch concerned, when known
	Count   int64  // rows concerned, when it applies
	Message string
	Line    int // line (from 1) of a text log where it begins; 0 when unknown
}

// NoticeKind classifies a Notice.
type NoticeKind string

// The notice kinds.
const (
	NoticeTornTail      NoticeKind = "torn_tail"      // newest segment of an epoch unreadable
	NoticeFenced        NoticeKind = "fenced"         // rows written by a fenced master, filtered
	NoticeUnknownObject NoticeKind = "unknown_object" // name not part of the layout, skipped
	NoticeCovered       NoticeKind = "covered"        // segment covered by a compacted one, skipped
)

// String returns "key: message", or the message alone when the key is
// unknown.
func (n Notice) String() string {
	if n.Key != "" {
		return fmt.Sprintf("%s: %s", n.Key, n.Message)
	}
	return n.Message
}
