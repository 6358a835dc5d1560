package blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jobevent/jobevent/pkg/format"
	"github.com/parquet-go/parquet-go"
)

var memLogs atomic.Int64

// uniqueMem returns the URL of a mem:// bucket no other test of this
// process uses (mem:// buckets live as long as the process: -count=N).
func uniqueMem(name string) string {
	return fmt.Sprintf("mem://%s-%d", name, memLogs.Add(1))
}

// memLog returns a new, empty mem:// log.
func memLog(t *testing.T) *Log {
	t.Helper()
	l, err := Open(ctx, fmt.Sprintf("mem://reader-test?prefix=%s-%d/", strings.ReplaceAll(t.Name(), "/", "-"), memLogs.Add(1)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func TestReader_KeyAndNotices(t *testing.T) {
	l := memLog(t)
	events, keys := threeSegments(t, l)
	if err := l.store.put(ctx, "events/notes.txt", []byte("x"), contentTypeText); err != nil {
		t.Fatal(err)
	}
	r, err := l.NewReader(ctx, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if n := r.Notices(); len(n) != 1 || n[0].Kind != format.NoticeUnknownObject || n[0].Key != "events/notes.txt" {
		t.Fatalf("notices = %+v, want the unknown object", n)
	}
	if n := r.Notices(); len(n) != 0 {
		t.Fatalf("notices drained twice: %+v", n)
	}
	for i := range events {
		e, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if want := keys[i/10]; r.Key() != want {
			t.Fatalf("key of seq %d = %s, want %s", e.Seq, r.Key(), want)
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("after the last event: %v, want io.EOF", err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("EOF is not sticky: %v", err)
	}
}

// TestReader_UnknownVersion reads a segment whose footer names schema 2.0:
// an error naming the key and the version, not corruption.
func TestReader_UnknownVersion(t *testing.T) {
	l := memLog(t)
	claim(t, l, 1, 1)
	writeSegments(t, l, numbered(genEvents(5, 1), 1, 1), 5)
	type row struct {
		Seq int64 `parquet:"seq"`
	}
	var buf bytes.Buffer
	pw := parquet.NewGenericWriter[row](&buf, parquet.KeyValueMetadata(format.SchemaVersionKey, "2.0"))
	if _, err := pw.Write([]row{{6}, {7}}); err != nil {
		t.Fatal(err)
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	key := FormatSegmentName(1, 6, 7)
	if err := l.store.put(ctx, key, buf.Bytes(), contentTypeParquet); err != nil {
		t.Fatal(err)
	}
	got, _, err := readAll(t, l, ReaderOptions{})
	if !errors.Is(err, format.ErrUnknownVersion) || IsCorrupt(err) {
		t.Fatalf("err = %v, want an unknown version that is not corruption", err)
	}
	if !strings.HasPrefix(err.Error(), key+": ") || !strings.Contains(err.Error(), "2.0") {
		t.Fatalf("err = %q, want the key and the version", err)
	}
	if len(got) != 5 {
		t.Fatalf("events before the error = %d, want 5", len(got))
	}
}

// TestReader_RowsDisagreeWithName covers segments whose rows do not match
// their names.
func TestReader_RowsDisagreeWithName(t *testing.T) {
	events := numbered(genEvents(5, 2), 1, 1)
	var seg bytes.Buffer
	if err := format.EncodeSegment(&seg, events); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, key, want string
	}{
		{"Epoch", FormatSegmentName(2, 1, 5), "row 0 holds epoch 1 seq 1, the name says epoch 2 seq 1"},
		{"Seq", FormatSegmentName(1, 2, 6), "row 0 holds epoch 1 seq 1, the name says epoch 1 seq 2"},
		{"Count", FormatSegmentName(1, 1, 9), "the name says 9 rows, the segment holds 5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := memLog(t)
			if err := l.store.put(ctx, tc.key, seg.Bytes(), contentTypeParquet); err != nil {
				t.Fatal(err)
			}
			_, _, err := readAll(t, l, ReaderOptions{})
			if !IsCorrupt(err) || err.Error() != tc.key+": "+tc.want {
				t.Fatalf("err = %v, want %q", err, tc.key+": "+tc.want)
			}
		})
	}
}

func TestReader_DuplicateAcrossEpochs(t *testing.T) {
	l := memLog(t)
	gen := genEvents(20, 3)
	claim(t, l, 1, 1)
	writeSegments(t, l, numbered(gen[:10], 1, 1), 10)
	claim(t, l, 2, 11)
	key, err := l.WriteSegment(ctx, numbered(gen[10:17], 2, 9)) // starts before its start_seq
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = readAll(t, l, ReaderOptions{})
	if !IsCorrupt(err) || !errors.Is(err, ErrSeqGap) || !strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "seq 9 follows seq 10") {
		t.Fatalf("err = %v, want a duplicate in %s", err, key)
	}
}

func TestReader_CorruptEpochObject(t *testing.T) {
	l := memLog(t)
	threeSegments(t, l)
	if err := l.store.put(ctx, epochKey(2), []byte("{not json"), contentTypeJSON); err != nil {
		t.Fatal(err)
	}
	_, _, err := readAll(t, l, ReaderOptions{})
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.Key != epochKey(2) {
		t.Fatalf("err = %v, want corruption of %s", err, epochKey(2))
	}
	if _, err := l.Epochs(ctx); !IsCorrupt(err) {
		t.Fatalf("Epochs: %v, want corruption", err)
	}
}

// TestReader_CompactionWhileReading deletes the segments a reader has
// planned, after writing the one that covers them: the reader re-lists and
// goes on without losing or repeating an event.
func TestReader_CompactionWhileReading(t *testing.T) {
	l := memLog(t)
	events, keys := threeSegments(t, l)
	r, err := l.NewReader(ctx, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []format.Event
	for range 5 {
		e, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e)
	}
	if _, err := l.WriteSegment(ctx, events); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if err := l.Delete(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e)
	}
	assertEvents(t, got, events)
}

func TestReader_TornNotNewest(t *testing.T) {
	l := memLog(t)
	_, keys := threeSegments(t, l)
	mangle(t, l, keys[0], truncateHalf)
	_, _, err := readAll(t, l, ReaderOptions{})
	if !IsCorrupt(err) || !errors.Is(err, format.ErrNoFooter) || !strings.HasPrefix(err.Error(), keys[0]) {
		t.Fatalf("err = %v, want %s corrupt: a torn segment that is not the newest", err, keys[0])
	}
}

// TestReader_TornPerEpoch: each epoch's newest segment may be torn.
func TestReader_TornPerEpoch(t *testing.T) {
	l := memLog(t)
	gen := genEvents(40, 4)
	claim(t, l, 1, 1)
	k1 := writeSegments(t, l, numbered(gen[:20], 1, 1), 10)
	mangle(t, l, k1[1], truncateHalf)
	claim(t, l, 2, 11)
	k2 := writeSegments(t, l, numbered(gen[20:40], 2, 11), 10)
	mangle(t, l, k2[1], truncateHalf)
	got, notices := mustReadAll(t, l, ReaderOptions{})
	want := append(numbered(gen[:10], 1, 1), numbered(gen[20:30], 2, 11)...)
	assertEvents(t, got, want)
	torn := noticesOf(notices, format.NoticeTornTail)
	// Epoch 1's torn segment lies wholly past epoch 2's start: fenced, not torn.
	if len(torn) != 1 || torn[0].Key != k2[1] {
		t.Fatalf("torn = %+v, want %s", torn, k2[1])
	}
}

func TestReader_Truncations(t *testing.T) {
	// Every truncation of the newest segment is a torn tail or, when
	// little enough is cut that the footer survives, corruption, never a
	// panic or wrong events.
	l := memLog(t)
	events, keys := threeSegments(t, l)
	whole, err := l.store.get(ctx, keys[2])
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(whole); n += 1 + len(whole)/97 {
		if err := l.store.put(ctx, keys[2], whole[:n], contentTypeParquet); err != nil {
			t.Fatal(err)
		}
		got, notices, err := readAll(t, l, ReaderOptions{})
		switch {
		case err != nil && !IsCorrupt(err):
			t.Fatalf("cut at %d: %v, want torn or corrupt", n, err)
		case err == nil && len(noticesOf(notices, format.NoticeTornTail)) != 1:
			t.Fatalf("cut at %d: no torn notice", n)
		}
		assertEvents(t, got, events[:20])
	}
}

// slowGets is an objectStore whose reads take a while, and which records
// how many run at once.
type slowGets struct {
	objectStore
	mu             sync.Mutex
	inflight, peak int
	gets           int
}

func (s *slowGets) get(ctx context.Context, key string) ([]byte, error) {
	s.mu.Lock()
	s.inflight++
	s.gets++
	s.peak = max(s.peak, s.inflight)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inflight--
		s.mu.Unlock()
	}()
	select {
	case <-time.After(2 * time.Millisecond): // a bucket's request latency
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.objectStore.get(ctx, key)
}

// TestReader_Prefetch reads a log of many small segments through a store
// with request latency: the reader keeps several reads in flight, never
// more than its bound, reads each segment once, and returns every event in
// order.
func TestReader_Prefetch(t *testing.T) {
	l := memLog(t)
	const segments, per = 40, 5
	events := numbered(genEvents(segments*per, 9), 1, 1)
	for i := range segments {
		if _, err := l.WriteSegment(ctx, events[i*per:(i+1)*per]); err != nil {
			t.Fatal(err)
		}
	}
	slow := &slowGets{objectStore: l.store}
	l.store = slow
	got, _ := mustReadAll(t, l, ReaderOptions{})
	assertEvents(t, got, events)
	if slow.peak < 2 || slow.peak > prefetchSegments+1 {
		t.Errorf("%d reads in flight at most, want 2 to %d", slow.peak, prefetchSegments+1)
	}
	if slow.gets != segments {
		t.Errorf("%d reads of %d segments, want one each", slow.gets, segments)
	}
	// A reader stopped early leaves no reads behind once closed.
	r, err := l.NewReader(ctx, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		slow.mu.Lock()
		n := slow.inflight
		slow.mu.Unlock()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d reads still in flight after Close", n)
		}
		time.Sleep(time.Millisecond) // polling interval of the condition
	}
}
