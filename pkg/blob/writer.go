package blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jobevent/jobevent/internal/human"
	"github.com/jobevent/jobevent/pkg/format"
)

// Defaults of WriterOptions, Flink's job-event.store.write-buffer.size and
// job-event.store.write-buffer.flush-interval.
const (
	DefaultBufferSize    = 1 << 20
	DefaultFlushInterval = time.Second
)

// WriterOptions configures a Writer. The zero value means the defaults.
type WriterOptions struct {
	// BufferSize is the estimated encoded size of pending events, in bytes,
	// at which the writer flushes; it also bounds the size of one segment,
	// which is never more than MaxSegmentBytes whatever BufferSize says.
	// 0 means DefaultBufferSize.
	BufferSize int
	// FlushInterval bounds how long an appended event stays pending.
	// 0 means DefaultFlushInterval; negative disables timed flushes.
	FlushInterval time.Duration
	// Clock is the time source; nil means the wall clock.
	Clock Clock
	// Retry governs failed uploads.
	Retry RetryPolicy
	// BeforeUpload, when set, is called with a segment's key after the
	// fencing check and before the upload: tests pause a master there to
	// let another claim the next epoch in between.
	BeforeUpload func(key string)
}

// RetryPolicy governs how a failed upload is retried: with exponential
// backoff from MinBackoff, doubling up to MaxBackoff, for at most Attempts
// attempts in all. Zero fields mean the defaults (10 attempts, 100 ms, 10 s:
// about 35 s before the writer gives up).
type RetryPolicy struct {
	Attempts   int
	MinBackoff time.Duration
	MaxBackoff time.Duration
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.Attempts <= 0 {
		p.Attempts = 10
	}
	if p.MinBackoff <= 0 {
		p.MinBackoff = 100 * time.Millisecond
	}
	if p.MaxBackoff < p.MinBackoff {
		p.MaxBackoff = max(10*time.Second, p.MinBackoff)
	}
	return p
}

// backoff returns the wait before attempt n+1 after attempt n failed.
func (p RetryPolicy) backoff(n int) time.Duration {
	d := p.MinBackoff
	for i := 1; i < n && d < p.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, p.MaxBackoff)
}

// Writer appends the events of one epoch to a log. Append only buffers; a
// background goroutine turns pending events into segments, one Upload each,
// when BufferSize is reached, every FlushInterval, on Flush and on Close.
// Before each upload it checks that no newer epoch has been claimed; if one
// has, the writer is fenced: it stops, drops what is pending, and Err
// returns ErrFenced. A failed upload is retried per RetryPolicy; when the
// attempts run out the failure is persistent: Err returns it, Status says
// "recording degraded", and Append, Flush and Close return it.
//
// All methods are safe for concurrent use.
type Writer struct {
	log   *Log
	epoch int32
	opts  WriterOptions
	clock Clock
	kick  chan struct{} // wakes the flush loop; capacity 1
	done  chan struct{} // closed when the flush loop has exited

	mu          sync.Mutex
	pending     eventQueue
	pendingSize int
	next        int64 // the seq the next Append assigns
	durable     int64 // the last seq known durable
	err         error // sticky: fenced or persistent failure
	closed      bool
	waiters     []flushWaiter
	onDurable   func(seq int64)
}

type flushWaiter struct {
	seq int64
	ch  chan error
}

// NewWriter returns a writer for epoch whose first event gets seq nextSeq.
// The caller must have claimed epoch (ClaimEpoch) with StartSeq nextSeq, and
// must Close the writer.
func (l *Log) NewWriter(epoch int32, nextSeq int64, opts WriterOptions) *Writer {
	if opts.BufferSize <= 0 {
		opts.BufferSize = DefaultBufferSize
	}
	if opts.FlushInterval == 0 {
		opts.FlushInterval = DefaultFlushInterval
	}
	if opts.Clock == nil {
		opts.Clock = realClock{}
	}
	opts.Retry = opts.Retry.withDefaults()
	if nextSeq < 1 {
		nextSeq = 1
	}
	w := &Writer{
		log:     l,
		epoch:   epoch,
		opts:    opts,
		clock:   opts.Clock,
		kick:    make(chan struct{}, 1),
		done:    make(chan struct{}),
		next:    nextSeq,
		durable: nextSeq - 1,
	}
	go w.run()
	return w
}

// Append assigns e the next seq, the writer's epoch and, when e.Time is
// zero, the clock's time, and buffers it. It never waits for I/O. It
// returns the seq assigned, or the writer's error once it is fenced, has
// failed, or is closed. The writer keeps e: the caller must not modify the
// slices and maps it references afterwards.
func (w *Writer) Append(e format.Event) (int64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return 0, w.err
	}
	if w.closed {
		return 0, ErrClosed
	}
	e.Seq = w.next
	e.Epoch = w.epoch
	if e.Time.IsZero() {
		e.Time = w.clock.Now()
	}
	e.Time = e.Time.UTC()
	w.next++
	wasEmpty := w.pending.n == 0
	w.pending.push(e)
	w.pendingSize += estimateSize(&e)
	if wasEmpty || w.pendingSize >= w.opts.BufferSize {
		w.wake()
	}
	return e.Seq, nil
}

// Flush blocks until every event appended before the call is durable, and
// returns nil then; or returns the writer's error, or ctx's.
func (w *Writer) Flush(ctx context.Context) error {
	w.mu.Lock()
	if w.err != nil {
		err := w.err
		w.mu.Unlock()
		return fmt.Errorf("flush epoch %d: %w", w.epoch, err)
	}
	target := w.next - 1
	if w.durable >= target {
		w.mu.Unlock()
		return nil
	}
	if w.closed {
		w.mu.Unlock()
		return ErrClosed
	}
	ch := make(chan error, 1)
	w.waiters = append(w.waiters, flushWaiter{seq: target, ch: ch})
	w.mu.Unlock()
	w.wake()
	select {
	case err := <-ch:
		if err != nil {
			return fmt.Errorf("flush epoch %d: %w", w.epoch, err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("flush epoch %d: %w", w.epoch, ctx.Err())
	}
}

// Close flushes what is pending, stops the writer and returns its error, if
// any. Later calls return the same.
func (w *Writer) Close() error {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.wake()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return fmt.Errorf("close writer of epoch %d: %w", w.epoch, w.err)
	}
	return nil
}

// Durable returns the last seq known durable: nextSeq-1 until the first
// flush completes.
func (w *Writer) Durable() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.durable
}

// Err returns ErrFenced once a newer epoch has been seen, the persistent
// upload failure once retries ran out, or nil.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Status describes the writer's health for people: "ok", "fenced: ...", or
// "recording degraded: <error>".
func (w *Writer) Status() string {
	err := w.Err()
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, ErrFenced):
		return fmt.Sprintf("fenced: a newer epoch than %d holds the log", w.epoch)
	default:
		return "recording degraded: " + err.Error()
	}
}

// OnDurable sets a hook called with the last seq of each segment once it is
// durable, in seq order, on the writer's goroutine. The hook must not call
// Flush or Close (they wait for that goroutine); Append is fine.
func (w *Writer) OnDurable(fn func(seq int64)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.onDurable = fn
}

func (w *Writer) wake() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// run is the flush loop.
func (w *Writer) run() {
	defer close(w.done)
	var timer <-chan time.Time
	fired := false
	for {
		w.mu.Lock()
		n := w.pending.n
		urgent := w.closed || len(w.waiters) > 0 || w.pendingSize >= w.opts.BufferSize
		closed, failed := w.closed, w.err != nil
		w.mu.Unlock()
		if failed || (closed && n == 0) {
			w.failWaiters()
			return
		}
		if n == 0 {
			fired = false
		}
		if n > 0 && (urgent || fired) {
			w.flushPending()
			timer, fired = nil, false
			continue
		}
		if n > 0 && timer == nil && w.opts.FlushInterval > 0 {
			timer = w.clock.After(w.opts.FlushInterval)
		}
		select {
		case <-w.kick:
		case <-timer:
			timer, fired = nil, true
		}
	}
}

// failWaiters answers every Flush still waiting, with the writer's error or
// ErrClosed.
func (w *Writer) failWaiters() {
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.err
	if err == nil {
		err = ErrClosed
	}
	for _, fw := range w.waiters {
		if fw.seq <= w.durable {
			fw.ch <- nil
		} else {
			fw.ch <- err
		}
	}
	w.waiters = nil
}

// flushPending uploads everything pending at the time of the call, as
// segments of at most about BufferSize each.
func (w *Writer) flushPending() {
	w.mu.Lock()
	pending := w.pending
	w.pending, w.pendingSize = eventQueue{free: pending.free}, 0
	pending.free = nil
	w.mu.Unlock()
	var buf bytes.Buffer
	var batch []format.Event
	for pending.n > 0 {
		batch = w.nextBatch(&pending, batch[:0])
		err := w.upload(&buf, batch)
		clear(batch) // drop references the encoder no longer needs
		if err != nil {
			w.mu.Lock()
			w.err = err
			w.pending, w.pendingSize = eventQueue{}, 0
			w.mu.Unlock()
			return
		}
	}
	w.mu.Lock()
	w.pending.free = append(w.pending.free, pending.free...)
	w.mu.Unlock()
}

// nextBatch moves the oldest queued events into batch, up to about
// BufferSize of them and at least one: one segment.
func (w *Writer) nextBatch(q *eventQueue, batch []format.Event) []format.Event {
	size := 0
	for q.n > 0 && (len(batch) == 0 || size < w.opts.BufferSize) {
		e := q.pop()
		size += estimateSize(&e)
		batch = append(batch, e)
	}
	return batch
}

// markDurable records that every event up to last is durable, answers the
// Flush calls waiting for it and calls the OnDurable hook.
func (w *Writer) markDurable(last int64) {
	w.mu.Lock()
	w.durable = last
	hook := w.onDurable
	kept := w.waiters[:0]
	for _, fw := range w.waiters {
		if fw.seq <= last {
			fw.ch <- nil
		} else {
			kept = append(kept, fw)
		}
	}
	w.waiters = kept
	w.mu.Unlock()
	if hook != nil {
		hook(last)
	}
}

// upload encodes batch as one segment, or as several when one would exceed
// MaxSegmentBytes, and uploads them in order, marking each durable once it
// is.
func (w *Writer) upload(buf *bytes.Buffer, batch []format.Event) error {
	return encodeCapped(buf, batch, func(part []format.Event, data []byte) error {
		if err := w.uploadSegment(part, data); err != nil {
			return err
		}
		w.markDurable(part[len(part)-1].Seq)
		return nil
	})
}

// uploadSegment uploads one encoded segment, checking for fencing before
// every attempt and retrying per the policy.
func (w *Writer) uploadSegment(part []format.Event, data []byte) error {
	key := FormatSegmentName(w.epoch, part[0].Seq, part[len(part)-1].Seq)
	ctx := context.Background()
	p := w.opts.Retry
	for attempt := 1; ; attempt++ {
		err := w.tryUpload(ctx, key, data)
		if err == nil || errors.Is(err, ErrFenced) {
			return err
		}
		if isPermanent(err) {
			return fmt.Errorf("upload %s: %w", key, err)
		}
		if attempt >= p.Attempts {
			return fmt.Errorf("upload %s failed %s, last: %w", key, human.Count(attempt, "time"), err)
		}
		<-w.clock.After(p.backoff(attempt))
	}
}

func (w *Writer) tryUpload(ctx context.Context, key string, data []byte) error {
	newest, err := w.log.newestEpoch(ctx)
	if err != nil && !isRetryable(err) {
		return permanent(fmt.Errorf("check fencing: %w", err))
	}
	if err != nil {
		return fmt.Errorf("check fencing: %w", err)
	}
	if newest > w.epoch {
		return ErrFenced
	}
	if w.opts.BeforeUpload != nil {
		w.opts.BeforeUpload(key)
	}
	err = w.log.createOnce(ctx, key, data, contentTypeParquet)
	if errors.Is(err, ErrExists) || !isRetryable(err) {
		return permanent(err)
	}
	return err
}

// estimateSize returns a rough, cheap estimate of the bytes e takes in a
// segment before compression: what BufferSize is measured against.
func estimateSize(e *format.Event) int {
	n := 48 + len(e.Kind) + len(e.Job) + len(e.Master) + len(e.Vertex) + len(e.Worker) +
		len(e.Error) + len(e.Reason) + len(e.Status)
	if e.Kind == format.KindSubtaskFinished {
		n += 32
	}
	for _, p := range e.Partitions {
		n += 16 + len(p.Consumer)
	}
	for _, s := range e.Subtasks {
		n += 4 + len(s.Vertex)
	}
	for k, v := range e.Coordinators {
		n += 8 + len(k) + len(v)
	}
	if g := e.Graph; g != nil {
		for _, v := range g.Vertices {
			n += 8 + len(v.ID) + len(v.Operator) + len(v.Coordinator)
		}
		for _, ed := range g.Edges {
			n += len(ed.From) + len(ed.To) + len(ed.Pattern) + len(ed.Dataset)
		}
		n += 16 * len(g.Ranges)
		for _, d := range g.Datasets {
			n += len(d.ID) + len(d.Producer)
		}
	}
	return n
}
