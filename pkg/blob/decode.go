package blob

import (
	"context"
	"errors"
	"runtime"
	"sync"

	"github.com/jobevent/jobevent/pkg/format"
)

// A Reader decodes segments ahead of the one it returns events from, on
// up to ReaderOptions.DecodeWorkers goroutines, while it applies the
// reader rules to the segment in hand: on a 2-core machine one core checks
// and hands out events while the other decodes the next segment. Decoding
// keeps the log's order: segments are handed to the workers in order, and
// each worker passes its events on in chunks through a short queue of its
// own segment, so that the memory held is bounded by the workers (about
// decodeQueue+splitQueue+2 chunks each), never by the log or the segment
// size. Since the worker of the next segment can run only that far ahead,
// a worker decodes its segment's events in two stages on two goroutines
// (decodeSplit), at about twice the speed of one.
const (
	// chunkEvents is how many events a chunk holds.
	chunkEvents = 256
	// decodeQueue is how many decoded chunks of one segment wait for the
	// reader.
	decodeQueue = 8
	// maxDecodeWorkers bounds the default number of decode workers.
	maxDecodeWorkers = 4
	// splitQueue is how many batches the first stage of a split decode
	// (decodeSplit) decodes ahead of the second.
	splitQueue = 4
	// chunkRows is how many rows a chunk of columns holds (ColumnReader):
	// columns cost a few bytes a row where events cost hundreds, so a
	// chunk holds a whole segment of a common size, handed over at once.
	chunkRows = 1 << 14
)

// chunk is a batch of decoded rows of one segment: events, or for a
// ColumnReader columns. err, when set, comes after the n rows.
type chunk struct {
	ev    []format.Event
	cols  *format.Columns
	n     int
	err   error
	batch format.Batch // from the first stage of a split decode to the second
}

// decodeWorkers returns how many segments a reader with opts decodes at a
// time.
func decodeWorkers(opts ReaderOptions) int {
	if opts.DecodeWorkers > 0 {
		return opts.DecodeWorkers
	}
	return min(runtime.GOMAXPROCS(0), maxDecodeWorkers)
}

// inlineDecode reports whether a reader with opts decodes in its own
// goroutine: when told to, or by default with a single processor, where
// workers would only add their hand-offs.
func inlineDecode(opts ReaderOptions) bool {
	return opts.inline || opts.DecodeWorkers < 0 || (opts.DecodeWorkers == 0 && runtime.GOMAXPROCS(0) == 1)
}

// splitDecode reports whether a reader with opts decodes each segment in
// two stages on two goroutines (decodeSplit): events, with workers, on
// more than one processor. On a 2-core machine a segment's events are
// then decoded at about the speed the reader applies its rules and a
// caller folds them, where one goroutine a segment decodes at half that:
// the worker of the next segment can run only decodeQueue chunks ahead.
func splitDecode(opts ReaderOptions) bool {
	return !inlineDecode(opts) && !opts.columns && !opts.whole && runtime.GOMAXPROCS(0) > 1
}

// projection returns the fields a reader with opts decodes: those asked
// for, and the seq and epoch that the reader rules check.
func projection(opts ReaderOptions) format.Fields {
	if opts.Fields == 0 {
		return format.AllFields
	}
	return opts.Fields | format.FieldSeq | format.FieldEpoch
}

// decodeAhead runs after f's data is fetched, on f's goroutine: in its
// turn (after the fetches started before it took a worker), it takes a
// decode worker, opens the segment and decodes it into chunks for the
// reader. It returns when the segment is decoded, or when ctx is done.
// f.opened and f.chunks are closed on every path.
func (r *Reader) decodeAhead(ctx context.Context, f *fetch, prev <-chan struct{}) {
	defer close(f.chunks)
	opened := false
	defer func() {
		if !opened {
			f.openErr = errDecodeCanceled
			close(f.opened)
		}
	}()
	if prev != nil {
		select {
		case <-prev:
		case <-ctx.Done():
			close(f.turn)
			return
		}
	}
	if f.err != nil || r.inline {
		close(f.turn) // nothing to decode here: the reader reports the error
		return
	}
	select {
	case r.slots <- struct{}{}:
	case <-ctx.Done():
		close(f.turn)
		return
	}
	defer func() { <-r.slots }()
	close(f.turn)
	f.sr, f.openErr = format.OpenSegment(f.data)
	opened = true
	close(f.opened)
	if f.openErr != nil {
		return
	}
	f.sr.Project(r.fields)
	if r.split {
		r.decodeSplit(ctx, f)
		return
	}
	for {
		c := r.getChunk()
		if r.columns {
			c.n, c.err = f.sr.ReadColumns(c.cols, chunkRows)
		} else {
			c.n, c.err = f.sr.Read(c.ev)
		}
		last := c.err != nil // c is the reader's once sent
		select {
		case f.chunks <- c:
		case <-ctx.Done():
			return
		}
		if last {
			return
		}
	}
}

// decodeSplit decodes f's opened segment in two stages, in chunks of one
// batch (format.SegmentReader.ReadFront): the first stage on a goroutine
// of its own, up to splitQueue chunks ahead of the second, which runs in
// the caller's and hands each chunk on whole. It returns when the segment
// is decoded, or ctx is done, once the first stage has stopped.
func (r *Reader) decodeSplit(ctx context.Context, f *fetch) {
	fronts := make(chan *chunk, splitQueue)
	stop := make(chan struct{})
	go func() {
		defer close(fronts)
		for {
			c := r.getChunk()
			c.n, c.err = f.sr.ReadFront(c.ev[:min(len(c.ev), format.BatchRows)], &c.batch)
			last := c.err != nil // c is the second stage's once sent
			select {
			case fronts <- c:
			case <-stop:
				r.putChunk(c)
				return
			}
			if last {
				return
			}
		}
	}()
	defer func() {
		close(stop)
		for c := range fronts {
			r.putChunk(c)
		}
	}()
	for c := range fronts {
		c.n, c.err = f.sr.ReadBack(c.ev, &c.batch, c.n, c.err)
		last := c.err != nil // c is the reader's once sent
		select {
		case f.chunks <- c:
		case <-ctx.Done():
			r.putChunk(c)
			return
		}
		if last {
			return
		}
	}
}

// errDecodeCanceled is what a reader finds in a fetch whose decoding was
// canceled: only a reader that was closed or whose context is done sees it.
var errDecodeCanceled = errors.New("jobevent/blob: segment decode canceled")

// opened waits until f's segment is opened and returns its reader.
func (r *Reader) opened(f *fetch) (*format.SegmentReader, error) {
	if r.inline {
		return format.OpenSegment(f.data)
	}
	select {
	case <-f.opened:
		return f.sr, f.openErr
	case <-r.ctx.Done():
		return nil, r.ctx.Err()
	}
}

// read replaces the cursor's events with the segment's next chunk: decoded
// by a worker, or in the reader's goroutine when it decodes inline. At the
// segment's end it returns io.EOF, possibly with events.
func (c *segmentCursor) read(r *Reader) (int, error) {
	if r.inline {
		if c.buf == nil && c.cols == nil {
			c.buf, c.cols = r.buf, r.cols
			c.sr.Project(r.fields)
		}
		if r.columns {
			return c.sr.ReadColumns(c.cols, chunkRows)
		}
		return c.sr.Read(c.buf)
	}
	if c.chunk != nil {
		r.putChunk(c.chunk)
		c.chunk = nil
	}
	select {
	case ch, ok := <-c.fetch.chunks:
		if !ok {
			if err := r.ctx.Err(); err != nil {
				return 0, err
			}
			return 0, errDecodeCanceled
		}
		c.chunk, c.buf, c.cols = ch, ch.ev[:min(ch.n, len(ch.ev))], ch.cols
		return ch.n, ch.err
	case <-r.ctx.Done():
		return 0, r.ctx.Err()
	}
}

// release gives the cursor's chunk back and stops the decoding of its
// segment, if it still runs.
func (c *segmentCursor) release(r *Reader) {
	if c.chunk != nil {
		r.putChunk(c.chunk)
		c.chunk = nil
	}
	if c.fetch != nil {
		c.fetch.cancel()
	}
}

// columnChunks holds chunks of columns for reuse by every ColumnReader:
// a reader decodes whole segments ahead, and allocating their columns
// anew for each reader would cost about as much as decoding them.
var columnChunks = sync.Pool{New: func() any { return &chunk{cols: new(format.Columns)} }}

func (r *Reader) getChunk() *chunk {
	if r.columns {
		return columnChunks.Get().(*chunk)
	}
	select {
	case c := <-r.free:
		return c
	default:
		return &chunk{ev: make([]format.Event, chunkEvents)}
	}
}

func (r *Reader) putChunk(c *chunk) {
	c.n, c.err = 0, nil
	if r.columns {
		columnChunks.Put(c)
		return
	}
	select {
	case r.free <- c:
	default:
	}
}

// Project sets the fields the reader decodes, as ReaderOptions.Fields
// does, for a reader that has not read yet (a caller handed a reader it
// did not open); later calls do nothing.
func (r *Reader) Project(fs format.Fields) {
	if r.seg != nil || len(r.ahead) > 0 || r.started || r.err != nil {
		return
	}
	r.opts.Fields = fs
	r.fields = projection(r.opts)
}
