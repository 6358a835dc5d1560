package blob

import (
	"io"

	"github.com/jobevent/jobevent/pkg/format"
)

// NextBatch returns the next events of the log, as Next would return them
// one by one: at least one event, all of one segment (so Key names the
// object of every one), or an error (io.EOF after the last event; errors
// are sticky). The slice belongs to the reader and holds the events until
// the next call of NextBatch, Next or Close: the caller must neither keep
// it nor change its events (the reader decodes into them again), and owns
// the events it copies out. Notices gathered
// during the call concern what comes before the events it returns, so a
// caller that drains Notices after each call sees them in log order. On a
// reader of many events, NextBatch costs a few nanoseconds an event where
// Next copies each one out.
func (r *Reader) NextBatch() ([]format.Event, error) {
	for {
		if r.err != nil {
			return nil, r.err
		}
		if r.done {
			return nil, io.EOF
		}
		if r.seg != nil {
			batch, err := r.segmentBatch()
			if err != nil {
				r.err = err
			}
			if len(batch) > 0 {
				return batch, nil // an error comes with the next call
			}
			if err == nil && !r.done {
				r.finishSegment()
			}
			continue
		}
		if !r.advance() {
			return nil, io.EOF
		}
	}
}

// segmentBatch returns the next events of the current segment that the
// reader keeps, from the chunk in hand (or, when it is used up, the next
// one); none at the segment's end. The rows kept are moved together in
// place, so the batch is a part of the chunk.
func (r *Reader) segmentBatch() ([]format.Event, error) {
	c := r.seg
	if c.i >= c.n && !c.eof && !r.done {
		if err := r.readChunk(c); err != nil {
			return nil, err
		}
	}
	if rows := r.wholeChunk(); rows != nil {
		return rows, nil
	}
	start, w := -1, 0
	for (start < 0 || c.i < c.n) && !r.done {
		e, ok, err := r.nextRow()
		if err != nil || !ok {
			if start < 0 {
				return nil, err
			}
			return c.buf[start:w], err
		}
		if start < 0 {
			start, w = c.i-1, c.i-1 // nextRow may have read a new chunk
		}
		if e != &c.buf[w] {
			c.buf[w] = *e
		}
		w++
	}
	return c.buf[start:w], nil
}

// wholeChunk returns the rows of the chunk in hand, and moves past them,
// when the reader keeps every one of them as it is: none fenced, skipped
// or past Until, each of the segment's epoch and the seq after the one
// before. It checks just that, in one pass over the rows; otherwise it
// returns nil, having changed nothing, and nextRow takes the rows one by
// one to drop, stop or report what it must.
func (r *Reader) wholeChunk() []format.Event {
	c := r.seg
	if c.i >= c.n || r.done || r.opts.Until > 0 {
		return nil
	}
	prev := r.last
	if !r.started {
		prev = r.skipThrough
	}
	rows := c.buf[c.i:c.n]
	first := c.item.First + c.row
	last := first + int64(len(rows)) - 1
	if first != prev+1 || first <= r.skipThrough || c.item.fence.drops(last) {
		return nil
	}
	for k := range rows {
		if rows[k].Seq != first+int64(k) || rows[k].Epoch != c.item.Epoch {
			return nil
		}
	}
	c.i, c.row = c.n, c.row+int64(len(rows))
	r.started, r.last, r.lastEpoch, r.key = true, last, c.item.Epoch, c.item.Key
	return rows
}
