package blob

import (
	"context"
	"fmt"

	"github.com/jobevent/jobevent/pkg/format"
)

// ColumnReader reads a log as a Reader does, under the same reader rules,
// but hands out its rows column by column (format.Columns) and never
// builds an event: an aggregate over a few numeric columns of a whole log
// (a count, a sum of bytes) costs only the decoding of those columns.
// Rows come in runs of one segment, in seq order, as NextBatch returns
// events: covered segments skipped, rows of fenced masters filtered row
// by row, a torn newest segment of an epoch a notice, and anything else
// that does not decode, or a gap among the rows kept, a *CorruptError
// naming the object. Segments are decoded ahead on
// ReaderOptions.DecodeWorkers goroutines, several at a time. A
// ColumnReader is not safe for concurrent use.
type ColumnReader struct {
	r    *Reader
	view format.Columns
}

// NewColumnReader lists the log and returns a column reader positioned
// before its first row (or ReaderOptions.Since). opts.Fields names the
// columns wanted, within format.ColumnFields (another field is an error);
// seq and epoch always come, the reader rules check them. A log with no
// segment and no job.yaml is a *NoLogError (errors.Is(err, ErrNoLog)).
// Everything the reader returns and waits for is bounded by ctx.
func (l *Log) NewColumnReader(ctx context.Context, opts ReaderOptions) (*ColumnReader, error) {
	if extra := opts.Fields &^ format.ColumnFields; extra != 0 {
		return nil, fmt.Errorf("jobevent/blob: a column reader reads only format.ColumnFields, not %s", extra)
	}
	opts.Fields |= format.FieldSeq | format.FieldEpoch
	opts.columns = true
	r, err := l.NewReader(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &ColumnReader{r: r}, nil
}

// Next returns the next rows of the log, as many as NextBatch would
// return as events: at least one row, all of one segment (Key names its
// object), or an error (io.EOF after the last row; errors are sticky).
// The columns belong to the reader and hold their rows until the next
// call of Next or Close: the caller must neither keep nor change them.
// Notices gathered during the call concern what comes before its rows.
func (cr *ColumnReader) Next() (*format.Columns, error) {
	r := cr.r
	err := r.nextRun(func() (int, error) {
		var err error
		cr.view, err = r.segmentColumns()
		return cr.view.Len(), err
	})
	if err != nil {
		return nil, err
	}
	return &cr.view, nil
}

// segmentColumns returns the next rows of the current segment that the
// reader keeps, from the chunk in hand (or, when it is used up, the next
// one); none at the segment's end. The rows kept from a chunk are always
// consecutive (fencing drops a segment's last rows, Since its first,
// Until ends the read), so the run is a slice of the chunk's columns.
func (r *Reader) segmentColumns() (format.Columns, error) {
	c := r.seg
	if c.i >= c.n && !c.eof && !r.done {
		if err := r.readChunk(c); err != nil {
			return format.Columns{}, err
		}
	}
	if c.i >= c.n {
		return format.Columns{}, nil
	}
	if first, ok := r.wholeStart(); ok && r.wholeColumns(first) {
		start := c.i
		r.takeWhole()
		return c.cols.Slice(start, c.n), nil
	}
	start, end := -1, -1
	for c.i < c.n && !r.done && (start < 0 || end == c.i) {
		i := c.i
		keep, err := r.takeRow(c, c.cols.Seq[i], c.cols.Epoch[i])
		if err != nil {
			return runOf(c.cols, start, end), err
		}
		if keep {
			if start < 0 {
				start = i
			}
			end = i + 1
		}
	}
	return runOf(c.cols, start, end), nil
}

// wholeColumns reports whether the rows of the chunk in hand from c.i on
// are the seqs from first on, one after the other, of the segment's
// epoch.
func (r *Reader) wholeColumns(first int64) bool {
	c := r.seg
	epoch := c.item.Epoch
	for k, seq := range c.cols.Seq[c.i:c.n] {
		if seq != first+int64(k) {
			return false
		}
	}
	for _, e := range c.cols.Epoch[c.i:c.n] {
		if e != epoch {
			return false
		}
	}
	return true
}

// runOf returns rows start to end-1 of cols, none when start is negative.
func runOf(cols *format.Columns, start, end int) format.Columns {
	if start < 0 {
		return format.Columns{}
	}
	return cols.Slice(start, end)
}

// Key returns the object key of the rows Next returned last.
func (cr *ColumnReader) Key() string { return cr.r.Key() }

// Notices returns the notices gathered since the previous call, as
// Reader.Notices does.
func (cr *ColumnReader) Notices() []format.Notice { return cr.r.Notices() }

// Epochs returns the epoch objects of the log as the reader listed them
// last, in ascending order.
func (cr *ColumnReader) Epochs() []EpochInfo { return cr.r.Epochs() }

// Close releases the reader. It does not close the Log.
func (cr *ColumnReader) Close() error { return cr.r.Close() }
