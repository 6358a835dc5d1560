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
	var batch []format.Event
	err := r.nextRun(func() (int, error) {
		var err error
		batch, err = r.segmentBatch()
		return len(batch), err
	})
	if err != nil {
		return nil, err
	}
	return batch, nil
}

// nextRun moves the reader on to the next run of rows it keeps, which
// take, called on the segment in hand, gathers and counts: it returns nil
// once take has gathered rows, or the reader's sticky error (io.EOF after
// the last row). An error take returns with rows comes with the next call.
func (r *Reader) nextRun(take func() (int, error)) error {
	for {
		if r.err != nil {
			return r.err
		}
		if r.done {
			return io.EOF
		}
		if r.seg != nil {
			n, err := take()
			if err != nil {
				r.err = err
			}
			if n > 0 {
				return nil
			}
			if err == nil && !r.done {
				r.finishSegment()
			}
			continue
		}
		if !r.advance() {
			return io.EOF
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
	first, ok := r.wholeStart()
	if !ok {
		return nil
	}
	rows := c.buf[c.i:c.n]
	for k := range rows {
		if rows[k].Seq != first+int64(k) || rows[k].Epoch != c.item.Epoch {
			return nil
		}
	}
	r.takeWhole()
	return rows
}

// wholeStart returns the seq the rest of the chunk in hand must start
// with for the reader to keep all of it, as wholeChunk does, and whether
// the reader, its position and the segment's fence allow it at all; the
// caller then checks the rows' seqs and epochs and takes them with
// takeWhole.
func (r *Reader) wholeStart() (first int64, ok bool) {
	c := r.seg
	if c.i >= c.n || r.done || r.opts.Until > 0 {
		return 0, false
	}
	prev := r.last
	if !r.started {
		prev = r.skipThrough
	}
	first = c.item.First + c.row
	last := first + int64(c.n-c.i) - 1
	if first != prev+1 || first <= r.skipThrough || c.item.fence.drops(last) {
		return 0, false
	}
	return first, true
}

// takeWhole moves past the rest of the chunk in hand, every row kept.
func (r *Reader) takeWhole() {
	c := r.seg
	n := int64(c.n - c.i)
	c.i, c.row = c.n, c.row+n
	r.started, r.last, r.lastEpoch, r.key = true, c.item.First+c.row-1, c.item.Epoch, c.item.Key
}
