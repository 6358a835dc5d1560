package format

import (
	"fmt"
	"math"
	"time"

	"github.com/parquet-go/parquet-go"
)

// row defines the segment schema: one event per row. The column names,
// types and encodings in its tags are part of the format (docs/format.md):
// common columns are required; a kind-specific column is non-NULL exactly
// for the kinds that have the field, zero values included. No row value is
// ever built: the encoder and decoder work column by column
// (segment_encode.go, segment_decode.go).
type row struct {
	Seq   int64  `parquet:"seq,delta"`
	Time  int64  `parquet:"time,delta,timestamp(nanosecond)"`
	Epoch int32  `parquet:"epoch,delta"`
	Kind  string `parquet:"kind,dict"`
	Job   string `parquet:"job,dict"`

	Graph *graphRow `parquet:"graph,optional"`

	Master     *string `parquet:"master,optional,dict,uncompressed"`
	Recovering *bool   `parquet:"recovering,optional,uncompressed"`

	Vertex      *string `parquet:"vertex,optional,dict"`
	Subtask     int32   `parquet:"subtask,delta,optional"`
	Parallelism *int32  `parquet:"parallelism,optional,uncompressed"`
	Attempt     int32   `parquet:"attempt,delta,optional"`
	Worker      *string `parquet:"worker,optional,dict"`

	RecordsIn  int64          `parquet:"records_in,delta,optional"`
	RecordsOut int64          `parquet:"records_out,delta,optional"`
	BytesIn    int64          `parquet:"bytes_in,delta,optional"`
	BytesOut   int64          `parquet:"bytes_out,delta,optional"`
	Partitions []partitionRow `parquet:"partitions,optional,list"`

	Error *string `parquet:"error,optional,dict,uncompressed"`

	Subtasks []subtaskRow `parquet:"subtasks,optional,list"`
	Reason   *string      `parquet:"reason,optional,dict,uncompressed"`

	Coordinators []coordinatorRow `parquet:"coordinators,optional,list"`

	Status *string `parquet:"status,optional,dict,uncompressed"`
}

type graphRow struct {
	Vertices []vertexRow  `parquet:"vertices,list"`
	Edges    []edgeRow    `parquet:"edges,list"`
	Ranges   []rangeRow   `parquet:"ranges,list"`   // since 1.2
	Datasets []datasetRow `parquet:"datasets,list"` // since 1.2
}

type vertexRow struct {
	ID             string `parquet:"id,dict,uncompressed"`
	Operator       string `parquet:"operator,dict,uncompressed"`
	Parallelism    int32  `parquet:"parallelism,uncompressed"`
	MaxParallelism int32  `parquet:"max_parallelism,uncompressed"`
	Coordinator    string `parquet:"coordinator,dict,uncompressed"`
}

type edgeRow struct {
	From    string `parquet:"from,dict,uncompressed"`
	To      string `parquet:"to,dict,uncompressed"`
	Pattern string `parquet:"pattern,dict,uncompressed"`
	Dataset string `parquet:"dataset,dict,uncompressed"` // since 1.2; "" for none
}

type rangeRow struct {
	Edge    int32 `parquet:"edge,uncompressed"`
	Subtask int32 `parquet:"subtask,uncompressed"`
	First   int32 `parquet:"first,uncompressed"`
	Last    int32 `parquet:"last,uncompressed"`
}

type datasetRow struct {
	ID       string `parquet:"id,dict,uncompressed"`
	Producer string `parquet:"producer,dict,uncompressed"`
}

type partitionRow struct {
	Consumer string `parquet:"consumer,dict"`
	Bytes    int64  `parquet:"bytes,delta"`
	Records  int64  `parquet:"records,delta"`
}

type subtaskRow struct {
	Vertex  string `parquet:"vertex,dict,uncompressed"`
	Subtask int32  `parquet:"subtask,delta,uncompressed"`
}

type coordinatorRow struct {
	Vertex string `parquet:"vertex,dict,uncompressed"`
	State  []byte `parquet:"state"`
}

// Segment time range: nanoseconds since 1970 in an int64.
var (
	minSegmentTime = time.Unix(0, math.MinInt64).UTC()
	maxSegmentTime = time.Unix(0, math.MaxInt64).UTC()
)

// timeNanos converts t for the time column. A zero Time is stored as 0
// (1970-01-01T00:00:00Z).
func timeNanos(t time.Time) (int64, error) {
	if t.IsZero() {
		return 0, nil
	}
	if t.Before(minSegmentTime) || t.After(maxSegmentTime) {
		return 0, fmt.Errorf("time %s: %w", t.UTC().Format(time.RFC3339Nano), ErrTimeRange)
	}
	return t.UnixNano(), nil
}

// eventSchema is the segment schema, derived from row: the schema of
// SchemaVersionDatasets, the newest, which readers check segments against.
var eventSchema = parquet.SchemaOf(row{})

// baseSchema is the schema of SchemaVersion: eventSchema without the
// columns of addedColumns (row11 is row before 1.2).
var baseSchema = parquet.NewSchema(eventSchema.Name(), parquet.SchemaOf(row11{}))

type row11 struct {
	Seq   int64  `parquet:"seq,delta"`
	Time  int64  `parquet:"time,delta,timestamp(nanosecond)"`
	Epoch int32  `parquet:"epoch,delta"`
	Kind  string `parquet:"kind,dict"`
	Job   string `parquet:"job,dict"`

	Graph *graphRow11 `parquet:"graph,optional"`

	Master     *string `parquet:"master,optional,dict,uncompressed"`
	Recovering *bool   `parquet:"recovering,optional,uncompressed"`

	Vertex      *string `parquet:"vertex,optional,dict"`
	Subtask     int32   `parquet:"subtask,delta,optional"`
	Parallelism *int32  `parquet:"parallelism,optional,uncompressed"`
	Attempt     int32   `parquet:"attempt,delta,optional"`
	Worker      *string `parquet:"worker,optional,dict"`

	RecordsIn  int64          `parquet:"records_in,delta,optional"`
	RecordsOut int64          `parquet:"records_out,delta,optional"`
	BytesIn    int64          `parquet:"bytes_in,delta,optional"`
	BytesOut   int64          `parquet:"bytes_out,delta,optional"`
	Partitions []partitionRow `parquet:"partitions,optional,list"`

	Error *string `parquet:"error,optional,dict,uncompressed"`

	Subtasks []subtaskRow `parquet:"subtasks,optional,list"`
	Reason   *string      `parquet:"reason,optional,dict,uncompressed"`

	Coordinators []coordinatorRow `parquet:"coordinators,optional,list"`

	Status *string `parquet:"status,optional,dict,uncompressed"`
}

type graphRow11 struct {
	Vertices []vertexRow `parquet:"vertices,list"`
	Edges    []edgeRow11 `parquet:"edges,list"`
}

type edgeRow11 struct {
	From    string `parquet:"from,dict,uncompressed"`
	To      string `parquet:"to,dict,uncompressed"`
	Pattern string `parquet:"pattern,dict,uncompressed"`
}
