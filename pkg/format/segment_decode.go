package format

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/parquet-go/parquet-go"
)

// The decoder reads a segment column by column, page by page, straight into
// Events: no reflection and no per-row allocation for the common columns.
// Dictionary-encoded strings are decoded once per column chunk.

// leaf columns of the event schema, in schema order.
const (
	colSeq = iota
	colTime
	colEpoch
	colKind
	colJob
	colVertexID
	colVertexOperator
	colVertexParallelism
	colVertexMaxParallelism
	colVertexCoordinator
	colEdgeFrom
	colEdgeTo
	colEdgePattern
	colEdgeDataset
	colRangeEdge
	colRangeSubtask
	colRangeFirst
	colRangeLast
	colDatasetID
	colDatasetProducer
	colMaster
	colRecovering
	colVertex
	colSubtask
	colParallelism
	colAttempt
	colWorker
	colRecordsIn
	colRecordsOut
	colBytesIn
	colBytesOut
	colPartitionConsumer
	colPartitionBytes
	colPartitionRecords
	colError
	colSubtasksVertex
	colSubtasksSubtask
	colReason
	colCoordinatorsVertex
	colCoordinatorsState
	colStatus
	numColumns
)

// columnPaths are the dotted paths of the leaf columns, indexed as above.
var columnPaths = func() [numColumns]string {
	var paths [numColumns]string
	cols := eventSchema.Columns()
	if len(cols) != numColumns {
		panic(fmt.Sprintf("format: event schema has %d columns, want %d", len(cols), numColumns))
	}
	for i, c := range cols {
		paths[i] = strings.Join(c, ".")
	}
	return paths
}()

// corruption is panicked inside the decoder and recovered at its boundary.
type corruption struct{ err error }

func corruptf(format string, args ...any) {
	panic(corruption{fmt.Errorf(format, args...)})
}

// segmentDecoder decodes the row groups of a file in order.
type segmentDecoder struct {
	file  *parquet.File
	cols  [numColumns]colCursor
	index [numColumns]int // the file's column index of each of our columns; -1: absent
	// graphCols, edgeCols are the graph's and its edges' columns that the
	// file has (a segment of schema 1.0 or 1.1 has no edge datasets,
	// ranges or datasets).
	graphCols, edgeCols []int
	ranges, datasets    bool   // the file has the graph's ranges, datasets
	rowGroup            int    // next row group to open
	fields              Fields // the projection: fields decoded
	left                int64  // rows left in the open row group
	// backGroup and backLeft are rowGroup and left for the columns of a
	// split decode's second stage (decodeBack), which opens their row
	// groups itself.
	backGroup int
	backLeft  int64
	sets      []fieldSet
	scratch   scratch
}

func newSegmentDecoder(f *parquet.File) *segmentDecoder {
	d := &segmentDecoder{file: f, sets: make([]fieldSet, segmentBatch), fields: AllFields}
	schema := f.Schema()
	for i := range d.cols {
		c := &d.cols[i]
		c.path = columnPaths[i]
		leaf, ok := schema.Lookup(strings.Split(columnPaths[i], ".")...)
		if !ok || leaf.Node == nil {
			d.index[i] = -1 // a column a later minor version added
			continue
		}
		c.kind = leaf.Node.Type().Kind()
		c.maxDef, c.maxRep = byte(leaf.MaxDefinitionLevel), byte(leaf.MaxRepetitionLevel)
		d.index[i] = leaf.ColumnIndex
	}
	for _, col := range graphCols {
		if d.index[col] >= 0 {
			d.graphCols = append(d.graphCols, col)
		}
	}
	for _, col := range edgeCols {
		if d.index[col] >= 0 {
			d.edgeCols = append(d.edgeCols, col)
		}
	}
	d.ranges = d.index[colRangeEdge] >= 0
	d.datasets = d.index[colDatasetID] >= 0
	return d
}

func (d *segmentDecoder) close() {
	for i := range d.cols {
		d.cols[i].close()
	}
}

// decode fills buf with the next events; it returns io.EOF when there are
// none left. Inconsistent data panics with a corruption. Each field of the
// projection is written in every row, its zero where the row has none,
// so that a buffer read into again needs no clearing first.
func (d *segmentDecoder) decode(buf []Event) (int, error) {
	n, err := d.decodeFront(buf, d.sets, d.fields)
	if n > 0 {
		d.decodeBack(buf[:n], d.sets[:n], false)
	}
	return n, err
}

// backFields are the fields of a decode's second stage: decodeFront
// decodes the others, decodeBack these. A split decode runs the two
// stages of a batch one after the other on two goroutines, the first
// stage of the next batch beside the second of this one (SegmentReader.
// ReadFront). The stages write different fields of the events and read
// different columns; the second reads only the seq, the kind and its
// field set from the first. They cost about the same on a common log, and
// keep the order of a whole decode, so that the first corruption found is
// the one a whole decode finds.
const backFields = FieldRecordsIn | FieldRecordsOut | FieldBytesIn | FieldBytesOut | FieldRecovering |
	FieldGraph | FieldPartitions | FieldSubtasks | FieldCoordinators

// decodeFront decodes the first stage of the next rows into buf, at most
// len(sets) of them, with their kinds' field sets into sets; it returns
// how many, or io.EOF when there are none left. It opens the row groups
// of the columns of the fields open: the projection's, or the first
// stage's alone. Inconsistent data panics with a corruption.
func (d *segmentDecoder) decodeFront(buf []Event, sets []fieldSet, open Fields) (int, error) {
	if err := d.openRowGroup(&d.rowGroup, &d.left, open); err != nil {
		return 0, err
	}
	n := int(min(int64(len(buf)), int64(len(sets)), d.left))
	ev, sets := buf[:n], sets[:n]
	d.decodeCommon(ev, sets)
	d.decodeFlat(ev, sets, false)
	d.left -= int64(n)
	return n, nil
}

// decodeBack decodes the second stage of the rows of ev: those decodeFront
// decoded last or, in a split decode, the oldest it decoded that
// decodeBack has not. A split decode opens the row groups of the second
// stage's columns here, in step with decodeFront.
func (d *segmentDecoder) decodeBack(ev []Event, sets []fieldSet, split bool) {
	if split {
		if err := d.openRowGroup(&d.backGroup, &d.backLeft, d.fields&backFields); err != nil {
			corruptf("the second stage ran out of row groups") // decodeFront decoded these rows
		}
		d.backLeft -= int64(len(ev))
	}
	d.decodeFlat(ev, sets, true)
	d.decodeGraph(ev, sets)
	d.decodePartitions(ev, sets)
	d.decodeSubtasks(ev, sets)
	d.decodeCoordinators(ev, sets)
}

// openRowGroup opens the next row group with rows left, unless the open
// one has some (next is the row group after the open one, left its rows
// not yet decoded), and in it the columns of the fields fs; io.EOF when
// there is none.
func (d *segmentDecoder) openRowGroup(next *int, left *int64, fs Fields) error {
	for *left == 0 {
		groups := d.file.RowGroups()
		if *next >= len(groups) {
			return io.EOF
		}
		rg := groups[*next]
		*next++
		*left = rg.NumRows()
		chunks := rg.ColumnChunks()
		for i := range d.cols {
			if fs&columnField[i] != 0 && d.index[i] >= 0 {
				d.cols[i].open(chunks[d.index[i]])
			}
		}
	}
	return nil
}

// closeColumns closes the columns of the fields fs.
func (d *segmentDecoder) closeColumns(fs Fields) {
	for i := range d.cols {
		if fs&columnField[i] != 0 {
			d.cols[i].close()
		}
	}
}

func (d *segmentDecoder) decodeCommon(ev []Event, sets []fieldSet) {
	requiredInts(d, ev, colSeq, (*colCursor).int64v, func(c *colCursor) []int64 { return c.i64 }, unsafe.Offsetof(Event{}.Seq))
	if d.fields&FieldTime != 0 {
		requiredColumn(d, ev, colTime, (*colCursor).int64v, func(e *Event, v int64) { e.Time = time.Unix(0, v).UTC() })
	}
	if d.fields&FieldEpoch != 0 {
		requiredInts(d, ev, colEpoch, (*colCursor).int32v, func(c *colCursor) []int32 { return c.i32 }, unsafe.Offsetof(Event{}.Epoch))
	}
	if d.fields&FieldKind != 0 {
		d.decodeKinds(ev, sets)
	}
	if d.fields&FieldJob != 0 {
		requiredColumn(d, ev, colJob, (*colCursor).str, func(e *Event, v string) { e.Job = v })
	}
}

// decodeKinds decodes the kind column and the field set of each kind; on
// a dictionary page, once per dictionary entry.
func (d *segmentDecoder) decodeKinds(ev []Event, sets []fieldSet) {
	c := &d.cols[colKind]
	for i := 0; i < len(ev); {
		m := c.pageRun(len(ev) - i)
		if c.idx != nil && c.vi+m <= len(c.idx) {
			dictSets := c.kindSets()
			for k, j := range c.idx[c.vi : c.vi+m] {
				if j < 0 || int(j) >= len(dictSets) || dictSets[j] == 0 {
					c.dictIndex(c.vi+k, len(c.dictStr))
					corruptf("seq %d: unknown kind %q", ev[i+k].Seq, c.dictStr[j])
				}
				ev[i+k].Kind, sets[i+k] = Kind(c.dictStr[j]), dictSets[j]
			}
			c.vi += m
			i += m
			continue
		}
		for k := range m {
			e := &ev[i+k]
			if c.idx == nil {
				e.Kind = Kind(c.str())
				set, ok := e.Kind.fieldSet()
				if !ok {
					corruptf("seq %d: unknown kind %q", e.Seq, e.Kind)
				}
				sets[i+k] = set
				continue
			}
			j := c.dictIndex(c.value(), len(c.dictStr))
			e.Kind, sets[i+k] = Kind(c.dictStr[j]), c.kindSets()[j]
			if sets[i+k] == 0 {
				corruptf("seq %d: unknown kind %q", e.Seq, e.Kind)
			}
		}
		i += m
	}
}

// member returns the field at offset off of e, a field of type T. The
// column decoders set fields through offsets (unsafe.Offsetof of an Event
// field), which unlike a setter function cost no call per value.
func member[T any](e *Event, off uintptr) *T {
	return (*T)(unsafe.Add(unsafe.Pointer(e), off))
}

// requiredInts decodes one required integer column, into the field at
// offset off of each event, a page at a time: straight from the page's
// values when they are not dictionary encoded.
func requiredInts[T int32 | int64](d *segmentDecoder, ev []Event, col int, value func(*colCursor) T, values func(*colCursor) []T, off uintptr) {
	c := &d.cols[col]
	for i := 0; i < len(ev); {
		m := c.pageRun(len(ev) - i)
		if vals := values(c); c.idx == nil && c.vi+m <= len(vals) {
			for k, v := range vals[c.vi : c.vi+m] {
				*member[T](&ev[i+k], off) = v
			}
			c.vi += m
		} else {
			for k := range m {
				*member[T](&ev[i+k], off) = value(c)
			}
		}
		i += m
	}
}

// requiredColumn decodes one required flat column a page at a time.
func requiredColumn[T any](d *segmentDecoder, ev []Event, col int, value func(*colCursor) T, set func(*Event, T)) {
	c := &d.cols[col]
	for i := 0; i < len(ev); {
		m := c.pageRun(len(ev) - i)
		for k := range m {
			set(&ev[i+k], value(c))
		}
		i += m
	}
}

// presentAt reports whether a row of a flat optional column, whose
// definition level def has been consumed, has a value, checking it against
// the row's kind.
func (d *segmentDecoder) presentAt(c *colCursor, f field, e *Event, set fieldSet, def byte) bool {
	if def == c.maxDef {
		if !set.has(f) {
			corruptf("seq %d: column %s set in a %s event", e.Seq, c.path, e.Kind)
		}
		return true
	}
	if set.has(f) {
		corruptf("seq %d: column %s is NULL in a %s event", e.Seq, c.path, e.Kind)
	}
	return false
}

var flatStrings = []struct {
	col int
	f   field
	off uintptr // of the field in Event
}{
	{colMaster, fieldMaster, unsafe.Offsetof(Event{}.Master)},
	{colVertex, fieldVertex, unsafe.Offsetof(Event{}.Vertex)},
	{colWorker, fieldWorker, unsafe.Offsetof(Event{}.Worker)},
	{colError, fieldError, unsafe.Offsetof(Event{}.Error)},
	{colReason, fieldReason, unsafe.Offsetof(Event{}.Reason)},
	{colStatus, fieldStatus, unsafe.Offsetof(Event{}.Status)},
}

var flatInt32s = []struct {
	col int
	f   field
	off uintptr
}{
	{colSubtask, fieldSubtask, unsafe.Offsetof(Event{}.Subtask)},
	{colParallelism, fieldParallelism, unsafe.Offsetof(Event{}.Parallelism)},
	{colAttempt, fieldAttempt, unsafe.Offsetof(Event{}.Attempt)},
}

var flatInt64s = []struct {
	col int
	f   field
	off uintptr
}{
	{colRecordsIn, fieldRecordsIn, unsafe.Offsetof(Event{}.RecordsIn)},
	{colRecordsOut, fieldRecordsOut, unsafe.Offsetof(Event{}.RecordsOut)},
	{colBytesIn, fieldBytesIn, unsafe.Offsetof(Event{}.BytesIn)},
	{colBytesOut, fieldBytesOut, unsafe.Offsetof(Event{}.BytesOut)},
}

// flatFields are the fields decodeFlat decodes.
var flatFields = func() Fields {
	fs := columnField[colRecovering]
	for _, s := range flatStrings {
		fs |= columnField[s.col]
	}
	for _, s := range flatInt32s {
		fs |= columnField[s.col]
	}
	for _, s := range flatInt64s {
		fs |= columnField[s.col]
	}
	return fs
}()

// decodeFlat decodes the flat optional columns of the first stage of a
// decode (the fields outside backFields) or, with back, of the second.
func (d *segmentDecoder) decodeFlat(ev []Event, sets []fieldSet, back bool) {
	if !back {
		for _, s := range flatStrings {
			if d.fields.has(s.f) {
				flatColumn(d, ev, sets, s.col, s.f, (*colCursor).str, s.off, dictStrings, nil)
			}
		}
		for _, s := range flatInt32s {
			if d.fields.has(s.f) {
				flatColumn(d, ev, sets, s.col, s.f, (*colCursor).int32v, s.off, dictInt32s, plainInt32s)
			}
		}
		return
	}
	for _, s := range flatInt64s {
		if d.fields.has(s.f) {
			flatColumn(d, ev, sets, s.col, s.f, (*colCursor).int64v, s.off, dictInt64s, plainInt64s)
		}
	}
	if d.fields.has(fieldRecovering) {
		flatColumn(d, ev, sets, colRecovering, fieldRecovering, (*colCursor).boolv, unsafe.Offsetof(Event{}.Recovering), nil, nil)
	}
}

// The dictionaries and plain values of a column's page by type, for
// flatColumn.
func dictStrings(c *colCursor) []string { return c.dictStr }
func dictInt32s(c *colCursor) []int32   { return c.dictI32 }
func dictInt64s(c *colCursor) []int64   { return c.dictI64 }
func plainInt32s(c *colCursor) []int32  { return c.i32 }
func plainInt64s(c *colCursor) []int64  { return c.i64 }

// flatColumn decodes one flat optional column a page at a time: the levels
// of the batch's rows on the current page first, then their values. A
// run of rows whose kinds agree with the column, all NULL, or all set
// from a dictionary or plain values of a fixed size (dict and plain
// return them for T; nil for a type without), the common cases, is
// decoded in one pass.
func flatColumn[T any](d *segmentDecoder, ev []Event, sets []fieldSet, col int, f field, value func(*colCursor) T, off uintptr, dict, plain func(*colCursor) []T) {
	c := &d.cols[col]
	kinds := d.fields&FieldKind != 0
	for i := 0; i < len(ev); {
		defs := c.pageLevels(len(ev) - i)
		if zeros(defs) && (!kinds || noneHas(sets[i:i+len(defs)], f)) {
			var zero T // a run of NULLs, the common case of a field few kinds have
			for k := range defs {
				*member[T](&ev[i+k], off) = zero
			}
			i += len(defs)
			continue
		}
		if c.vi+len(defs) <= c.nvals && all(defs, c.maxDef) && (!kinds || allHave(sets[i:i+len(defs)], f)) {
			switch {
			case dict != nil && c.idx != nil:
				values := dict(c)
				for k, j := range c.idx[c.vi : c.vi+len(defs)] {
					if j < 0 || int(j) >= len(values) {
						c.dictIndex(c.vi+k, len(values)) // reports it
					}
					*member[T](&ev[i+k], off) = values[j]
				}
			case plain != nil && c.idx == nil:
				for k, v := range plain(c)[c.vi : c.vi+len(defs)] {
					*member[T](&ev[i+k], off) = v
				}
			default:
				for k := range defs {
					*member[T](&ev[i+k], off) = value(c)
				}
				i += len(defs)
				continue
			}
			c.vi += len(defs)
			i += len(defs)
			continue
		}
		for k, def := range defs {
			if present := def == c.maxDef; d.fields&FieldKind != 0 && present != sets[i+k].has(f) {
				d.presentAt(c, f, &ev[i+k], sets[i+k], def) // reports the mismatch
			} else if present {
				*member[T](&ev[i+k], off) = value(c)
			} else {
				var zero T
				*member[T](&ev[i+k], off) = zero
			}
		}
		i += len(defs)
	}
}

// allHave reports whether every one of sets has f.
func allHave(sets []fieldSet, f field) bool {
	and := ^fieldSet(0)
	for _, set := range sets {
		and &= set
	}
	return and.has(f)
}

// noneHas reports whether none of sets has f.
func noneHas(sets []fieldSet, f field) bool {
	var or fieldSet
	for _, set := range sets {
		or |= set
	}
	return !or.has(f)
}

// scratch collects the values of one row's lists, in column order.
type scratch struct {
	strs  []string
	i32s  []int32
	i64s  []int64
	blobs [][]byte
}

func (s *scratch) reset() {
	s.strs, s.i32s, s.i64s, s.blobs = s.strs[:0], s.i32s[:0], s.i64s[:0], s.blobs[:0]
}

// listRow consumes one row of a list column, appending each element's
// value to s as soon as its level is read (so that it comes from the same
// page), and returns the number of elements, or -1 for a NULL list.
// Definition level 0 is a NULL list (its optional ancestor is NULL), the
// column's maximum an element, anything between an empty list.
func (c *colCursor) listRow(s *scratch, binary bool) int {
	rep, def := c.level()
	if rep != 0 {
		corruptf("column %s: row starts with repetition level %d", c.path, rep)
	}
	switch {
	case def == 0:
		return -1
	case def < c.maxDef:
		return 0
	}
	c.take(s, binary)
	n := 1
	for c.continues() {
		if _, def := c.level(); def != c.maxDef {
			corruptf("column %s: NULL list element", c.path)
		}
		c.take(s, binary)
		n++
	}
	return n
}

func (c *colCursor) take(s *scratch, binary bool) {
	switch {
	case c.kind == parquet.Int32:
		s.i32s = append(s.i32s, c.int32v())
	case c.kind == parquet.Int64:
		s.i64s = append(s.i64s, c.int64v())
	case binary:
		s.blobs = append(s.blobs, c.bytesv())
	default:
		s.strs = append(s.strs, c.str())
	}
}

// The leaf columns of each list of groups.
var (
	vertexCols      = []int{colVertexID, colVertexOperator, colVertexParallelism, colVertexMaxParallelism, colVertexCoordinator}
	edgeCols        = []int{colEdgeFrom, colEdgeTo, colEdgePattern, colEdgeDataset}
	rangeCols       = []int{colRangeEdge, colRangeSubtask, colRangeFirst, colRangeLast}
	datasetCols     = []int{colDatasetID, colDatasetProducer}
	graphCols       = slices.Concat(vertexCols, edgeCols, rangeCols, datasetCols)
	partitionCols   = []int{colPartitionConsumer, colPartitionBytes, colPartitionRecords}
	subtaskCols     = []int{colSubtasksVertex, colSubtasksSubtask}
	coordinatorCols = []int{colCoordinatorsVertex, colCoordinatorsState}
)

// nullLists consumes the rows of ev in the columns cols of a list when
// they are all NULL on the current pages (the common case: most kinds do
// not have the field), checking the events' kinds against it and setting
// the field of each, of type T at offset off, to its zero; it reports
// whether it did.
func nullLists[T any](d *segmentDecoder, ev []Event, sets []fieldSet, f field, nullable bool, cols []int, off uintptr) bool {
	for _, col := range cols {
		if !d.cols[col].nullRun(len(ev)) {
			return false
		}
	}
	if d.fields&FieldKind != 0 && !nullable {
		for i := range ev {
			if sets[i].has(f) {
				d.listField(&ev[i], sets[i], f, -1, nullable) // reports the mismatch
			}
		}
	}
	var zero T
	for i := range ev {
		*member[T](&ev[i], off) = zero
	}
	for _, col := range cols {
		d.cols[col].skip(len(ev))
	}
	return true
}

// listShape reads one row of each of the columns of a list of groups into
// d.scratch and checks that they agree on its length.
func (d *segmentDecoder) listShape(cols []int) int {
	if d.cols[cols[0]].nullNext() {
		for _, col := range cols[1:] {
			if !d.cols[col].nullNext() {
				if m := d.cols[col].listRow(&d.scratch, col == colCoordinatorsState); m != -1 {
					corruptf("column %s has %d elements where %s has -1", columnPaths[col], m, columnPaths[cols[0]])
				}
			}
		}
		return -1
	}
	n := d.cols[cols[0]].listRow(&d.scratch, false)
	for _, col := range cols[1:] {
		if m := d.cols[col].listRow(&d.scratch, col == colCoordinatorsState); m != n {
			corruptf("column %s has %d elements where %s has %d", columnPaths[col], m, columnPaths[cols[0]], n)
		}
	}
	return n
}

// listField checks a list's presence against the event's kind. nullable
// says whether a kind that has the field may leave it NULL.
// Without the kind column (a projection without FieldKind) there is
// nothing to check against.
func (d *segmentDecoder) listField(e *Event, set fieldSet, f field, n int, nullable bool) {
	if d.fields&FieldKind == 0 {
		return
	}
	has := set.has(f)
	if (n >= 0 && !has) || (n < 0 && has && !nullable) {
		corruptf("seq %d: column %s does not match kind %s", e.Seq, fieldNames[f], e.Kind)
	}
}

func (d *segmentDecoder) decodeGraph(ev []Event, sets []fieldSet) {
	if !d.fields.has(fieldGraph) || nullLists[*Graph](d, ev, sets, fieldGraph, false, d.graphCols, unsafe.Offsetof(Event{}.Graph)) {
		return
	}
	s := &d.scratch
	for i := range ev {
		s.reset()
		nv := d.listShape(vertexCols)
		ne := d.listShape(d.edgeCols)
		nr, nd := nv, nv // a file without ranges or datasets has none of them
		if d.ranges {
			nr = d.listShape(rangeCols)
		}
		if d.datasets {
			nd = d.listShape(datasetCols)
		}
		if (nv < 0) != (ne < 0) || (nv < 0) != (nr < 0) || (nv < 0) != (nd < 0) {
			corruptf("seq %d: graph vertices, edges, ranges and datasets disagree on NULL", ev[i].Seq)
		}
		d.listField(&ev[i], sets[i], fieldGraph, nv, false)
		if nv < 0 {
			ev[i].Graph = nil
			continue
		}
		if !d.ranges {
			nr = 0
		}
		if !d.datasets {
			nd = 0
		}
		ev[i].Graph = d.graph(nv, ne, nr, nd)
	}
}

// graph builds the graph of one row from d.scratch: strs hold the
// vertices' ids, operators and coordinators, the edges' froms, tos,
// patterns (and datasets, when the file has them), the datasets' ids and
// producers; i32s the vertices' parallelisms and max parallelisms, then
// the ranges' edges, subtasks, firsts and lasts.
func (d *segmentDecoder) graph(nv, ne, nr, nd int) *Graph {
	s := &d.scratch
	g := &Graph{}
	if nv > 0 {
		g.Vertices = make([]Vertex, nv)
		for j := range g.Vertices {
			g.Vertices[j] = Vertex{
				ID:             s.strs[j],
				Operator:       s.strs[nv+j],
				Parallelism:    s.i32s[j],
				MaxParallelism: s.i32s[nv+j],
				Coordinator:    coordinatorOrDefault(s.strs[2*nv+j]),
			}
		}
	}
	base := 3 * nv
	if ne > 0 {
		g.Edges = make([]Edge, ne)
		for j := range g.Edges {
			g.Edges[j] = Edge{
				From:    s.strs[base+j],
				To:      s.strs[base+ne+j],
				Pattern: patternOrDefault(s.strs[base+2*ne+j]),
			}
			if len(d.edgeCols) == len(edgeCols) {
				g.Edges[j].Dataset = s.strs[base+3*ne+j]
			}
		}
	}
	base += len(d.edgeCols) * ne
	if nr > 0 {
		r := s.i32s[2*nv:]
		g.Ranges = make([]Range, nr)
		for j := range g.Ranges {
			g.Ranges[j] = Range{Edge: r[j], Subtask: r[nr+j], First: r[2*nr+j], Last: r[3*nr+j]}
		}
	}
	if nd > 0 {
		g.Datasets = make([]Dataset, nd)
		for j := range g.Datasets {
			g.Datasets[j] = Dataset{ID: s.strs[base+j], Producer: s.strs[base+nd+j]}
		}
	}
	return g
}

func (d *segmentDecoder) decodePartitions(ev []Event, sets []fieldSet) {
	if !d.fields.has(fieldPartitions) || nullLists[[]Partition](d, ev, sets, fieldPartitions, true, partitionCols, unsafe.Offsetof(Event{}.Partitions)) {
		return
	}
	s := &d.scratch
	var slab []Partition
	kinds := d.fields&FieldKind != 0
	for i := range ev {
		if len(slab) == 0 {
			slab = make([]Partition, len(ev)-i) // about one per remaining event
		}
		if (!kinds || sets[i].has(fieldPartitions)) && d.onePartition(&slab[0]) {
			ev[i].Partitions, slab = slab[:1:1], slab[1:]
			continue
		}
		s.reset()
		n := d.listShape(partitionCols)
		d.listField(&ev[i], sets[i], fieldPartitions, n, true)
		if n <= 0 {
			ev[i].Partitions = nil
			if n == 0 {
				ev[i].Partitions = []Partition{}
			}
			continue
		}
		if len(slab) < n {
			slab = make([]Partition, max(n, len(ev)-i)) // about one per remaining event
		}
		ps := slab[:n:n]
		slab = slab[n:]
		for j := range ps {
			ps[j] = Partition{Consumer: s.strs[j], Bytes: s.i64s[j], Records: s.i64s[n+j]}
		}
		ev[i].Partitions = ps
	}
}

// onePartition decodes the next row of the partition columns into p when
// it is a list of one partition, the common case, whose levels are all on
// the current pages, and reports whether it did; otherwise it consumes
// nothing, and listShape decodes the row.
func (d *segmentDecoder) onePartition(p *Partition) bool {
	for _, col := range partitionCols {
		c := &d.cols[col]
		if c.li+1 >= c.n || c.def[c.li] != c.maxDef || c.rep[c.li] != 0 || c.rep[c.li+1] != 0 {
			return false
		}
	}
	for _, col := range partitionCols {
		d.cols[col].li++
	}
	p.Consumer = d.cols[colPartitionConsumer].str()
	p.Bytes = d.cols[colPartitionBytes].int64v()
	p.Records = d.cols[colPartitionRecords].int64v()
	return true
}

func (d *segmentDecoder) decodeSubtasks(ev []Event, sets []fieldSet) {
	if !d.fields.has(fieldSubtasks) || nullLists[[]SubtaskRef](d, ev, sets, fieldSubtasks, false, subtaskCols, unsafe.Offsetof(Event{}.Subtasks)) {
		return
	}
	s := &d.scratch
	for i := range ev {
		s.reset()
		n := d.listShape(subtaskCols)
		d.listField(&ev[i], sets[i], fieldSubtasks, n, false)
		if n <= 0 {
			ev[i].Subtasks = nil
			continue
		}
		rs := make([]SubtaskRef, n)
		for j := range rs {
			rs[j] = SubtaskRef{Vertex: s.strs[j], Subtask: s.i32s[j]}
		}
		ev[i].Subtasks = rs
	}
}

func (d *segmentDecoder) decodeCoordinators(ev []Event, sets []fieldSet) {
	if !d.fields.has(fieldCoordinators) || nullLists[map[string][]byte](d, ev, sets, fieldCoordinators, false, coordinatorCols, unsafe.Offsetof(Event{}.Coordinators)) {
		return
	}
	s := &d.scratch
	for i := range ev {
		s.reset()
		n := d.listShape(coordinatorCols)
		d.listField(&ev[i], sets[i], fieldCoordinators, n, false)
		if n < 0 {
			ev[i].Coordinators = nil
			continue
		}
		m := make(map[string][]byte, n)
		for j := range n {
			v := s.strs[j]
			if _, dup := m[v]; dup {
				corruptf("seq %d: coordinators: duplicate vertex %q", ev[i].Seq, v)
			}
			m[v] = s.blobs[j]
		}
		ev[i].Coordinators = m
	}
}

// recoverCorruption turns a decoder panic into an ErrCorrupt error.
func recoverCorruption(p any, where string) error {
	if c, ok := p.(corruption); ok {
		return fmt.Errorf("format: %s: %w: %w", where, c.err, ErrCorrupt)
	}
	return fmt.Errorf("format: %s: %v: %w", where, p, ErrCorrupt)
}
