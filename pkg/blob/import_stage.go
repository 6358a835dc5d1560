package blob

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"

	"github.com/jobevent/jobevent/pkg/format"
)

// importCheck holds what StageImport knows of the events so far.
type importCheck struct {
	n          int64
	prev       format.Event
	epochStart int64 // first seq of prev's epoch
}

// check refuses e when the events so far and e would not read back as
// one log.
func (c *importCheck) check(e *format.Event) error {
	c.n++
	p := &c.prev
	switch {
	case e.Epoch < 1 || e.Seq < 1:
		return fmt.Errorf("%w: event %d has epoch %d seq %d: both must be at least 1", ErrImportRefused, c.n, e.Epoch, e.Seq)
	case c.n == 1 && e.Seq != 1:
		return fmt.Errorf("%w: the first event has seq %d: a log starts at seq 1", ErrImportRefused, e.Seq)
	case c.n == 1:
		c.epochStart = e.Seq
	case e.Epoch == p.Epoch && e.Seq != p.Seq+1:
		return fmt.Errorf("%w: seq %d follows seq %d in epoch %d: seqs increase by 1, without gaps or repeats", ErrImportRefused, e.Seq, p.Seq, e.Epoch)
	case e.Epoch < p.Epoch:
		return fmt.Errorf("%w: seq %d is of epoch %d, after epoch %d: epochs never go back", ErrImportRefused, e.Seq, e.Epoch, p.Epoch)
	case e.Epoch > p.Epoch && (e.Seq > p.Seq+1 || e.Seq < c.epochStart):
		return fmt.Errorf("%w: epoch %d starts at seq %d after seq %d of epoch %d (which started at seq %d): a new epoch starts at or before the seq after the last, and not before its predecessor's start",
			ErrImportRefused, e.Epoch, e.Seq, p.Seq, p.Epoch, c.epochStart)
	case e.Epoch > p.Epoch:
		c.epochStart = e.Seq
	}
	c.prev.Seq, c.prev.Epoch = e.Seq, e.Epoch
	return nil
}

// StageImport reads src to the end, checks it and encodes its segments
// into a new local temporary directory, writing nothing to any log: the
// staged import is written with StagedImport.Write, and must be closed.
// It refuses (ErrImportRefused) a first seq other than 1, a seq that does
// not follow its predecessor in the same epoch, an epoch that goes back,
// and a new epoch that starts after a gap or before the previous epoch's
// start (a fenced master's rows, which follow on in their own epoch, are
// fine); a time outside what a segment can hold (format.ErrTimeRange), an
// event too large for a segment (ErrSegmentTooLarge) and an error of src
// fail it too. Input of no events stages (Events is 0), and Write refuses
// it.
//
// src is read on the calling goroutine while its segments are encoded on
// others (GOMAXPROCS-1 encoders, at least one, each writing a segment's
// list columns on a second goroutine: format.SegmentStream), each segment
// from its first few thousand events on, so that reading (parsing, for
// JSON lines) and encoding overlap. The events held in memory are at most
// those of the segment being read plus one segment per encoder (and a
// copy of one that must be encoded whole again: see spoolChunk).
//
// StageImport returns once src is read and no error of its input can
// remain: when the events of the segments still being encoded are all
// ones that format.SegmentFits, it leaves their encoding under way, and
// Write writes each segment as soon as it is encoded, so that the log's
// writes overlap the encoding of the last segments. Otherwise it waits
// for the encoders, and returns their error. An encoder left running can
// fail only as a write can (the local disk, ctx), and Write reports that.
func StageImport(ctx context.Context, src EventSource, opts ImportOptions) (*StagedImport, error) {
	if opts.SegmentEvents <= 0 {
		opts.SegmentEvents = DefaultImportSegmentEvents
	}
	dir, err := os.MkdirTemp("", "jobevent-import-*")
	if err != nil {
		return nil, err
	}
	st := &StagedImport{dir: dir}
	if err := st.stage(ctx, src, opts); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// stageChunk is a run of events of one epoch, the index-th cut by stage,
// handed to an encoder while it is read. Its events are held in blocks of
// stageRun events (the last may hold fewer), each sent on runs when it is
// full; runs is closed when the chunk is complete, blocks then holding all
// of them, or when reading failed, blocks then nil. The encoder sets keys
// or err, then closes done.
type stageChunk struct {
	index  int
	runs   chan []format.Event
	blocks [][]format.Event

	done chan struct{}
	keys []string // the chunk's segments, in log order
	err  error
}

// wait waits until c is encoded, or ctx is done, and returns the error.
func (c *stageChunk) wait(ctx context.Context) error {
	select {
	case <-c.done:
		return c.err
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// encoded reports whether c is encoded, without error.
func (c *stageChunk) encoded() bool {
	select {
	case <-c.done:
		return c.err == nil
	default:
		return false
	}
}

// stageRun is the number of events of a block: what stage hands an
// encoder at a time. It is a multiple of format.SegmentRun, and small
// enough that the encoder reads the events soon after they were parsed,
// from the CPU's caches, and that a new block is filled before a
// collection that starts meanwhile scans much of it: scanning pages never
// written maps them to the shared zero page, and the reader's writes then
// fault each one again, each fault interrupting the other CPU to flush
// its TLB (segment-sized buffers spent about 5% of an import's CPU time
// on that).
const stageRun = 16 * format.SegmentRun

// stage reads src and hands its chunks to encoders that spool them as
// segments into st.dir, encoding a chunk while it is read. Once src is
// read it returns without waiting for the encoders if st.settled, and
// otherwise waits for them. An error of an encoder is an error about
// earlier input than any error of reading, so it wins, as it would if one
// goroutine did both.
func (st *StagedImport) stage(ctx context.Context, src EventSource, opts ImportOptions) error {
	ctx, st.stop = context.WithCancelCause(ctx)
	workers := max(1, goruntime.GOMAXPROCS(0)-1)
	todo := make(chan *stageChunk, workers)
	// The blocks of a chunk being encoded per worker, and a quarter of a
	// chunk (at least one block) for the reader to go on with: a reader
	// ahead of the encoders waits, leaving the CPUs to encoding. (A
	// chunk's blocks are held until it is encoded; its encoder cannot end
	// before the reader has read the event after the chunk, into a block
	// of its own.) A budget of a whole chunk more for the reader, with
	// the parser faster than the encoders, was all used, for 18 MiB more
	// of memory and no gain.
	perChunk := (opts.SegmentEvents + stageRun - 1) / stageRun
	free := make(chan []format.Event, workers*perChunk+max(1, perChunk/4))
	for range workers {
		st.encoders.Go(func() { st.encode(ctx, todo, free) })
	}
	r := stageReader{st: st, ctx: ctx, opts: opts, todo: todo, free: free}
	err := r.read(src)
	close(todo)
	st.chunks = r.chunks
	if err == nil && st.settled() {
		return nil
	}
	st.encoders.Wait()
	for _, c := range st.chunks {
		if c.err != nil {
			return c.err
		}
	}
	return err
}

// encode spools the chunks of todo in turn and hands their blocks back to
// free. The first failure stops the import.
func (st *StagedImport) encode(ctx context.Context, todo <-chan *stageChunk, free chan<- []format.Event) {
	var buf bytes.Buffer
	for c := range todo {
		if testHookEncode != nil {
			testHookEncode(c.index)
		}
		c.keys, c.err = st.spoolChunk(ctx, &buf, c)
		if c.err != nil {
			st.stop(c.err)
		}
		close(c.done)
		for _, b := range c.blocks {
			free <- b[:0]
		}
	}
}

// testHookEncode, when set by a test, is called by an encoder before it
// encodes the index-th chunk.
var testHookEncode func(index int)

// settled reports whether an import whose input has been read whole can
// no longer fail on its input: no chunk has failed, and the events of the
// chunks still being encoded are all ones that format.SegmentFits into
// MaxSegmentBytes, which no encoder refuses.
func (st *StagedImport) settled() bool {
	for _, c := range st.chunks {
		select {
		case <-c.done:
			if c.err != nil {
				return false
			}
			continue
		default:
		}
		for _, b := range c.blocks {
			for i := range b {
				if !format.SegmentFits(&b[i], maxSegmentBytes) {
					return false
				}
			}
		}
	}
	return true
}

// spoolChunk encodes c as it arrives and spools it as one segment, or, if
// it could not be streamed (format.ErrNotStreamable) or fails or exceeds
// MaxSegmentBytes as one, encodes it whole again with spool, which splits
// it or reports its error as when nothing is streamed. A chunk whose
// reading failed is dropped (reading's error is the import's); one that
// arrives after a failure or once the import is stopped fails with the
// cause.
func (st *StagedImport) spoolChunk(ctx context.Context, buf *bytes.Buffer, c *stageChunk) ([]string, error) {
	buf.Reset()
	stream := format.NewSegmentStream(buf)
	streaming := true
	for run := range c.runs {
		if streaming && ctx.Err() == nil {
			streaming = stream.Write(run) == nil
		}
	}
	if c.blocks == nil {
		return nil, nil
	}
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	if streaming && stream.Close() == nil && buf.Len() <= maxSegmentBytes {
		first, last := c.blocks[0], c.blocks[len(c.blocks)-1]
		key, err := st.spoolFile(&first[0], &last[len(last)-1], buf.Bytes())
		if err != nil {
			return nil, err
		}
		return []string{key}, nil
	}
	return st.spool(buf, slices.Concat(c.blocks...))
}

// stageReader is stage's reading side: it checks the events of src and
// sends them to todo in chunks, taking the blocks for them from free.
type stageReader struct {
	st   *StagedImport
	ctx  context.Context
	opts ImportOptions
	todo chan<- *stageChunk
	free <-chan []format.Event
	made int // blocks allocated so far, at most cap(free)

	block  []format.Event   // the block being filled
	blocks [][]format.Event // the chunk's blocks, block last
	events int              // events of the chunk
	epoch  int32            // their epoch
	cur    *stageChunk      // the chunk being read, once it is sent to todo
	chunks []*stageChunk    // every chunk sent to todo, in order
}

// read reads src to the end.
func (r *stageReader) read(src EventSource) error {
	defer r.abandon()
	var (
		chk     importCheck
		st      = r.st
		masters = make(map[int32]bool)
	)
	next := nextFunc(src)
	for {
		if len(r.block) == cap(r.block) {
			if err := r.take(); err != nil {
				return err
			}
		}
		// The event is read into the block's next slot; one that starts
		// the next chunk moves to a block of that chunk.
		k := len(r.block)
		r.block = r.block[:k+1]
		e := &r.block[k]
		if err := next(e); err != nil {
			r.block = r.block[:k]
			if err == io.EOF {
				break
			}
			return err
		}
		if err := chk.check(e); err != nil {
			return err
		}
		if r.events > 0 && (r.events >= r.opts.SegmentEvents || e.Epoch != r.epoch) {
			first := *e
			r.block = r.block[:k]
			if err := r.cut(); err != nil {
				return err
			}
			if k > 0 { // with k == 0 the block holds nothing: the next chunk takes it
				if err := r.take(); err != nil {
					return err
				}
			}
			r.block = append(r.block, first)
			e = &r.block[0]
		}
		r.events, r.epoch = r.events+1, e.Epoch
		if len(r.block) == stageRun {
			if err := r.send(); err != nil {
				return err
			}
		}
		if k := len(st.claims); k == 0 || st.claims[k-1].Epoch != e.Epoch {
			st.claims = append(st.claims, EpochInfo{Epoch: e.Epoch, StartSeq: e.Seq})
		}
		if e.Kind == format.KindMasterStarted && !masters[e.Epoch] {
			masters[e.Epoch] = true
			st.claims[len(st.claims)-1].Master = e.Master
		}
		st.events++
	}
	return r.cut()
}

// send sends the block being filled to the chunk's encoder, first handing
// the chunk to one if it has none yet.
func (r *stageReader) send() error {
	if len(r.block) == 0 {
		return nil
	}
	if r.cur == nil {
		r.cur = &stageChunk{index: len(r.chunks), runs: make(chan []format.Event, cap(r.free)), done: make(chan struct{})}
		select {
		case r.todo <- r.cur:
			r.chunks = append(r.chunks, r.cur)
		case <-r.ctx.Done():
			r.cur = nil
			return context.Cause(r.ctx)
		}
	}
	r.cur.runs <- r.block // never blocks: runs holds every block there is
	r.blocks = append(r.blocks, r.block)
	r.block = r.block[len(r.block):] // full: the next event takes a new block
	return nil
}

// cut completes the chunk: its last block goes to the encoder however
// full it is.
func (r *stageReader) cut() error {
	if err := r.send(); err != nil {
		return err
	}
	if r.cur == nil {
		return nil // no events
	}
	r.cur.blocks = r.blocks
	close(r.cur.runs)
	r.cur, r.blocks, r.events = nil, nil, 0
	return nil
}

// take takes an empty block: one handed back to free if there is one,
// else a new one while fewer than cap(free) exist, else the next handed
// back. Blocks are reused before new ones are made, so that a reader that
// is not ahead of its encoders touches no more memory than it uses: each
// new block is fresh pages, a page fault per 4 KiB.
func (r *stageReader) take() error {
	select {
	case r.block = <-r.free:
		return nil
	default:
	}
	if r.made < cap(r.free) {
		r.made++
		r.block = make([]format.Event, 0, stageRun)
		return nil
	}
	select {
	case r.block = <-r.free:
		return nil
	case <-r.ctx.Done():
		return context.Cause(r.ctx)
	}
}

// abandon closes the runs of a chunk that reading left incomplete, so
// that its encoder drops it.
func (r *stageReader) abandon() {
	if r.cur != nil {
		close(r.cur.runs)
		r.cur = nil
	}
}

// intoSource is an EventSource that can decode an event in place, as a
// JSONL file's does (logsource): StageImport then reads each event into
// its block directly, without the copies of returning it.
type intoSource interface {
	NextInto(e *format.Event) error
}

// nextFunc returns the function that reads the next event of src into *e.
func nextFunc(src EventSource) func(e *format.Event) error {
	if s, ok := src.(intoSource); ok {
		return s.NextInto
	}
	return func(e *format.Event) (err error) {
		*e, err = src.Next()
		return err
	}
}

// spool encodes events as one segment, or several when one would exceed
// MaxSegmentBytes, into files of st.dir, and returns their keys in order.
func (st *StagedImport) spool(buf *bytes.Buffer, events []format.Event) ([]string, error) {
	var keys []string
	err := encodeCapped(buf, events, func(part []format.Event, data []byte) error {
		key, err := st.spoolFile(&part[0], &part[len(part)-1], data)
		if err != nil {
			return err
		}
		keys = append(keys, key)
		return nil
	})
	return keys, err
}

// spoolFile writes data, the segment of the events from first to last,
// into a file of st.dir and returns its key.
func (st *StagedImport) spoolFile(first, last *format.Event, data []byte) (string, error) {
	key := FormatSegmentName(first.Epoch, first.Seq, last.Seq)
	if err := os.WriteFile(filepath.Join(st.dir, filepath.Base(key)), data, 0o600); err != nil {
		return "", fmt.Errorf("spool %s: %w", key, err)
	}
	return key, nil
}
