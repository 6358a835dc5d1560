package format

import (
	"errors"
	"fmt"
	"io"
)

// ColumnFields are the fields a SegmentReader can decode into Columns:
// the fixed-width ones, whose values are numbers. The other fields
// (strings, lists, the kind) are read into events only.
const ColumnFields = FieldSeq | FieldTime | FieldEpoch | FieldSubtask | FieldParallelism | FieldAttempt |
	FieldRecordsIn | FieldRecordsOut | FieldBytesIn | FieldBytesOut

// Columns holds consecutive rows of a segment column by column: row i is
// Seq[i], Epoch[i], and the i-th value of every other column decoded.
// Only the projected columns (SegmentReader.Project) are filled; the
// others are nil. A value reads as the field of the event does: Time in
// nanoseconds since 1970-01-01 UTC (Event.Time.UnixNano()), and a
// kind-specific field 0 in a row whose kind does not have it.
type Columns struct {
	Seq         []int64
	Epoch       []int32
	Time        []int64
	Subtask     []int32
	Parallelism []int32
	Attempt     []int32
	RecordsIn   []int64
	RecordsOut  []int64
	BytesIn     []int64
	BytesOut    []int64
}

// Len returns the number of rows in c.
func (c *Columns) Len() int { return len(c.Seq) }

// Slice returns rows i to j-1 of c, sharing c's storage.
func (c *Columns) Slice(i, j int) Columns {
	return Columns{
		Seq: sub(c.Seq, i, j), Epoch: sub(c.Epoch, i, j), Time: sub(c.Time, i, j),
		Subtask: sub(c.Subtask, i, j), Parallelism: sub(c.Parallelism, i, j), Attempt: sub(c.Attempt, i, j),
		RecordsIn: sub(c.RecordsIn, i, j), RecordsOut: sub(c.RecordsOut, i, j),
		BytesIn: sub(c.BytesIn, i, j), BytesOut: sub(c.BytesOut, i, j),
	}
}

// sub is s[i:j], or nil for a column not decoded.
func sub[T any](s []T, i, j int) []T {
	if s == nil {
		return nil
	}
	return s[i:j]
}

// column is one column of Columns: the field it holds, its leaf column
// in the segment, and its values.
type column[T int32 | int64] struct {
	f   Fields
	col int
	v   *[]T
}

// int64Columns and int32Columns are the columns of c; seq first, it is
// always decoded.
func (c *Columns) int64Columns() [6]column[int64] {
	return [6]column[int64]{{FieldSeq, colSeq, &c.Seq}, {FieldTime, colTime, &c.Time},
		{FieldRecordsIn, colRecordsIn, &c.RecordsIn}, {FieldRecordsOut, colRecordsOut, &c.RecordsOut},
		{FieldBytesIn, colBytesIn, &c.BytesIn}, {FieldBytesOut, colBytesOut, &c.BytesOut}}
}

func (c *Columns) int32Columns() [4]column[int32] {
	return [4]column[int32]{{FieldEpoch, colEpoch, &c.Epoch}, {FieldSubtask, colSubtask, &c.Subtask},
		{FieldParallelism, colParallelism, &c.Parallelism}, {FieldAttempt, colAttempt, &c.Attempt}}
}

// errNotColumns reports a projection ReadColumns cannot decode.
var errNotColumns = errors.New("format: ReadColumns needs a projection within ColumnFields (SegmentReader.Project)")

// ReadColumns decodes the next rows of the segment, at most limit of them,
// into dst, column by column, and returns how many it decoded: the
// projected columns of dst (Project, which must name only ColumnFields)
// are resliced to that length, reusing their storage, and the others set
// to nil. At the end it returns io.EOF, possibly together with n > 0. A
// page that does not decode gives ErrCorrupt (wrapped), as Read does; no
// event is built. Without FieldKind in the projection no column is checked
// against the kinds, as with Read (the checksum was verified all the
// same). A reader is read either by ReadColumns or by Read and Next, not
// both.
func (r *SegmentReader) ReadColumns(dst *Columns, limit int) (n int, err error) {
	fs := r.decoder.fields
	if fs&^ColumnFields != 0 {
		return 0, fmt.Errorf("%w: %s are not columns", errNotColumns, fs&^ColumnFields)
	}
	if len(r.batch) > 0 {
		return 0, errors.New("format: ReadColumns after Next")
	}
	dst.resize(fs, 0)
	dst.reserve(fs, int(min(int64(limit), r.file.NumRows())))
	for n < limit {
		m, err := r.guarded(func() (int, error) { return r.decoder.decodeColumns(dst, n, limit-n) })
		n += m
		if err != nil {
			dst.resize(fs, n) // a step that failed decoded no row
			return n, err
		}
	}
	if r.decoder.atEnd() {
		r.err = io.EOF
		r.decoder.close()
		return n, io.EOF
	}
	return n, nil
}

// resize gives the columns of fs length n, keeping their first rows, and
// the others none.
func (c *Columns) resize(fs Fields, n int) {
	for _, e := range c.int64Columns() {
		*e.v = resized(*e.v, fs&e.f != 0, n)
	}
	for _, e := range c.int32Columns() {
		*e.v = resized(*e.v, fs&e.f != 0, n)
	}
}

// reserve makes room in the columns of fs for n rows, so that decoding
// them does not grow the columns row group by row group.
func (c *Columns) reserve(fs Fields, n int) {
	for _, e := range c.int64Columns() {
		*e.v = reserved(*e.v, fs&e.f != 0, n)
	}
	for _, e := range c.int32Columns() {
		*e.v = reserved(*e.v, fs&e.f != 0, n)
	}
}

func reserved[T any](s []T, keep bool, n int) []T {
	if !keep || cap(s) >= n {
		return s
	}
	return make([]T, len(s), n)
}

func resized[T any](s []T, keep bool, n int) []T {
	switch {
	case !keep:
		return nil
	case cap(s) >= n:
		return s[:n]
	default:
		return append(s, make([]T, n-len(s))...)
	}
}

// decodeColumns decodes the rows off to off+n-1 of dst, stopping early at
// the end of a row group; it returns how many it decoded, or io.EOF when
// there are none left.
func (d *segmentDecoder) decodeColumns(dst *Columns, off, n int) (int, error) {
	if err := d.openRowGroup(&d.rowGroup, &d.left, d.fields); err != nil {
		return 0, err
	}
	n = int(min(int64(n), d.left))
	dst.resize(d.fields, off+n)
	for _, e := range dst.int64Columns() {
		if d.fields&e.f != 0 {
			columnValues(&d.cols[e.col], (*e.v)[off:off+n], (*colCursor).int64v, func(c *colCursor) []int64 { return c.i64 })
		}
	}
	for _, e := range dst.int32Columns() {
		if d.fields&e.f != 0 {
			columnValues(&d.cols[e.col], (*e.v)[off:off+n], (*colCursor).int32v, func(c *colCursor) []int32 { return c.i32 })
		}
	}
	d.left -= int64(n)
	return n, nil
}

// atEnd reports whether the decoder has decoded every row of the file.
func (d *segmentDecoder) atEnd() bool {
	if d.left > 0 {
		return false
	}
	for _, rg := range d.file.RowGroups()[d.rowGroup:] {
		if rg.NumRows() > 0 {
			return false
		}
	}
	return true
}

// columnValues decodes the next len(dst) rows of one flat column, required
// or optional, into dst a page at a time: a NULL is 0, and plain values
// are copied straight from the page.
func columnValues[T int32 | int64](c *colCursor, dst []T, value func(*colCursor) T, values func(*colCursor) []T) {
	for i := 0; i < len(dst); {
		var m int
		if c.maxDef == 0 {
			m = c.pageRun(len(dst) - i)
			requiredRun(c, dst[i:i+m], value, values)
		} else {
			defs := c.pageLevels(len(dst) - i)
			m = len(defs)
			optionalRun(c, dst[i:i+m], defs, value, values)
		}
		i += m
	}
}

// requiredRun reads the values of a run of rows of a required column on
// the current page.
func requiredRun[T int32 | int64](c *colCursor, dst []T, value func(*colCursor) T, values func(*colCursor) []T) {
	if vals := values(c); c.idx == nil && c.vi+len(dst) <= len(vals) {
		c.vi += copy(dst, vals[c.vi:c.vi+len(dst)])
		return
	}
	for k := range dst {
		dst[k] = value(c)
	}
}

// optionalRun reads the values of a run of rows of an optional column on
// the current page, whose definition levels are defs.
func optionalRun[T int32 | int64](c *colCursor, dst []T, defs []byte, value func(*colCursor) T, values func(*colCursor) []T) {
	present := 0 // with maximum level 1 (a flat column's), levels are 0 or 1 (pageLevels checked)
	for _, def := range defs {
		present += int(def) // no branch: which rows are NULL follows the kinds
	}
	vals := values(c)
	if c.maxDef != 1 || c.idx != nil || c.vi+present > len(vals) {
		for k, def := range defs { // value reports a shortfall of values
			dst[k] = 0
			if def == c.maxDef {
				dst[k] = value(c)
			}
		}
		return
	}
	vals = vals[c.vi : c.vi+present]
	c.vi += present
	switch present {
	case len(defs):
		copy(dst, vals)
	case 0:
		clear(dst)
	default:
		scatter(dst, defs, vals)
	}
}

// scatter sets dst[k] to the next value of vals where defs[k] is 1 and to
// 0 where it is 0 (a flat optional column's levels: the column's maximum
// definition level is 1), without a branch per row: which rows are NULL
// follows the events' kinds, which no branch predictor guesses.
func scatter[T int32 | int64](dst []T, defs []byte, vals []T) {
	last := len(vals) - 1
	j := 0
	for k, def := range defs {
		dst[k] = vals[min(j, last)] * T(def)
		j += int(def)
	}
}
