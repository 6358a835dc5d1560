package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/jobevent/jobevent/internal/human"
	"github.com/jobevent/jobevent/pkg/format"
)

// DefaultPollInterval is how often a following Reader looks for new
// segments when ReaderOptions.PollInterval is 0.
const DefaultPollInterval = time.Second

// readBatch is how many events a Reader decodes at a time.
const readBatch = 256

// A Reader fetches up to prefetchSegments segments ahead of the one it
// decodes, and beyond the first no more than prefetchBytes of them: a log
// of many small segments on a cloud bucket is then read at the bucket's
// throughput rather than at one request latency per segment.
const (
	prefetchSegments = 8
	prefetchBytes    = 32 << 20
)

// maxVanished bounds how many times in a row a Reader re-lists the log
// because a segment disappeared between listing and reading (compaction
// deleting covered parts).
const maxVanished = 5

// ReaderOptions configures a Reader.
type ReaderOptions struct {
	// Since is the first seq wanted; 0 or 1 means from the start. Whole
	// segments before it are skipped by name.
	Since int64
	// Until is the last seq wanted; 0 means no limit.
	Until int64
	// Follow keeps the reader waiting for new segments (and new epochs)
	// after the last one, until its context is done; Next then returns
	// io.EOF.
	Follow bool
	// PollInterval is how often a following reader lists the log; 0 means
	// DefaultPollInterval.
	PollInterval time.Duration
	// Fields are the event fields decoded (format.Fields); the others are
	// left zero and their columns are not read. 0 means every field. Seq
	// and epoch are always decoded: the reader rules check them.
	Fields format.Fields
	// DecodeWorkers is how many segments are decoded at a time, ahead of
	// the one being read; 0 means GOMAXPROCS, at most 4 (decode.go), and
	// a negative number decodes in the reader's goroutine, as a reader
	// with GOMAXPROCS 1 does by default.
	DecodeWorkers int

	inline  bool // decode in the reader's goroutine (tests: the reference)
	columns bool // decode columns, not events (ColumnReader)
	whole   bool // decode each segment in one goroutine, never split (tests)
}

// Reader streams the events of a log in seq order, applying the reader
// rules of the layout (doc.go): covered segments are skipped (a reader
// that does not follow compares them with their cover at the end), rows of fenced
// masters filtered, a torn newest segment of an epoch ends that epoch with
// a notice, and anything else undecodable, or a gap among the events kept,
// is a *CorruptError naming the object. It decodes one segment at a time
// and fetches a bounded few ahead, so its memory does not grow with the
// log. A Reader is not safe for concurrent use.
type Reader struct {
	log  *Log
	ctx  context.Context
	opts ReaderOptions

	items       []planItem
	pos         int
	seg         *segmentCursor
	ahead       []*fetch // fetches of items[pos:], in order
	skipThrough int64    // rows up to this seq are before the reader's position
	buf         []format.Event

	started   bool  // an event has been returned: the gap check applies
	last      int64 // seq of the last event returned
	lastEpoch int32
	key       string // object of the last event returned
	done      bool   // Until reached
	vanished  int
	err       error // sticky

	notices []format.Notice
	noticed map[string]bool
	torn    map[int32]string // epoch → key of its torn newest segment

	// Decoding ahead (decode.go).
	fields  format.Fields
	inline  bool
	split   bool            // decode each segment in two stages (decodeSplit)
	columns bool            // chunks of columns (ColumnReader)
	cols    *format.Columns // the columns decoded inline
	slots   chan struct{}   // one per decode worker at work
	turn    chan struct{}   // closed when the newest fetch has its worker
	free    chan *chunk     // chunks for reuse
	wg      sync.WaitGroup  // the fetch goroutines

	// claimed is the newest start_seq of the epoch objects listed last:
	// the log's events must reach the seq before it. checking is the one
	// being checked after the log was listed again at its end.
	claimed, checking startClaim
	relisted          bool
	epochs            []EpochInfo // the epoch objects listed last
	covered           []coverPair // of the plan made last
	coveredChecked    bool
}

// startClaim is an epoch object's promise that the events before its
// start_seq are durable: a master claims an epoch after replaying them.
type startClaim struct {
	key      string
	epoch    int32
	startSeq int64
}

// fetch is the read of one segment ahead of the reader.
type fetch struct {
	key    string
	size   int64
	done   chan struct{} // closed when data and err are set
	data   []byte
	err    error
	cancel context.CancelFunc

	turn    chan struct{} // closed when this fetch has its worker (or needs none)
	opened  chan struct{} // closed when sr and openErr are set
	sr      *format.SegmentReader
	openErr error
	chunks  chan *chunk // decoded events, in order; closed at the end
}

// segmentCursor streams the rows of one segment.
type segmentCursor struct {
	item   planItem
	sr     *format.SegmentReader
	fetch  *fetch
	chunk  *chunk          // whose rows buf or cols holds, when decoded ahead
	buf    []format.Event  // the events of the chunk in hand
	cols   *format.Columns // or its columns (ColumnReader)
	n, i   int
	row    int64 // rows taken from the segment so far
	fenced int64 // rows dropped as fenced
	eof    bool
}

// NewReader lists the log and returns a reader positioned before its first
// event (or ReaderOptions.Since). A log with no segment and no job.yaml is a
// *NoLogError (errors.Is(err, ErrNoLog)). Everything the reader returns and
// waits for is bounded by ctx.
func (l *Log) NewReader(ctx context.Context, opts ReaderOptions) (*Reader, error) {
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultPollInterval
	}
	r := &Reader{
		log:         l,
		ctx:         ctx,
		opts:        opts,
		skipThrough: max(opts.Since-1, 0),
		noticed:     make(map[string]bool),
		torn:        make(map[int32]string),
		fields:      projection(opts),
		inline:      inlineDecode(opts),
		split:       splitDecode(opts),
		columns:     opts.columns,
	}
	switch {
	case r.inline && r.columns:
		r.cols = new(format.Columns)
	case r.inline:
		r.buf = make([]format.Event, readBatch)
	}
	workers := decodeWorkers(opts)
	r.slots = make(chan struct{}, workers)
	r.free = make(chan *chunk, workers*(decodeQueue+splitQueue+3))
	nsegs, err := r.replan()
	if err != nil {
		return nil, err
	}
	if nsegs == 0 {
		exists, err := l.Exists(ctx)
		if err != nil {
			return nil, err
		}
		if !exists {
			return nil, &NoLogError{URL: l.URL()}
		}
	}
	return r, nil
}

// Next returns the next event, or io.EOF after the last one (for a
// following reader: once its context is done). Errors are sticky.
func (r *Reader) Next() (format.Event, error) {
	for {
		if r.err != nil {
			return format.Event{}, r.err
		}
		if r.done {
			return format.Event{}, io.EOF
		}
		if r.seg != nil {
			e, ok, err := r.nextRow()
			if err != nil {
				r.err = err
				continue
			}
			if ok {
				return *e, nil
			}
			r.finishSegment()
			continue
		}
		if !r.advance() {
			return format.Event{}, io.EOF
		}
	}
}

// advance moves a reader that is between segments on: it opens the next
// segment, or at the end of those listed checks the log's end, and a
// following reader waits for more and lists the log again. It returns
// false at the end of the log; errors are left in r.err.
func (r *Reader) advance() bool {
	if r.pos < len(r.items) {
		item := r.items[r.pos]
		r.pos++
		r.openSegment(item)
		return true
	}
	if relisted, err := r.checkEnd(); err != nil || relisted {
		r.err = err
		return true
	}
	if !r.opts.Follow {
		if !r.coveredChecked {
			// Covered segments are rare (leftovers of an interrupted
			// compaction): their rows must be the covering segment's.
			r.coveredChecked = true
			if err := r.log.checkCovered(r.ctx, r.covered); err != nil {
				r.err = err
				return true
			}
		}
		return false
	}
	if !r.wait() {
		return false
	}
	r.skipThrough = max(r.skipThrough, r.last)
	if _, err := r.replan(); err != nil {
		r.err = err
	}
	return true
}

// Key returns the object key of the event Next returned last.
func (r *Reader) Key() string { return r.key }

// Epochs returns the epoch objects of the log as the reader listed them
// last, in ascending order (none before NewReader returned). Validate
// compares them with the events.
func (r *Reader) Epochs() []EpochInfo { return r.epochs }

// checkEnd applies, when the reader has read every segment it listed, the
// rule that a log agrees with its epoch objects: a master claims epoch e
// with start_seq S after replaying seqs 1..S-1, so the events must reach
// S-1. A claim may have landed after the segments were listed, so the log
// is listed once more before a shortfall counts (relisted is then true);
// still short, the missing seqs are a *CorruptError naming the epoch
// object.
func (r *Reader) checkEnd() (relisted bool, err error) {
	have := max(r.last, r.skipThrough)
	want := r.claimed
	if r.relisted {
		want = r.checking
	}
	need := want.startSeq - 1
	if r.opts.Until > 0 {
		need = min(need, r.opts.Until)
	}
	if have >= need {
		r.relisted = false
		return false, nil
	}
	if !r.relisted {
		r.relisted, r.checking = true, r.claimed
		r.skipThrough = have
		_, err := r.replan()
		return true, err
	}
	return false, &CorruptError{Key: want.key, Err: fmt.Errorf("%w: epoch %d starts at seq %d, but the events end at seq %d: %s missing",
		ErrSeqGap, want.epoch, want.startSeq, have, seqRange(have+1, need))}
}

// Notices returns the notices gathered since the previous call: torn tail
// segments, fenced rows, covered segments and unknown objects passed over.
func (r *Reader) Notices() []format.Notice {
	n := r.notices
	r.notices = nil
	return n
}

// Close releases the reader. It does not close the Log.
func (r *Reader) Close() error {
	r.dropAhead()
	if r.seg != nil {
		r.seg.release(r)
	}
	r.wg.Wait()
	r.seg = nil
	r.items = nil
	if r.err == nil {
		r.err = errors.New("jobevent/blob: reader closed")
	}
	return nil
}

// wait sleeps for PollInterval; false when ctx is done first.
func (r *Reader) wait() bool {
	t := time.NewTimer(r.opts.PollInterval)
	defer t.Stop()
	select {
	case <-r.ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// replan lists the log and plans the segments after the reader's position.
// It returns how many segments the listing found.
func (r *Reader) replan() (int, error) {
	r.dropAhead()
	segs, unknown, err := r.log.listSegments(r.ctx)
	if err != nil {
		return 0, err
	}
	epochs, err := r.log.Epochs(r.ctx)
	if IsCorrupt(err) {
		// Returned by the next call of Next.
		r.items, r.pos = []planItem{{err: err}}, 0
		return len(segs), nil
	}
	if err != nil {
		return 0, fmt.Errorf("list %s of %s: %w", EpochsDir, r.log.URL(), err)
	}
	byEpoch := make(map[int32]EpochInfo, len(epochs))
	r.epochs, r.claimed = epochs, startClaim{}
	for _, e := range epochs {
		byEpoch[e.Epoch] = e
		if e.StartSeq > r.claimed.startSeq {
			r.claimed = startClaim{key: epochKey(e.Epoch), epoch: e.Epoch, startSeq: e.StartSeq}
		}
	}
	plan := buildPlan(segs, unknown, byEpoch)
	r.covered = plan.covered
	for _, n := range plan.notices {
		r.notice(n)
	}
	if f := plan.fences[r.lastEpoch]; r.started && f.drops(r.last) {
		// Following: a newer epoch was claimed after this reader returned
		// rows that it now fences. They cannot be taken back; say so and
		// continue from the new epoch.
		n := r.last - f.seq + 1
		r.notice(format.Notice{Kind: format.NoticeFenced, Key: r.key, Epoch: r.lastEpoch, Seq: f.seq, Count: n,
			Message: fmt.Sprintf("%s of epoch %d, already returned, fenced later by a newer epoch starting at seq %d", human.Count(n, "row"), r.lastEpoch, f.seq)})
		r.last, r.skipThrough = f.seq-1, f.seq-1
	}
	r.items, r.pos = r.selectItems(plan.items), 0
	return len(segs), nil
}

// selectItems keeps the planned segments after the reader's position.
func (r *Reader) selectItems(items []planItem) []planItem {
	var sel []planItem
	for _, it := range items {
		if tornKey, ok := r.torn[it.Epoch]; ok {
			if it.Key == tornKey {
				continue
			}
			if it.Key > tornKey && it.err == nil {
				it.err = &CorruptError{Key: tornKey, Err: fmt.Errorf("%w; not the newest segment of epoch %d", format.ErrNoFooter, it.Epoch)}
			}
		}
		if it.err == nil && it.end() <= r.skipThrough {
			continue
		}
		if r.opts.Until > 0 && it.First > r.opts.Until {
			break
		}
		sel = append(sel, it)
	}
	return sel
}

func (r *Reader) notice(n format.Notice) {
	id := string(n.Kind) + "\x00" + n.Key
	if n.Key != "" && r.noticed[id] {
		return
	}
	r.noticed[id] = true
	r.notices = append(r.notices, n)
}

// openSegment reads the segment of item whole and starts streaming it.
func (r *Reader) openSegment(item planItem) {
	if item.err != nil {
		if IsCorrupt(item.err) {
			r.err = item.err
		} else {
			r.err = &CorruptError{Key: item.Key, Err: item.err}
		}
		return
	}
	f, err := r.fetched(item)
	if errors.Is(err, ErrNotFound) && r.vanished < maxVanished {
		// Compaction deleted it after writing the segment that covers it.
		r.vanished++
		r.skipThrough = max(r.skipThrough, r.last)
		if _, err := r.replan(); err != nil {
			r.err = err
		}
		return
	}
	if errors.Is(err, errTooLarge) {
		r.err = &CorruptError{Key: item.Key, Err: err}
		return
	}
	if err != nil {
		r.err = fmt.Errorf("read %s: %w", r.log.URL(), err)
		return
	}
	r.vanished = 0
	sr, err := r.opened(f)
	if errors.Is(err, errDecodeCanceled) || (err != nil && r.ctx.Err() != nil) {
		r.err = fmt.Errorf("read %s: %w", r.log.URL(), err)
		return
	}
	if err != nil {
		if errors.Is(err, format.ErrNoFooter) && item.newest {
			r.torn[item.Epoch] = item.Key
			r.notice(format.Notice{Kind: format.NoticeTornTail, Key: item.Key, Epoch: item.Epoch, Seq: item.First, Count: item.end() - item.First + 1,
				Message: tornMessage(item)})
			return
		}
		r.err = segmentError(item.Key, err)
		return
	}
	if int64(sr.Len()) != item.Rows() {
		r.err = &CorruptError{Key: item.Key, Err: fmt.Errorf("the name says %d rows, the segment holds %d", item.Rows(), sr.Len())}
		return
	}
	r.seg = &segmentCursor{item: item, sr: sr, fetch: f}
}

// fetched returns the data of item, the segment at r.pos-1, from the
// fetch started ahead of time when there is one, and starts the fetches
// of the segments after it.
func (r *Reader) fetched(item planItem) (*fetch, error) {
	var f *fetch
	if len(r.ahead) > 0 && r.ahead[0].key == item.Key {
		f, r.ahead = r.ahead[0], r.ahead[1:]
	} else {
		r.dropAhead()
		f = r.startFetch(item)
	}
	r.fill()
	select {
	case <-f.done:
		return f, f.err
	case <-r.ctx.Done():
		f.cancel()
		return nil, r.ctx.Err()
	}
}

// fill starts fetches of the items after r.pos, up to the prefetch bounds
// and never past an item known to be corrupt.
func (r *Reader) fill() {
	var bytes int64
	for _, f := range r.ahead {
		bytes += f.size
	}
	for next := r.pos + len(r.ahead); next < len(r.items) && len(r.ahead) < prefetchSegments; next++ {
		it := r.items[next]
		if it.err != nil || (len(r.ahead) > 0 && bytes+it.Size > prefetchBytes) {
			return
		}
		r.ahead = append(r.ahead, r.startFetch(it))
		bytes += it.Size
	}
}

func (r *Reader) startFetch(item planItem) *fetch {
	ctx, cancel := context.WithCancel(r.ctx)
	f := &fetch{key: item.Key, size: item.Size, done: make(chan struct{}), cancel: cancel,
		turn: make(chan struct{}), opened: make(chan struct{}), chunks: make(chan *chunk, decodeQueue)}
	prev := r.turn
	r.turn = f.turn
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer cancel()
		f.data, f.err = r.log.store.get(ctx, f.key)
		close(f.done)
		r.decodeAhead(ctx, f, prev)
	}()
	return f
}

// dropAhead cancels the fetches ahead of the reader.
func (r *Reader) dropAhead() {
	for _, f := range r.ahead {
		f.cancel()
	}
	r.ahead = nil
	r.turn = nil
}

// nextRow returns the next event of the current segment that the reader
// keeps; ok is false at the segment's end.
func (r *Reader) nextRow() (e *format.Event, ok bool, err error) {
	c := r.seg
	for {
		if c.i >= c.n {
			if c.eof {
				return e, false, nil
			}
			if err := r.readChunk(c); err != nil {
				return e, false, err
			}
			continue
		}
		e = &c.buf[c.i]
		keep, err := r.takeRow(c, e.Seq, e.Epoch)
		if err != nil || keep || r.done {
			return e, keep, err
		}
	}
}

// takeRow applies the reader rules to the row at c.i of the chunk in hand,
// which holds seq and epoch, and moves past it: keep reports whether the
// reader returns it. A row past Until sets r.done; a row that is not the
// one the segment's name promises, or that does not follow the last one
// kept, is a *CorruptError. Every way of reading rows (events, batches,
// columns) takes them with it.
func (r *Reader) takeRow(c *segmentCursor, seq int64, epoch int32) (keep bool, err error) {
	c.i++
	want := c.item.First + c.row
	c.row++
	if seq != want || epoch != c.item.Epoch {
		return false, &CorruptError{Key: c.item.Key, Err: fmt.Errorf("row %d holds epoch %d seq %d, the name says epoch %d seq %d",
			c.row-1, epoch, seq, c.item.Epoch, want)}
	}
	if c.item.fence.drops(seq) {
		c.fenced++
		return false, nil
	}
	if seq <= r.skipThrough {
		return false, nil
	}
	if r.opts.Until > 0 && seq > r.opts.Until {
		r.done = true
		return false, nil
	}
	prev := r.last
	if !r.started {
		prev = r.skipThrough // a log starts at seq 1; a reader from Since at Since
	}
	if err := follows(prev, seq); err != nil {
		return false, &CorruptError{Key: c.item.Key, Err: err}
	}
	r.started, r.last, r.lastEpoch, r.key = true, seq, epoch, c.item.Key
	if r.opts.Until > 0 && seq == r.opts.Until {
		r.done = true
	}
	return true, nil
}

// readChunk reads the next chunk of c's rows, or marks c at its end.
func (r *Reader) readChunk(c *segmentCursor) error {
	n, err := c.read(r)
	c.n, c.i = n, 0
	if err == io.EOF || (err == nil && n == 0) {
		c.eof = true
	} else if err != nil {
		return segmentError(c.item.Key, err)
	}
	return nil
}

// tornMessage says which seqs a torn segment drops.
func tornMessage(item planItem) string {
	return fmt.Sprintf("torn segment (truncated, no valid footer): seq %d to %d of epoch %d dropped; the epoch's events end at seq %d",
		item.First, item.end(), item.Epoch, item.First-1)
}

// follows applies the continuity rule of the reader rules to seq, kept
// right after seq prev (0 before the first event of a log): nil when seq is
// prev+1, else the SeqGapError. Every reader of events, on a bucket or in
// a JSONL file, checks the events it keeps with it.
func follows(prev, seq int64) error {
	if seq != prev+1 {
		return SeqGapError(prev, seq)
	}
	return nil
}

// SeqGapError returns the error, wrapping ErrSeqGap, of seq got read right
// after seq last: "seq 9 missing before seq 10", "seq 9 to 11 missing
// before seq 12", or for a seq that does not move on, "seq 7 follows seq 9
// (duplicate or out of order)". Every reader of events, on a bucket or in
// a JSONL file, reports a gap with it.
func SeqGapError(last, got int64) error {
	if got > last+1 {
		return fmt.Errorf("%w: %s missing before seq %d", ErrSeqGap, seqRange(last+1, got-1), got)
	}
	return fmt.Errorf("%w: seq %d follows seq %d (duplicate or out of order)", ErrSeqGap, got, last)
}

// seqRange reads "seq 9" or "seq 9 to 11".
func seqRange(first, last int64) string {
	if first == last {
		return fmt.Sprintf("seq %d", first)
	}
	return fmt.Sprintf("seq %d to %d", first, last)
}

// finishSegment ends the current segment, noticing the rows it fenced.
func (r *Reader) finishSegment() {
	c := r.seg
	r.seg = nil
	c.release(r)
	if c.fenced > 0 {
		r.notice(format.Notice{Kind: format.NoticeFenced, Key: c.item.Key, Epoch: c.item.Epoch, Seq: c.item.fence.seq, Count: c.fenced,
			Message: fmt.Sprintf("%s of fenced epoch %d (a newer epoch starts at seq %d); filtered", human.Count(c.fenced, "row"), c.item.Epoch, c.item.fence.seq)})
	}
}
