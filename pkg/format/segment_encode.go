package format

import (
	"bytes"
	"fmt"
	"io"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// The encoder writes a batch of events column by column through the
// writer's column writers, building each column's values (with their
// repetition and definition levels) directly from the events: no
// reflection and no intermediate rows.

// writerOptions configure the segment writer: the event schema, zstd, data
// page v1, no statistics in data page headers (superseded by the page
// index), and page bounds (the column index and column chunk min/max) only
// for the columns that readers filter on: seq, time, epoch.
//
// Data page v1 is part of the format since schema version 1.1: its pages
// compress the repetition and definition levels together with the values,
// where v2 (schema 1.0) stores them raw. On a sparse schema whose rows
// alternate between kinds, the levels do not run-length encode well and
// were close to half of a segment's bytes.
//
// Segments of SchemaVersion (and 1.0) are written with baseSchema, those
// of SchemaVersionDatasets with eventSchema (datasetOptions).
var (
	writerOptions  = schemaOptions(baseSchema)
	datasetOptions = schemaOptions(eventSchema)
)

func schemaOptions(schema *parquet.Schema) []parquet.WriterOption {
	opts := []parquet.WriterOption{
		schema,
		parquet.Compression(&zstd.Codec{Level: zstd.SpeedFastest}),
		parquet.DataPageStatistics(false), // the page index has the bounds that matter
		parquet.DataPageVersion(1),
	}
	for _, path := range schema.Columns() {
		switch strings.Join(path, ".") {
		case "seq", "time", "epoch":
		default:
			opts = append(opts, parquet.SkipPageBounds(path...))
		}
	}
	return opts
}

// writesDatasets reports whether events hold a graph that only
// SchemaVersionDatasets can store: edge datasets, ranges or declared
// datasets.
func writesDatasets(events []Event) bool {
	for i := range events {
		g := events[i].Graph
		if g == nil {
			continue
		}
		if len(g.Ranges) > 0 || len(g.Datasets) > 0 {
			return true
		}
		for _, ed := range g.Edges {
			if ed.Dataset != "" {
				return true
			}
		}
	}
	return false
}

// encodeBatch is the number of events encoded at a time (writeBatch).
const encodeBatch = segmentBatch

// rowGroupRows bounds the rows of one row group, so that a large compacted
// segment is split for readers that parallelize by row group.
const rowGroupRows = 128 * 1024

type segmentEncoder struct {
	w         *parquet.Writer
	groupRows int                         // rows per row group
	rows      int                         // rows written to the segment so far
	groupDone bool                        // the last row group is full: flush it before more rows
	cols      [numColumns][]parquet.Value // the values of one batch, by column
	sets      []fieldSet                  // writeLists: the fields of each event of the batch
	keys      []string                    // writeLists: scratch for sorted coordinator keys
	// writer is the index among the writer's column writers of each of
	// our columns, -1 for a column its schema lacks.
	writer [numColumns]int
}

// encoders keeps segment encoders, with their column buffers, for reuse:
// a fresh parquet.Writer per segment allocates its buffers anew.
var encoders = sync.Pool{New: func() any { return newSegmentEncoder(SchemaVersion) }}

// spareEncoder holds one encoder that, unlike those in encoders, survives
// garbage collections: building an encoder costs 1.5-2 ms, which a master
// writing a small segment after each collection would otherwise pay on
// every flush.
var spareEncoder atomic.Pointer[segmentEncoder]

func getEncoder() *segmentEncoder {
	if enc := spareEncoder.Swap(nil); enc != nil {
		return enc
	}
	return encoders.Get().(*segmentEncoder)
}

func putEncoder(enc *segmentEncoder) {
	if !spareEncoder.CompareAndSwap(nil, enc) {
		encoders.Put(enc)
	}
}

func newSegmentEncoder(version string, extra ...parquet.WriterOption) *segmentEncoder {
	base, schema := writerOptions, baseSchema
	if _, minor, _ := strings.Cut(version, "."); minor != "0" && minor != "1" {
		base, schema = datasetOptions, eventSchema // 1.2 and later hold the dataset columns
	}
	opts := append(base[:len(base):len(base)],
		parquet.KeyValueMetadata(SchemaVersionKey, version),
		parquet.KeyValueMetadata(ChecksumKey, checksumPlaceholder),
	)
	opts = append(opts, extra...)
	enc := &segmentEncoder{w: parquet.NewWriter(io.Discard, opts...), groupRows: rowGroupRows}
	for col := range numColumns {
		enc.writer[col] = -1
		if leaf, ok := schema.Lookup(strings.Split(columnPaths[col], ".")...); ok {
			enc.writer[col] = leaf.ColumnIndex
		}
	}
	return enc
}

// encodeSegment writes events as a segment whose footer holds version and
// the checksum placeholder; extra writer options are for tests.
func encodeSegment(buf *bytes.Buffer, events []Event, version string, extra ...parquet.WriterOption) error {
	return encodeSegmentGroups(buf, events, version, rowGroupRows, extra...)
}

func encodeSegmentGroups(buf *bytes.Buffer, events []Event, version string, groupRows int, extra ...parquet.WriterOption) error {
	if version == SchemaVersion && writesDatasets(events) {
		version = SchemaVersionDatasets
	}
	if version != SchemaVersion || len(extra) > 0 || groupRows != rowGroupRows {
		enc := newSegmentEncoder(version, extra...)
		enc.groupRows = groupRows
		return enc.encode(buf, events)
	}
	enc := getEncoder()
	if err := enc.encode(buf, events); err != nil {
		return err // enc is dropped: its writer may hold a partial file
	}
	putEncoder(enc)
	return nil
}

// encode writes one segment to buf and leaves enc ready for the next.
func (enc *segmentEncoder) encode(buf *bytes.Buffer, events []Event) error {
	enc.begin(buf)
	if err := enc.write(events); err != nil {
		return err
	}
	return enc.finish()
}

// begin starts a segment written to buf.
func (enc *segmentEncoder) begin(buf *bytes.Buffer) {
	enc.w.Reset(buf)
	enc.rows, enc.groupDone = 0, false
}

// write encodes the segment's next events, ending a row group every
// groupRows rows: the previous call's last group is flushed only when
// more rows follow, so a segment of exactly groupRows rows is one group.
// Batches start every encodeBatch rows from a group's start, so a caller
// that writes a segment in several calls must make each but the last a
// multiple of encodeBatch rows for the same bytes.
func (enc *segmentEncoder) write(events []Event) error {
	return enc.writeGroups(events, enc.writeGroup, nil)
}

// writeGroups is write with group writing each row group's share of the
// events; sync, unless nil, is called before a full row group is flushed.
func (enc *segmentEncoder) writeGroups(events []Event, group func([]Event) error, sync func() error) error {
	for len(events) > 0 {
		if enc.groupDone {
			if sync != nil {
				if err := sync(); err != nil {
					return err
				}
			}
			if err := enc.w.Flush(); err != nil {
				return fmt.Errorf("format: encode segment: %w", err)
			}
			enc.groupDone = false
		}
		n := min(len(events), enc.groupRows-enc.rows%enc.groupRows)
		if err := group(events[:n]); err != nil {
			return fmt.Errorf("format: encode segment: %w", err)
		}
		enc.rows += n
		enc.groupDone = enc.rows%enc.groupRows == 0
		events = events[n:]
	}
	return nil
}

// finish ends the segment and leaves enc ready for the next.
func (enc *segmentEncoder) finish() error {
	if err := enc.w.Close(); err != nil {
		return fmt.Errorf("format: encode segment: %w", err)
	}
	detachColumnPaths(enc.w)
	enc.w.Reset(io.Discard)
	return nil
}

// detachColumnPaths works around parquet-go v0.32.0's Writer.Reset, which
// clears the path_in_schema of the previous file's column chunks in place:
// those slices share their backing array with the column writers' own
// paths, so every file after the first would be written with empty
// path_in_schema strings (DuckDB tolerates that; other readers need not).
// Dropping the references before Reset leaves the paths intact.
// TestEncodeSegment_ReusedEncoder holds this.
func detachColumnPaths(w *parquet.Writer) {
	file := w.File()
	if file == nil {
		return
	}
	md := file.Metadata()
	for i := range md.RowGroups {
		for j := range md.RowGroups[i].Columns {
			md.RowGroups[i].Columns[j].MetaData.PathInSchema = nil
		}
	}
}

// concurrentEvents is the fewest events of a row group that writeGroup
// encodes on two goroutines; below it, the handoff costs more than it
// saves.
const concurrentEvents = 4 * encodeBatch

// writeGroup writes the events of one row group: the columns that hold
// one value per event (writeFlat) and the list columns (writeLists). The
// two sets of columns share no column writer and no scratch, and each
// column gets the same batches either way, so its pages are the same
// bytes whether the sets are written one after the other or, for a large
// group when more than one CPU may run Go code, concurrently; the costs of
// the two sets are about even. An error of writeFlat wins: the only error
// of writeLists, an unknown kind, is writeFlat's too, at the same event or
// after an earlier one.
func (enc *segmentEncoder) writeGroup(events []Event) error {
	if len(events) < concurrentEvents || goruntime.GOMAXPROCS(0) < 2 {
		if err := enc.writeFlat(events); err != nil {
			return err
		}
		return enc.writeLists(events)
	}
	lists := make(chan error, 1)
	go func() { lists <- enc.writeLists(events) }()
	err := enc.writeFlat(events)
	if lerr := <-lists; err == nil {
		err = lerr
	}
	return err
}

// writeFlat writes the required and flat optional columns of events, a
// batch at a time: one pass over a batch's events sets the columns'
// values, then each column goes to its column writer.
func (enc *segmentEncoder) writeFlat(events []Event) error {
	for start := 0; start < len(events); start += encodeBatch {
		batch := events[start:min(start+encodeBatch, len(events))]
		n := len(batch)
		for _, col := range commonColumns {
			enc.cols[col] = resize(enc.cols[col], n)
		}
		for _, col := range flatColumns {
			enc.cols[col] = resize(enc.cols[col], n)
			clear(enc.cols[col]) // NULL, until an event sets it
		}
		for i := range batch {
			if err := enc.setEvent(i, &batch[i]); err != nil {
				return err
			}
		}
		if err := enc.writeColumns(commonColumns[:]); err != nil {
			return err
		}
		if err := enc.writeColumns(flatColumns[:]); err != nil {
			return err
		}
	}
	return nil
}

// writeLists writes the list columns of events, a batch at a time: one
// pass per list that any event of the batch has appends its elements (a
// list no event has is NULL in every row), then each column goes to its
// column writer.
func (enc *segmentEncoder) writeLists(events []Event) error {
	for start := 0; start < len(events); start += encodeBatch {
		batch := events[start:min(start+encodeBatch, len(events))]
		n := len(batch)
		enc.sets = enc.sets[:0]
		var present fieldSet // the fields of any event of the batch
		for i := range batch {
			set, ok := batch[i].Kind.fieldSet()
			if !ok {
				return fmt.Errorf("seq %d: unknown kind %q", batch[i].Seq, batch[i].Kind)
			}
			enc.sets = append(enc.sets, set)
			present |= set
		}
		for _, g := range listGroups {
			if enc.writer[g.cols[0]] < 0 {
				continue // not in this segment's schema
			}
			if !present.has(g.f) { // NULL in every row
				for _, col := range g.cols {
					enc.cols[col] = resize(enc.cols[col], n)
					clear(enc.cols[col])
				}
			} else {
				for _, col := range g.cols {
					enc.cols[col] = enc.cols[col][:0]
				}
				for i := range batch {
					enc.appendList(&batch[i], enc.sets[i], g.f, g.cols)
				}
			}
			if err := enc.writeColumns(g.cols); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeColumns hands the batch's values of cols to their column writers.
func (enc *segmentEncoder) writeColumns(cols []int) error {
	writers := enc.w.ColumnWriters()
	for _, col := range cols {
		if enc.writer[col] < 0 {
			continue
		}
		if _, err := writers[enc.writer[col]].WriteRowValues(enc.cols[col]); err != nil {
			return fmt.Errorf("column %s: %w", columnPaths[col], err)
		}
	}
	return nil
}

// resize returns vs with length n, reusing its array when it is large
// enough.
func resize(vs []parquet.Value, n int) []parquet.Value {
	if cap(vs) < n {
		return make([]parquet.Value, n)
	}
	return vs[:n]
}

// commonColumns are the required columns, one value per event.
var commonColumns = [...]int{colSeq, colTime, colEpoch, colKind, colJob}

// flatColumns are the optional columns that hold one value per event.
var flatColumns = [...]int{colMaster, colRecovering, colVertex, colSubtask, colParallelism,
	colAttempt, colWorker, colRecordsIn, colRecordsOut, colBytesIn, colBytesOut, colError,
	colReason, colStatus}

// kindFlatColumns maps each kind's field set to the flat columns of its
// fields: the columns an event of the kind sets.
var kindFlatColumns = func() []kindColumns {
	var out []kindColumns
	for _, k := range Kinds {
		set, _ := k.fieldSet()
		kc := kindColumns{set: set}
		for _, col := range flatColumns {
			if set.has(columnFields[col]) {
				kc.cols = append(kc.cols, col)
			}
		}
		out = append(out, kc)
	}
	return out
}()

type kindColumns struct {
	set  fieldSet
	cols []int
}

// flatColumnsOf returns the flat columns of the fields in set.
func flatColumnsOf(set fieldSet) []int {
	for i := range kindFlatColumns {
		if kindFlatColumns[i].set == set {
			return kindFlatColumns[i].cols
		}
	}
	panic(fmt.Sprintf("format: field set %b is no kind's", set))
}

// listGroups are the leaf columns of each list of groups, with its field.
var listGroups = [...]struct {
	f    field
	cols []int
}{
	{fieldGraph, vertexCols}, {fieldGraph, edgeCols}, {fieldGraph, rangeCols}, {fieldGraph, datasetCols},
	{fieldPartitions, partitionCols},
	{fieldSubtasks, subtaskCols}, {fieldCoordinators, coordinatorCols},
}

// setEvent sets row i of the batch's required and flat optional columns
// to e (the flat optional columns are NULL until set). Values are built
// with repetition level 0 and definition level 0 (NULL); only the levels
// that differ are set. Column writers do not read the values' column
// index.
func (enc *segmentEncoder) setEvent(i int, e *Event) error {
	set, ok := e.Kind.fieldSet()
	if !ok {
		return fmt.Errorf("seq %d: unknown kind %q", e.Seq, e.Kind)
	}
	ns, err := timeNanos(e.Time)
	if err != nil {
		return fmt.Errorf("seq %d: %w", e.Seq, err)
	}
	c := &enc.cols
	c[colSeq][i] = parquet.Int64Value(e.Seq)
	c[colTime][i] = parquet.Int64Value(ns)
	c[colEpoch][i] = parquet.Int32Value(e.Epoch)
	c[colKind][i] = strValue(string(e.Kind))
	c[colJob][i] = strValue(e.Job)
	for _, col := range flatColumnsOf(set) {
		// Set in place: a value returned by a call is stored to the stack
		// piecewise and copied with wide loads, which wait on those
		// narrow stores (a failed store forwarding): that was most of
		// setEvent's time.
		v := &c[col][i]
		setFlat(v, e, col)
		v.SetDefinitionLevel(1)
	}
	return nil
}

// appendList appends e's elements of one list of groups to its columns:
// NULL, an empty list, or one value per element and column.
func (enc *segmentEncoder) appendList(e *Event, set fieldSet, f field, cols []int) {
	c := &enc.cols
	n := -1
	if set.has(f) {
		n = listCount(e, cols[0])
	}
	switch {
	case n < 0:
		for _, col := range cols {
			c[col] = append(c[col], parquet.Value{})
		}
		return
	case n == 0:
		var empty parquet.Value
		empty.SetDefinitionLevel(defEmpty)
		for _, col := range cols {
			c[col] = append(c[col], empty)
		}
		return
	}
	if f == fieldCoordinators {
		enc.keys = sortedKeysInto(enc.keys[:0], e.Coordinators)
	}
	for _, col := range cols {
		for j := range n {
			c[col] = append(c[col], parquet.Value{})
			v := &c[col][len(c[col])-1]
			enc.setList(v, e, col, j)
			v.SetDefinitionLevel(defElement)
			if j > 0 {
				v.SetRepetitionLevel(1)
			}
		}
	}
}

// stringBytes views s as bytes without copying; parquet-go copies values it
// keeps and never writes to them.
func stringBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

func strValue(s string) parquet.Value { return parquet.ByteArrayValue(stringBytes(s)) }

// columnFields maps each flat column to its field; the common columns map
// to noField.
var columnFields = [numColumns]field{
	colSeq: noField, colTime: noField, colEpoch: noField, colKind: noField, colJob: noField,
	colMaster: fieldMaster, colRecovering: fieldRecovering, colVertex: fieldVertex,
	colSubtask: fieldSubtask, colParallelism: fieldParallelism, colAttempt: fieldAttempt,
	colWorker: fieldWorker, colRecordsIn: fieldRecordsIn, colRecordsOut: fieldRecordsOut,
	colBytesIn: fieldBytesIn, colBytesOut: fieldBytesOut, colError: fieldError,
	colReason: fieldReason, colStatus: fieldStatus,
	colVertexID: fieldGraph, colVertexOperator: fieldGraph, colVertexParallelism: fieldGraph,
	colVertexMaxParallelism: fieldGraph, colVertexCoordinator: fieldGraph,
	colEdgeFrom: fieldGraph, colEdgeTo: fieldGraph, colEdgePattern: fieldGraph, colEdgeDataset: fieldGraph,
	colRangeEdge: fieldGraph, colRangeSubtask: fieldGraph, colRangeFirst: fieldGraph, colRangeLast: fieldGraph,
	colDatasetID: fieldGraph, colDatasetProducer: fieldGraph,
	colPartitionConsumer: fieldPartitions, colPartitionBytes: fieldPartitions, colPartitionRecords: fieldPartitions,
	colSubtasksVertex: fieldSubtasks, colSubtasksSubtask: fieldSubtasks,
	colCoordinatorsVertex: fieldCoordinators, colCoordinatorsState: fieldCoordinators,
}

const noField = numFields

// setFlat sets *v to the value of flat column col for e. It writes *v in
// place rather than returning it: see setEvent.
func setFlat(v *parquet.Value, e *Event, col int) {
	switch col {
	case colSeq:
		*v = parquet.Int64Value(e.Seq)
	case colEpoch:
		*v = parquet.Int32Value(e.Epoch)
	case colKind:
		*v = strValue(string(e.Kind))
	case colJob:
		*v = strValue(e.Job)
	case colMaster:
		*v = strValue(e.Master)
	case colRecovering:
		*v = parquet.BooleanValue(e.Recovering)
	case colVertex:
		*v = strValue(e.Vertex)
	case colSubtask:
		*v = parquet.Int32Value(e.Subtask)
	case colParallelism:
		*v = parquet.Int32Value(e.Parallelism)
	case colAttempt:
		*v = parquet.Int32Value(e.Attempt)
	case colWorker:
		*v = strValue(e.Worker)
	case colRecordsIn:
		*v = parquet.Int64Value(e.RecordsIn)
	case colRecordsOut:
		*v = parquet.Int64Value(e.RecordsOut)
	case colBytesIn:
		*v = parquet.Int64Value(e.BytesIn)
	case colBytesOut:
		*v = parquet.Int64Value(e.BytesOut)
	case colError:
		*v = strValue(e.Error)
	case colReason:
		*v = strValue(e.Reason)
	case colStatus:
		*v = strValue(e.Status)
	default:
		panic(fmt.Sprintf("format: column %d is not flat", col))
	}
}

// listCount returns the number of elements of the list that column col
// belongs to, -1 for NULL.
func listCount(e *Event, col int) int {
	switch columnFields[col] {
	case fieldGraph:
		switch {
		case e.Graph == nil:
			return 0
		case col <= colVertexCoordinator:
			return len(e.Graph.Vertices)
		case col <= colEdgeDataset:
			return len(e.Graph.Edges)
		case col <= colRangeLast:
			return len(e.Graph.Ranges)
		default:
			return len(e.Graph.Datasets)
		}
	case fieldPartitions:
		if e.Partitions == nil {
			return -1
		}
		return len(e.Partitions)
	case fieldSubtasks:
		return len(e.Subtasks)
	case fieldCoordinators:
		return len(e.Coordinators)
	}
	panic(fmt.Sprintf("format: column %d is not a list", col))
}

// setList sets *v to element j of column col for e, from enc's scratch of
// e's sorted coordinator keys, in place (see setEvent).
func (enc *segmentEncoder) setList(v *parquet.Value, e *Event, col, j int) {
	keys := enc.keys
	switch col {
	case colEdgeDataset:
		*v = strValue(e.Graph.Edges[j].Dataset)
	case colRangeEdge:
		*v = parquet.Int32Value(e.Graph.Ranges[j].Edge)
	case colRangeSubtask:
		*v = parquet.Int32Value(e.Graph.Ranges[j].Subtask)
	case colRangeFirst:
		*v = parquet.Int32Value(e.Graph.Ranges[j].First)
	case colRangeLast:
		*v = parquet.Int32Value(e.Graph.Ranges[j].Last)
	case colDatasetID:
		*v = strValue(e.Graph.Datasets[j].ID)
	case colDatasetProducer:
		*v = strValue(e.Graph.Datasets[j].Producer)
	case colVertexID:
		*v = strValue(e.Graph.Vertices[j].ID)
	case colVertexOperator:
		*v = strValue(e.Graph.Vertices[j].Operator)
	case colVertexParallelism:
		*v = parquet.Int32Value(e.Graph.Vertices[j].Parallelism)
	case colVertexMaxParallelism:
		*v = parquet.Int32Value(e.Graph.Vertices[j].MaxParallelism)
	case colVertexCoordinator:
		*v = strValue(coordinatorOrDefault(e.Graph.Vertices[j].Coordinator))
	case colEdgeFrom:
		*v = strValue(e.Graph.Edges[j].From)
	case colEdgeTo:
		*v = strValue(e.Graph.Edges[j].To)
	case colEdgePattern:
		*v = strValue(patternOrDefault(e.Graph.Edges[j].Pattern))
	case colPartitionConsumer:
		*v = strValue(e.Partitions[j].Consumer)
	case colPartitionBytes:
		*v = parquet.Int64Value(e.Partitions[j].Bytes)
	case colPartitionRecords:
		*v = parquet.Int64Value(e.Partitions[j].Records)
	case colSubtasksVertex:
		*v = strValue(e.Subtasks[j].Vertex)
	case colSubtasksSubtask:
		*v = parquet.Int32Value(e.Subtasks[j].Subtask)
	case colCoordinatorsVertex:
		*v = strValue(keys[j])
	case colCoordinatorsState:
		state := e.Coordinators[keys[j]]
		if state == nil {
			state = []byte{}
		}
		*v = parquet.ByteArrayValue(state)
	default:
		panic(fmt.Sprintf("format: column %d is not a list", col))
	}
}

func sortedKeysInto(keys []string, m map[string][]byte) []string {
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Definition levels of a list column: 0 is a NULL list (or, for the graph
// columns, a NULL graph), 1 an empty list, 2 an element.
const (
	defEmpty   = 1
	defElement = 2
)
