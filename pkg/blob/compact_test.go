package blob

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jobevent/jobevent/pkg/format"
)

// segmentKeys lists the log's segment keys in name order.
func segmentKeys(t *testing.T, l *Log) []string {
	t.Helper()
	segs, err := l.Segments(ctx)
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]string, len(segs))
	for i, s := range segs {
		keys[i] = s.Key
	}
	return keys
}

// finishedEvent is the job_finished event that ends a job.
func finishedEvent() format.Event {
	return format.Event{Kind: format.KindJobFinished, Job: "wordcount", Status: "finished",
		Time: time.Date(2026, 12, 2, 11, 0, 0, 0, time.UTC)}
}

// fencedLog writes a log that failed over: epoch 1 holds seq 1-30 in three
// segments, the last of which straddles epoch 2's start (seq 25), and a
// segment of fenced rows only (31-35); epoch 2 holds seq 25-50 in three
// segments and ends with job_finished when finished is set. It returns the
// events as read.
func fencedLog(t *testing.T, l *Log, finished bool) []format.Event {
	t.Helper()
	claim(t, l, 1, 1)
	e1 := numbered(genEvents(35, 3), 1, 1)
	writeSegments(t, l, e1, 10) // 1-10, 11-20, 21-30, 31-35
	claim(t, l, 2, 25)
	g := genEvents(26, 4)
	if finished {
		g[25] = finishedEvent()
	}
	e2 := numbered(g, 2, 25)
	writeSegments(t, l, e2[:6], 6)  // 25-30
	writeSegments(t, l, e2[6:], 10) // 31-40, 41-50
	return append(append([]format.Event(nil), e1[:24]...), e2...)
}

func TestCompact_Fenced(t *testing.T) {
	l, err := Create(ctx, uniqueMem("compact-fenced"))
	if err != nil {
		t.Fatal(err)
	}
	want := fencedLog(t, l, true)
	_, before := mustReadAll(t, l, ReaderOptions{})
	checkColumnsAgree(t, l, format.ColumnFields)
	res, err := Compact(ctx, l, CompactOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, after := mustReadAll(t, l, ReaderOptions{})
	assertEvents(t, got, want)
	checkColumnsAgree(t, l, format.ColumnFields)
	wantKeys := []string{
		FormatSegmentName(1, 1, 30),
		FormatSegmentName(1, 31, 35), // fenced rows only: left alone
		FormatSegmentName(2, 25, 50), // the job finished: the tail too
	}
	if keys := segmentKeys(t, l); !slices.Equal(keys, wantKeys) {
		t.Fatalf("segments = %v, want %v", keys, wantKeys)
	}
	if len(res.Covering) != 2 || res.SegmentsBefore != 7 || res.SegmentsAfter != 3 || len(res.Skipped) != 1 {
		t.Fatalf("result = %+v", res)
	}
	if res.BytesAfter >= res.BytesBefore {
		t.Fatalf("bytes %d -> %d, want fewer", res.BytesBefore, res.BytesAfter)
	}
	// The fenced rows are still there, and still filtered: as many as before.
	if f, g := fencedRows(before), fencedRows(after); f != 11 || g != 11 {
		t.Fatalf("fenced rows before %d, after %d, want 11 both", f, g)
	}
	// Nothing left to do.
	res, err = Compact(ctx, l, CompactOptions{})
	if err != nil || len(res.Covering) != 0 || res.SegmentsAfter != 3 {
		t.Fatalf("second compaction = %+v, %v; want nothing done", res, err)
	}
}

func fencedRows(notices []format.Notice) int64 {
	var n int64
	for _, x := range noticesOf(notices, format.NoticeFenced) {
		n += x.Count
	}
	return n
}

// TestCompact_Running leaves the newest segment of a job that has not
// finished alone, and merges it once a newer epoch is claimed.
func TestCompact_Running(t *testing.T) {
	l, err := Create(ctx, uniqueMem("compact-running"))
	if err != nil {
		t.Fatal(err)
	}
	claim(t, l, 1, 1)
	events := numbered(genEvents(40, 5), 1, 1)
	writeSegments(t, l, events, 10)
	res, err := Compact(ctx, l, CompactOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{FormatSegmentName(1, 1, 30), FormatSegmentName(1, 31, 40)}
	if keys := segmentKeys(t, l); !slices.Equal(keys, want) {
		t.Fatalf("segments = %v, want %v", keys, want)
	}
	if len(res.Skipped) != 1 || res.Skipped[0].Key != want[1] || !strings.Contains(res.Skipped[0].Reason, "may still be writing") {
		t.Fatalf("skipped = %+v", res.Skipped)
	}
	claim(t, l, 2, 41)
	if _, err := Compact(ctx, l, CompactOptions{}); err != nil {
		t.Fatal(err)
	}
	if keys := segmentKeys(t, l); !slices.Equal(keys, []string{FormatSegmentName(1, 1, 40)}) {
		t.Fatalf("segments after a newer claim = %v", keys)
	}
	got, _ := mustReadAll(t, l, ReaderOptions{})
	assertEvents(t, got, events)
}

func TestCompact_DryRun(t *testing.T) {
	l, err := Create(ctx, uniqueMem("compact-dry"))
	if err != nil {
		t.Fatal(err)
	}
	fencedLog(t, l, false)
	before := segmentKeys(t, l)
	res, err := Compact(ctx, l, CompactOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(segmentKeys(t, l), before) {
		t.Fatal("a dry run changed the log")
	}
	if len(res.Covering) != 2 || res.Covering[0].Key != FormatSegmentName(1, 1, 30) || res.Covering[1].Key != FormatSegmentName(2, 25, 40) {
		t.Fatalf("planned = %+v", res.Covering)
	}
	parts := 0
	for _, cv := range res.Covering {
		parts += cv.Parts
	}
	if want := len(before) - parts + len(res.Covering); res.SegmentsBefore != len(before) || res.SegmentsAfter != want {
		t.Fatalf("segments %d -> %d, want %d -> %d", res.SegmentsBefore, res.SegmentsAfter, len(before), want)
	}
	if ok, _ := l.store.stat(ctx, CompactLockKey); ok.Key != "" {
		t.Fatal("a dry run took the lock")
	}
}

// TestCompact_Torn compacts the segments before a torn newest segment and
// leaves that one alone. (A claim of a newer epoch either fences a torn
// segment whole, when its start_seq is at or before the segment, or
// promises that the segment's events were durable, which makes it corrupt:
// only the newest epoch's tail can be torn.)
func TestCompact_Torn(t *testing.T) {
	l, err := Create(ctx, uniqueMem("compact-torn"))
	if err != nil {
		t.Fatal(err)
	}
	claim(t, l, 1, 1)
	events := numbered(genEvents(30, 6), 1, 1)
	keys := writeSegments(t, l, events, 10)
	mangle(t, l, keys[2], truncateHalf)
	res, err := Compact(ctx, l, CompactOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := segmentKeys(t, l); !slices.Equal(got, []string{FormatSegmentName(1, 1, 20), keys[2]}) {
		t.Fatalf("segments = %v", got)
	}
	if len(res.Skipped) != 1 || res.Skipped[0].Key != keys[2] {
		t.Fatalf("skipped = %+v", res.Skipped)
	}
	got, notices := mustReadAll(t, l, ReaderOptions{})
	assertEvents(t, got, events[:20])
	if torn := noticesOf(notices, format.NoticeTornTail); len(torn) != 1 {
		t.Fatalf("notices = %+v, want the torn tail", notices)
	}
}

// TestCompact_Corrupt stops at a segment that does not decode.
func TestCompact_Corrupt(t *testing.T) {
	l, err := Create(ctx, uniqueMem("compact-corrupt"))
	if err != nil {
		t.Fatal(err)
	}
	claim(t, l, 1, 1)
	keys := writeSegments(t, l, numbered(genEvents(40, 7), 1, 1), 10)
	mangle(t, l, keys[1], flipMiddle)
	_, err = Compact(ctx, l, CompactOptions{})
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.Key != keys[1] {
		t.Fatalf("err = %v, want corruption of %s", err, keys[1])
	}
	if got := segmentKeys(t, l); !slices.Equal(got, keys) {
		t.Fatalf("segments = %v, want them untouched", got)
	}
	if _, err := l.store.stat(ctx, CompactLockKey); !errors.Is(err, ErrNotFound) {
		t.Fatalf("lock after a failed compaction: %v, want it released", err)
	}
}

// TestCompact_NoSegments: a log whose events/ was deleted is refused
// (dry run or not), never reported as compacted.
func TestCompact_NoSegments(t *testing.T) {
	l, err := Create(ctx, uniqueMem("compact-nosegments"))
	if err != nil {
		t.Fatal(err)
	}
	claim(t, l, 1, 1)
	for _, dry := range []bool{false, true} {
		res, err := Compact(ctx, l, CompactOptions{DryRun: dry})
		if !errors.Is(err, ErrNoSegments) {
			t.Fatalf("dry run %v: Compact = %+v, %v, want ErrNoSegments", dry, res, err)
		}
	}
}

// TestCompact_SizeCap splits a run whose covering segment would exceed
// MaxSegmentBytes at a part boundary, and keeps every segment under it.
func TestCompact_SizeCap(t *testing.T) {
	l, err := Create(ctx, uniqueMem("compact-cap"))
	if err != nil {
		t.Fatal(err)
	}
	claim(t, l, 1, 1)
	events := numbered(genEvents(800, 8), 1, 1)
	events = append(events, numbered([]format.Event{finishedEvent()}, 1, 801)...)
	writeSegments(t, l, events, 100)
	saved := maxSegmentBytes
	maxSegmentBytes = 12 << 10
	defer func() { maxSegmentBytes = saved }()
	if _, err := Compact(ctx, l, CompactOptions{TargetSize: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	segs, err := l.Segments(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) < 2 || len(segs) >= 9 {
		t.Fatalf("segments = %d, want the 9 parts merged into a few", len(segs))
	}
	for _, s := range segs {
		if s.Size > int64(maxSegmentBytes) {
			t.Fatalf("%s is %d bytes, over the cap of %d", s.Key, s.Size, maxSegmentBytes)
		}
		if (s.First-1)%100 != 0 && s.First != 801 {
			t.Fatalf("%s starts inside a part", s.Key)
		}
	}
	got, _ := mustReadAll(t, l, ReaderOptions{})
	assertEvents(t, got, events)
}

func TestCompact_Lock(t *testing.T) {
	l, err := Create(ctx, uniqueMem("compact-lock"))
	if err != nil {
		t.Fatal(err)
	}
	claim(t, l, 1, 1)
	writeSegments(t, l, numbered(genEvents(40, 9), 1, 1), 10)
	held, err := l.lockCompaction(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Compact(ctx, l, CompactOptions{})
	if !errors.Is(err, ErrCompacting) || !strings.Contains(err.Error(), `"owner":`) {
		t.Fatalf("compaction while locked: %v, want ErrCompacting naming the owner", err)
	}
	if len(segmentKeys(t, l)) != 4 {
		t.Fatal("a locked-out compaction changed the log")
	}
	// A lock whose compaction died goes stale.
	saved := compactLockTTL
	compactLockTTL = 0
	defer func() { compactLockTTL = saved }()
	if _, err := Compact(ctx, l, CompactOptions{}); err != nil {
		t.Fatalf("compaction over a stale lock: %v", err)
	}
	if _, err := l.store.stat(ctx, CompactLockKey); !errors.Is(err, ErrNotFound) {
		t.Fatalf("lock after compaction: %v, want it released", err)
	}
	if err := held.release(); err != nil {
		t.Fatal(err)
	}
}

// opFaultStore fails the n-th operation on events/ and epochs/ (listings
// included): before it happens, or, for writes and deletes, after it
// landed.
type opFaultStore struct {
	objectStore
	mu    sync.Mutex
	ops   int
	fail  int  // 1-based; 0: never
	after bool // the failing write or delete lands first
}

// step counts an operation and reports whether it fails.
func (s *opFaultStore) step(key string) bool {
	if key == CompactLockKey || strings.HasPrefix(key, probesDir) {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ops++
	return s.ops == s.fail
}

func (s *opFaultStore) mutate(key string, op func() error) error {
	if !s.step(key) {
		return op()
	}
	if s.after {
		if err := op(); err != nil {
			return err
		}
	}
	return fmt.Errorf("%s: %w", key, errInjected)
}

func (s *opFaultStore) create(ctx context.Context, key string, data []byte, ct string) error {
	return s.mutate(key, func() error { return s.objectStore.create(ctx, key, data, ct) })
}

func (s *opFaultStore) put(ctx context.Context, key string, data []byte, ct string) error {
	return s.mutate(key, func() error { return s.objectStore.put(ctx, key, data, ct) })
}

func (s *opFaultStore) delete(ctx context.Context, key string) error {
	return s.mutate(key, func() error { return s.objectStore.delete(ctx, key) })
}

func (s *opFaultStore) get(ctx context.Context, key string) ([]byte, error) {
	if s.step(key) {
		return nil, fmt.Errorf("%s: %w", key, errInjected)
	}
	return s.objectStore.get(ctx, key)
}

func (s *opFaultStore) stat(ctx context.Context, key string) (objectInfo, error) {
	if s.step(key) {
		return objectInfo{}, fmt.Errorf("%s: %w", key, errInjected)
	}
	return s.objectStore.stat(ctx, key)
}

func (s *opFaultStore) list(ctx context.Context, prefix string, fn func(objectInfo) error) error {
	if s.step(prefix) {
		return fmt.Errorf("%s: %w", prefix, errInjected)
	}
	return s.objectStore.list(ctx, prefix, fn)
}

// TestCompact_Crash fails every operation of a compaction in turn, before
// and after it lands, and checks after each that the log reads exactly as
// before and that the next compaction finishes the work.
func TestCompact_Crash(t *testing.T) {
	fixture := func(t *testing.T) (*Log, []format.Event) {
		l, err := Create(ctx, uniqueMem("compact-crash"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		want := fencedLog(t, l, true)
		// A leftover of an earlier, interrupted compaction of 1-20.
		if _, err := l.WriteSegment(ctx, want[:20]); err != nil {
			t.Fatal(err)
		}
		return l, want
	}
	// A clean run: how many operations, and the layout it leaves.
	clean, want := fixture(t)
	fs := &opFaultStore{objectStore: clean.store}
	clean.store = fs
	if _, err := Compact(ctx, clean, CompactOptions{TargetSize: 16 << 10}); err != nil {
		t.Fatal(err)
	}
	total := fs.ops
	if segs := segmentKeys(t, clean); total < 10 || len(segs) > 4 {
		t.Fatalf("clean compaction: %d operations, segments %v", total, segs)
	}
	for _, after := range []bool{false, true} {
		for fail := 1; fail <= total; fail++ {
			t.Run(fmt.Sprintf("op%d/after=%v", fail, after), func(t *testing.T) {
				l, _ := fixture(t)
				base := l.store
				l.store = &opFaultStore{objectStore: base, fail: fail, after: after}
				// The failure may be reported, or retried (segment writes).
				Compact(ctx, l, CompactOptions{TargetSize: 16 << 10})
				l.store = base
				got, notices := mustReadAll(t, l, ReaderOptions{})
				assertEvents(t, got, want)
				if f := fencedRows(notices); f != 11 {
					t.Fatalf("fenced rows = %d, want 11", f)
				}
				checkColumnsAgree(t, l, format.FieldBytesOut) // every state a crash leaves
				if _, err := Compact(ctx, l, CompactOptions{TargetSize: 16 << 10}); err != nil {
					t.Fatalf("compaction after the crash: %v", err)
				}
				got, notices = mustReadAll(t, l, ReaderOptions{})
				assertEvents(t, got, want)
				if covered := noticesOf(notices, format.NoticeCovered); len(covered) > 0 {
					t.Fatalf("covered segments left after a complete compaction: %+v", covered)
				}
			})
		}
	}
}

// TestCompact_Overlap refuses a log whose segments overlap without one
// covering the other.
func TestCompact_Overlap(t *testing.T) {
	l, err := Create(ctx, uniqueMem("compact-overlap"))
	if err != nil {
		t.Fatal(err)
	}
	claim(t, l, 1, 1)
	events := numbered(genEvents(30, 10), 1, 1)
	keys := writeSegments(t, l, events, 10)
	bad, err := l.WriteSegment(ctx, events[5:15])
	if err != nil {
		t.Fatal(err)
	}
	checkColumnsAgree(t, l, format.FieldBytesOut)
	_, err = Compact(ctx, l, CompactOptions{})
	if !IsCorrupt(err) || !strings.Contains(err.Error(), "overlaps") || !strings.Contains(err.Error(), bad) {
		t.Fatalf("err = %v, want an overlap corruption naming %s", err, bad)
	}
	if got := segmentKeys(t, l); len(got) != len(keys)+1 {
		t.Fatalf("segments = %v, want them untouched", got)
	}
}
