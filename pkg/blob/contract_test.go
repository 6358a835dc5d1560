package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jobevent/jobevent/internal/blobtest"
	"github.com/jobevent/jobevent/internal/blobtest/gcstest"
	"github.com/jobevent/jobevent/pkg/format"
)

// backend is one bucket implementation the contract suite runs against.
type backend struct {
	// newLog returns the URL of a new, empty log.
	newLog func(t *testing.T) string
	// backdate makes the object key of the log at url look d older, as far
	// as the bucket's modification times go; nil when the backend cannot.
	backdate func(t *testing.T, l *Log, key string, d time.Duration)
}

func TestContract(t *testing.T) {
	t.Run("mem", func(t *testing.T) {
		runContract(t, backend{newLog: func(t *testing.T) string {
			return uniqueMem("contract") + "?prefix=jobs/j/"
		}})
	})
	t.Run("file", func(t *testing.T) {
		runContract(t, backend{
			newLog: func(t *testing.T) string { return "file://" + t.TempDir() + "?prefix=jobs/wordcount/" },
			backdate: func(t *testing.T, l *Log, key string, d time.Duration) {
				path := l.store.(*fileStore).path(key)
				old := time.Now().Add(-d)
				if err := os.Chtimes(path, old, old); err != nil {
					t.Fatal(err)
				}
			},
		})
	})
	t.Run("s3", func(t *testing.T) {
		srv := blobtest.NewS3Server(t)
		bucket := srv.Bucket(t)
		var n atomic.Int64
		runContract(t, backend{
			newLog: func(t *testing.T) string { return blobtest.WithPrefix(bucket, fmt.Sprintf("jobs/j%d/", n.Add(1))) },
			// The heartbeat was written before the server's clock moved.
			backdate: func(t *testing.T, l *Log, key string, d time.Duration) { srv.Advance(d) },
		})
	})
	t.Run("gs", func(t *testing.T) {
		bucket := gcstest.NewServer(t).Bucket(t)
		var n atomic.Int64
		runContract(t, backend{newLog: func(t *testing.T) string {
			return blobtest.WithPrefix(bucket, fmt.Sprintf("jobs/j%d/", n.Add(1)))
		}})
	})
	t.Run("azblob", func(t *testing.T) {
		bucket := blobtest.NewAzurite(t).Bucket(t)
		var n atomic.Int64
		runContract(t, backend{newLog: func(t *testing.T) string {
			return blobtest.WithPrefix(bucket, fmt.Sprintf("jobs/j%d/", n.Add(1)))
		}})
	})
}

// runContract runs every behaviour the event store promises against one
// backend. Subtests are sequential (the S3 backend sets the environment).
func runContract(t *testing.T, b backend) {
	tests := []struct {
		name string
		fn   func(t *testing.T, b backend)
	}{
		{"WriteReadBack", testWriteReadBack},
		{"FlushOnSize", testFlushOnSize},
		{"FlushOnInterval", testFlushOnInterval},
		{"FlushExplicit", testFlushExplicit},
		{"FlushOnClose", testFlushOnClose},
		{"TornTail", testTornTail},
		{"CorruptOlderSegment", testCorruptOlderSegment},
		{"Gap", testGap},
		{"FencedZombie", testFencedZombie},
		{"FenceRowByRow", testFenceRowByRow},
		{"ClaimRace", testClaimRace},
		{"Epochs", testEpochs},
		{"Covering", testCovering},
		{"UnknownObjects", testUnknownObjects},
		{"SinceUntil", testSinceUntil},
		{"Follow", testFollow},
		{"RetryFailedUpload", testRetryFailedUpload},
		{"RetryUploadThatLanded", testRetryUploadThatLanded},
		{"PersistentFailure", testPersistentFailure},
		{"Spec", testSpec},
		{"NoLog", testNoLog},
		{"Heartbeat", testHeartbeat},
		{"Import", testImport},
		{"SharedByURL", testSharedByURL},
		{"CreateConflict", testCreateConflict},
		{"NoOverwrite", testNoOverwrite},
		{"Compact", testCompact},
		{"Summary", testSummary},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, b) })
	}
}

var ctx = context.Background()

// newLog creates a new empty log on the backend.
func newLog(t *testing.T, b backend) *Log {
	t.Helper()
	l, err := Create(ctx, b.newLog(t))
	if err != nil {
		t.Fatalf("create log: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// claim claims epoch with start seq, failing the test otherwise.
func claim(t *testing.T, l *Log, epoch int32, start int64) {
	t.Helper()
	if err := l.ClaimEpoch(ctx, EpochInfo{Epoch: epoch, Master: fmt.Sprintf("master-%d", epoch), StartSeq: start}); err != nil {
		t.Fatalf("claim epoch %d: %v", epoch, err)
	}
}

// writeSegments writes events as epoch-1 segments of per events each,
// directly, and returns their keys.
func writeSegments(t *testing.T, l *Log, events []format.Event, per int) []string {
	t.Helper()
	var keys []string
	for i := 0; i < len(events); i += per {
		key, err := l.WriteSegment(ctx, events[i:min(i+per, len(events))])
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, key)
	}
	return keys
}

func testWriteReadBack(t *testing.T, b backend) {
	l := newLog(t, b)
	claim(t, l, 1, 1)
	w := l.NewWriter(1, 1, WriterOptions{BufferSize: 64 << 10, FlushInterval: -1})
	events := genEvents(5000, 1)
	for i, e := range events {
		seq, err := w.Append(e)
		if err != nil {
			t.Fatal(err)
		}
		if seq != int64(i+1) {
			t.Fatalf("seq = %d, want %d", seq, i+1)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := w.Durable(); got != 5000 {
		t.Fatalf("durable = %d, want 5000", got)
	}
	got, notices := mustReadAll(t, l, ReaderOptions{})
	assertEvents(t, got, numbered(events, 1, 1))
	if len(notices) != 0 {
		t.Fatalf("notices = %v, want none", notices)
	}
	segs, err := l.Segments(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) < 2 {
		t.Fatalf("segments = %d, want several with a 64 KiB buffer", len(segs))
	}
	var next int64 = 1
	for _, s := range segs {
		if s.Epoch != 1 || s.First != next || s.Size <= 0 {
			t.Fatalf("segment %+v, want epoch 1 from seq %d with a size", s, next)
		}
		next = s.Last + 1
	}
}

func testFlushOnSize(t *testing.T, b backend) {
	l := newLog(t, b)
	claim(t, l, 1, 1)
	const bufSize = 8 << 10
	w := l.NewWriter(1, 1, WriterOptions{BufferSize: bufSize, FlushInterval: -1})
	durable := durableChan(w)
	events := genEvents(2000, 2)
	var last int64
	for _, e := range events {
		last, _ = w.Append(e)
	}
	// Without Flush or a timer, the size threshold alone makes segments.
	waitDurable(t, durable, last-int64(bufSize/48))
	segs, err := l.Segments(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) < 2 {
		t.Fatalf("segments = %d, want several", len(segs))
	}
	numberedEvents := numbered(events, 1, 1)
	for _, s := range segs {
		size := 0
		for _, e := range numberedEvents[s.First-1 : s.Last-1] { // all but the last row
			size += estimateSize(&e)
		}
		if size >= bufSize {
			t.Fatalf("segment %s holds %d estimated bytes before its last row, want < %d", s.Key, size, bufSize)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, _ := mustReadAll(t, l, ReaderOptions{})
	assertEvents(t, got, numberedEvents)
}

func testFlushOnInterval(t *testing.T, b backend) {
	l := newLog(t, b)
	claim(t, l, 1, 1)
	clock := blobtest.NewClock(time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC))
	w := l.NewWriter(1, 1, WriterOptions{FlushInterval: 5 * time.Second, Clock: clock})
	defer w.Close()
	durable := durableChan(w)
	for _, e := range genEvents(3, 3) {
		if _, err := w.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	if !clock.WaitForTimers(1, 10*time.Second) {
		t.Fatal("the writer armed no flush timer")
	}
	if segs, _ := l.Segments(ctx); len(segs) != 0 || w.Durable() != 0 {
		t.Fatalf("before the interval: %d segments, durable %d; want none", len(segs), w.Durable())
	}
	clock.Advance(4 * time.Second)
	if segs, _ := l.Segments(ctx); len(segs) != 0 {
		t.Fatalf("after 4s of 5s: %d segments, want none", len(segs))
	}
	clock.Advance(time.Second)
	waitDurable(t, durable, 3)
	segs, err := l.Segments(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) != 1 || segs[0].Key != FormatSegmentName(1, 1, 3) {
		t.Fatalf("segments = %v, want one of seq 1-3", segs)
	}
	got, _ := mustReadAll(t, l, ReaderOptions{})
	if want := clock.Now().Add(-5 * time.Second); !got[0].Time.Equal(want) {
		t.Fatalf("time = %v, want the clock's %v", got[0].Time, want)
	}
}

func testFlushExplicit(t *testing.T, b backend) {
	l := newLog(t, b)
	claim(t, l, 1, 1)
	w := l.NewWriter(1, 1, WriterOptions{FlushInterval: -1})
	defer w.Close()
	for round := 1; round <= 3; round++ {
		for _, e := range genEvents(10, uint64(round)) {
			if _, err := w.Append(e); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if got, want := w.Durable(), int64(10*round); got != want {
			t.Fatalf("durable = %d, want %d", got, want)
		}
		segs, err := l.Segments(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(segs) != round {
			t.Fatalf("segments = %d, want %d", len(segs), round)
		}
	}
	if err := w.Flush(ctx); err != nil { // nothing pending
		t.Fatal(err)
	}
}

func testFlushOnClose(t *testing.T, b backend) {
	l := newLog(t, b)
	claim(t, l, 1, 1)
	w := l.NewWriter(1, 1, WriterOptions{FlushInterval: -1})
	events := genEvents(100, 4)
	for _, e := range events {
		w.Append(e)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	if _, err := w.Append(events[0]); !errors.Is(err, ErrClosed) {
		t.Fatalf("append after close: %v, want ErrClosed", err)
	}
	got, _ := mustReadAll(t, l, ReaderOptions{})
	assertEvents(t, got, numbered(events, 1, 1))
}

// threeSegments writes 30 events as three segments of 10 and returns them
// and the keys.
func threeSegments(t *testing.T, l *Log) ([]format.Event, []string) {
	t.Helper()
	claim(t, l, 1, 1)
	events := numbered(genEvents(30, 5), 1, 1)
	return events, writeSegments(t, l, events, 10)
}

// mangle replaces the object key with f of its bytes.
func mangle(t *testing.T, l *Log, key string, f func([]byte) []byte) {
	t.Helper()
	data, err := l.store.get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.store.put(ctx, key, f(data), contentTypeParquet); err != nil {
		t.Fatal(err)
	}
}

func truncateHalf(b []byte) []byte { return b[:len(b)/2] }

func flipMiddle(b []byte) []byte {
	c := append([]byte(nil), b...)
	c[len(c)/2] ^= 0x40
	return c
}

func testTornTail(t *testing.T, b backend) {
	l := newLog(t, b)
	events, keys := threeSegments(t, l)
	mangle(t, l, keys[2], truncateHalf)
	got, notices := mustReadAll(t, l, ReaderOptions{})
	assertEvents(t, got, events[:20])
	checkColumnsAgree(t, l, format.FieldBytesOut)
	torn := noticesOf(notices, format.NoticeTornTail)
	if len(torn) != 1 || torn[0].Key != keys[2] || torn[0].Epoch != 1 || torn[0].Seq != 21 {
		t.Fatalf("torn notices = %+v, want one for %s", torn, keys[2])
	}
	// The next epoch starts after the torn segment's predecessor: fine.
	claim(t, l, 2, 21)
	next := numbered(genEvents(5, 6), 2, 21)
	writeSegments(t, l, next, 5)
	got, notices = mustReadAll(t, l, ReaderOptions{})
	assertEvents(t, got, append(events[:20:20], next...))
	checkColumnsAgree(t, l, format.FieldBytesOut)
	if f := noticesOf(notices, format.NoticeFenced); len(f) != 1 || f[0].Key != keys[2] || f[0].Count != 10 {
		t.Fatalf("fenced notices = %+v, want the torn segment fenced whole", f)
	}
}

func testCorruptOlderSegment(t *testing.T, b backend) {
	for _, tc := range []struct {
		name string
		f    func([]byte) []byte
	}{{"FlippedByte", flipMiddle}, {"Truncated", truncateHalf}} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLog(t, b)
			events, keys := threeSegments(t, l)
			mangle(t, l, keys[1], tc.f)
			checkColumnsAgree(t, l, format.FieldBytesOut)
			got, _, err := readAll(t, l, ReaderOptions{})
			if !IsCorrupt(err) {
				t.Fatalf("err = %v, want corruption", err)
			}
			var ce *CorruptError
			errors.As(err, &ce)
			if ce.Key != keys[1] || !strings.HasPrefix(err.Error(), keys[1]+": ") {
				t.Fatalf("err = %q, want it to start with the key %s", err, keys[1])
			}
			assertEvents(t, got, events[:10])
		})
	}
}

func testGap(t *testing.T, b backend) {
	l := newLog(t, b)
	events, keys := threeSegments(t, l)
	if err := l.Delete(ctx, keys[1]); err != nil {
		t.Fatal(err)
	}
	checkColumnsAgree(t, l, format.FieldBytesOut)
	got, _, err := readAll(t, l, ReaderOptions{})
	if !IsCorrupt(err) || !errors.Is(err, ErrSeqGap) {
		t.Fatalf("err = %v, want a seq gap", err)
	}
	if !strings.Contains(err.Error(), keys[2]) || !strings.Contains(err.Error(), "seq 11 to 20 missing") {
		t.Fatalf("err = %q, want the key %s and the missing seqs", err, keys[2])
	}
	assertEvents(t, got, events[:10])
}

func testFencedZombie(t *testing.T, b backend) {
	l := newLog(t, b)
	claim(t, l, 1, 1)
	zombie := l.NewWriter(1, 1, WriterOptions{FlushInterval: -1})
	events := genEvents(30, 7)
	for _, e := range events[:10] {
		zombie.Append(e)
	}
	if err := zombie.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	// A new master takes over after reading seq 1-10.
	claim(t, l, 2, 11)
	// The zombie does not know yet: its appends succeed, its flush is refused.
	for _, e := range events[10:15] {
		if _, err := zombie.Append(e); err != nil {
			t.Fatalf("append before the fence was seen: %v", err)
		}
	}
	if err := zombie.Flush(ctx); !errors.Is(err, ErrFenced) {
		t.Fatalf("zombie flush: %v, want ErrFenced", err)
	}
	if err := zombie.Err(); err != ErrFenced {
		t.Fatalf("Err() = %v, want ErrFenced", err)
	}
	if _, err := zombie.Append(events[15]); !errors.Is(err, ErrFenced) {
		t.Fatalf("append after the fence: %v, want ErrFenced", err)
	}
	if s := zombie.Status(); !strings.HasPrefix(s, "fenced") {
		t.Fatalf("status = %q, want fenced", s)
	}
	if err := zombie.Close(); !errors.Is(err, ErrFenced) {
		t.Fatalf("close: %v, want ErrFenced", err)
	}
	// A zombie flush that raced the claim (checked just before it) landed.
	raced := numbered(events[10:15], 1, 11)
	racedKey, err := l.WriteSegment(ctx, raced)
	if err != nil {
		t.Fatal(err)
	}
	w := l.NewWriter(2, 11, WriterOptions{FlushInterval: -1})
	for _, e := range events[15:30] {
		w.Append(e)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, notices := mustReadAll(t, l, ReaderOptions{})
	want := append(numbered(events[:10], 1, 1), numbered(events[15:30], 2, 11)...)
	assertEvents(t, got, want)
	checkColumnsAgree(t, l, format.ColumnFields)
	fenced := noticesOf(notices, format.NoticeFenced)
	if len(fenced) != 1 || fenced[0].Key != racedKey || fenced[0].Count != 5 || fenced[0].Epoch != 1 || fenced[0].Seq != 11 {
		t.Fatalf("fenced notices = %+v, want 5 rows of %s", fenced, racedKey)
	}
}

func testFenceRowByRow(t *testing.T, b backend) {
	l := newLog(t, b)
	claim(t, l, 1, 1)
	events := genEvents(20, 8)
	writeSegments(t, l, numbered(events[:5], 1, 1), 5)
	straddling, err := l.WriteSegment(ctx, numbered(events[5:12], 1, 6)) // seq 6-12
	if err != nil {
		t.Fatal(err)
	}
	claim(t, l, 2, 9)
	writeSegments(t, l, numbered(events[12:20], 2, 9), 8) // seq 9-16
	got, notices := mustReadAll(t, l, ReaderOptions{})
	want := append(numbered(events[:8], 1, 1), numbered(events[12:20], 2, 9)...)
	assertEvents(t, got, want)
	checkColumnsAgree(t, l, format.ColumnFields)
	fenced := noticesOf(notices, format.NoticeFenced)
	if len(fenced) != 1 || fenced[0].Key != straddling || fenced[0].Count != 4 || fenced[0].Seq != 9 {
		t.Fatalf("fenced notices = %+v, want rows 9-12 of %s", fenced, straddling)
	}

	// Without epoch 2's object, its first segment tells where it starts.
	if err := l.Delete(ctx, epochKey(2)); err != nil {
		t.Fatal(err)
	}
	got, _ = mustReadAll(t, l, ReaderOptions{})
	assertEvents(t, got, want)
}

func testClaimRace(t *testing.T, b backend) {
	url := newLog(t, b).URL()
	const claimants, trials = 12, 15
	// Each claimant opens the log itself, as separate masters do: no lock
	// inside one bucket handle can serialize them.
	logs := make([]*Log, claimants)
	for i := range logs {
		l, err := Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		logs[i] = l
	}
	for trial := 1; trial <= trials; trial++ {
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make([]error, claimants)
		for i := range claimants {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				// Every claimant gives the same address and start: masters
				// that replayed one log and listen on the same address
				// (embedded, or [::]:PORT on each host of a pair) do.
				errs[i] = logs[i].ClaimEpoch(ctx, EpochInfo{Epoch: int32(trial), Master: "[::]:17070", StartSeq: 1})
			}()
		}
		close(start)
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, ErrEpochTaken):
				t.Fatalf("trial %d: %v", trial, err)
			}
		}
		if won != 1 {
			t.Fatalf("trial %d: %d claimants won, want exactly 1", trial, won)
		}
	}
}

func testEpochs(t *testing.T, b backend) {
	l := newLog(t, b)
	if epochs, err := l.Epochs(ctx); err != nil || len(epochs) != 0 {
		t.Fatalf("epochs of an empty log = %v, %v", epochs, err)
	}
	claim(t, l, 2, 40)
	claim(t, l, 1, 1)
	if err := l.Heartbeat(ctx, 1); err != nil {
		t.Fatal(err)
	}
	// A second claim with the same master and start is another claim, and
	// loses: only a retry inside one claim may find its own bytes.
	if err := l.ClaimEpoch(ctx, EpochInfo{Epoch: 2, Master: "master-2", StartSeq: 40}); !errors.Is(err, ErrEpochTaken) {
		t.Fatalf("repeated claim: %v, want ErrEpochTaken", err)
	}
	if err := l.ClaimEpoch(ctx, EpochInfo{Epoch: 2, Master: "other", StartSeq: 40}); !errors.Is(err, ErrEpochTaken) {
		t.Fatalf("second claim: %v, want ErrEpochTaken", err)
	}
	epochs, err := l.Epochs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []EpochInfo{{1, "master-1", 1, ""}, {2, "master-2", 40, ""}}
	if fmt.Sprint(withoutClaimants(epochs)) != fmt.Sprint(want) {
		t.Fatalf("epochs = %v, want %v", epochs, want)
	}
	if err := l.ClaimEpoch(ctx, EpochInfo{Epoch: 0, StartSeq: 1}); err == nil {
		t.Fatal("claim of epoch 0 succeeded")
	}
}

func testCovering(t *testing.T, b backend) {
	l := newLog(t, b)
	claim(t, l, 1, 1)
	events := numbered(genEvents(30, 9), 1, 1)
	parts := writeSegments(t, l, events[:20], 10)
	writeSegments(t, l, events[20:], 10)
	// Compaction wrote the covering segment and crashed before deleting.
	covering, err := l.WriteSegment(ctx, events[:20])
	if err != nil {
		t.Fatal(err)
	}
	got, notices := mustReadAll(t, l, ReaderOptions{})
	assertEvents(t, got, events)
	checkColumnsAgree(t, l, format.ColumnFields)
	covered := noticesOf(notices, format.NoticeCovered)
	if len(covered) != 2 || covered[0].Key != parts[0] || covered[1].Key != parts[1] || !strings.Contains(covered[0].Message, covering) {
		t.Fatalf("covered notices = %+v, want %v covered by %s", covered, parts, covering)
	}
	if len(notices) != 2 {
		t.Fatalf("notices = %+v, want only the covered ones", notices)
	}
	// Then it deletes the parts: nothing changes as read.
	for _, k := range parts {
		if err := l.Delete(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	got, notices = mustReadAll(t, l, ReaderOptions{})
	assertEvents(t, got, events)
	if len(notices) != 0 {
		t.Fatalf("notices = %+v, want none", notices)
	}
	// Overlap without covering is corruption.
	if _, err := l.WriteSegment(ctx, events[15:25]); err != nil {
		t.Fatal(err)
	}
	checkColumnsAgree(t, l, format.FieldBytesOut)
	if _, _, err := readAll(t, l, ReaderOptions{}); !IsCorrupt(err) || !strings.Contains(err.Error(), "overlaps") {
		t.Fatalf("err = %v, want an overlap corruption", err)
	}
}

func testUnknownObjects(t *testing.T, b backend) {
	l := newLog(t, b)
	events, _ := threeSegments(t, l)
	for _, key := range []string{"events/README.txt", "events/00000001-0000000000000001.parquet", "events/sub/x.parquet"} {
		if err := l.store.put(ctx, key, []byte("x"), contentTypeText); err != nil {
			t.Fatal(err)
		}
	}
	// A write in progress is not worth a warning.
	if err := l.store.put(ctx, FormatSegmentName(1, 31, 40)+".1a2b.tmp", []byte("x"), contentTypeText); err != nil {
		t.Fatal(err)
	}
	got, notices := mustReadAll(t, l, ReaderOptions{})
	assertEvents(t, got, events)
	unknown := noticesOf(notices, format.NoticeUnknownObject)
	if len(unknown) != 3 || len(notices) != 3 {
		t.Fatalf("notices = %+v, want 3 unknown objects", notices)
	}
	if segs, _ := l.Segments(ctx); len(segs) != 3 {
		t.Fatalf("segments = %d, want 3", len(segs))
	}
}

func testSinceUntil(t *testing.T, b backend) {
	l := newLog(t, b)
	claim(t, l, 1, 1)
	events := numbered(genEvents(100, 10), 1, 1)
	keys := writeSegments(t, l, events, 10)
	// Damage segments outside the range: they must not even be read.
	mangle(t, l, keys[0], flipMiddle)
	mangle(t, l, keys[9], flipMiddle)
	got, _ := mustReadAll(t, l, ReaderOptions{Since: 35, Until: 62})
	assertEvents(t, got, events[34:62])
	got, _ = mustReadAll(t, l, ReaderOptions{Since: 11, Until: 90})
	checkSeqs(t, got, 11, 90)
	got, _ = mustReadAll(t, l, ReaderOptions{Since: 50, Until: 50})
	checkSeqs(t, got, 50, 50)
	if _, _, err := readAll(t, l, ReaderOptions{Since: 85}); !IsCorrupt(err) {
		t.Fatalf("reading into the damaged last segment: %v, want corruption", err)
	}
}

func testFollow(t *testing.T, b backend) {
	l := newLog(t, b)
	claim(t, l, 1, 1)
	events := genEvents(40, 11)
	w := l.NewWriter(1, 1, WriterOptions{FlushInterval: -1})
	for _, e := range events[:10] {
		w.Append(e)
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r, err := l.NewReader(fctx, ReaderOptions{Follow: true, PollInterval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan format.Event)
	done := make(chan error, 1)
	go func() {
		for {
			e, err := r.Next()
			if err != nil {
				done <- err
				return
			}
			got <- e
		}
	}()
	expect := func(from, to int64) {
		t.Helper()
		for seq := from; seq <= to; seq++ {
			select {
			case e := <-got:
				if e.Seq != seq {
					t.Fatalf("followed seq %d, want %d", e.Seq, seq)
				}
			case err := <-done:
				t.Fatalf("follow ended: %v", err)
			case <-time.After(20 * time.Second):
				t.Fatalf("seq %d did not arrive", seq)
			}
		}
	}
	expect(1, 10)
	for _, e := range events[10:25] {
		w.Append(e)
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	expect(11, 25)
	// A new epoch appears: the follower moves on to it.
	claim(t, l, 2, 26)
	w2 := l.NewWriter(2, 26, WriterOptions{FlushInterval: -1})
	for _, e := range events[25:40] {
		w2.Append(e)
	}
	if err := w2.Close(); err != nil {
		t.Fatal(err)
	}
	expect(26, 40)
	cancel()
	select {
	case err := <-done:
		if err != io.EOF {
			t.Fatalf("follow ended with %v, want io.EOF", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("follow did not end with its context")
	}
	w.Close()
}

func testRetryFailedUpload(t *testing.T, b backend) {
	l := newLog(t, b)
	claim(t, l, 1, 1)
	fs := injectFaults(l, func(n int, key string) faultMode {
		if n <= 3 {
			return failBefore
		}
		return passThrough
	})
	w := l.NewWriter(1, 1, WriterOptions{FlushInterval: -1, Retry: RetryPolicy{Attempts: 5, MinBackoff: time.Microsecond}})
	events := genEvents(50, 12)
	for _, e := range events {
		w.Append(e)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("close after 3 failed uploads and 5 attempts: %v", err)
	}
	if got := fs.count(); got != 4 {
		t.Fatalf("upload attempts = %d, want 4", got)
	}
	got, _ := mustReadAll(t, l, ReaderOptions{})
	assertEvents(t, got, numbered(events, 1, 1))
}

func testRetryUploadThatLanded(t *testing.T, b backend) {
	l := newLog(t, b)
	claim(t, l, 1, 1)
	fs := injectFaults(l, func(n int, key string) faultMode {
		if n == 1 {
			return failAfter
		}
		return passThrough
	})
	w := l.NewWriter(1, 1, WriterOptions{FlushInterval: -1, Retry: RetryPolicy{MinBackoff: time.Microsecond}})
	events := genEvents(20, 13)
	for _, e := range events {
		w.Append(e)
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatalf("flush: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := fs.count(); got != 2 {
		t.Fatalf("upload attempts = %d, want 2", got)
	}
	got, _ := mustReadAll(t, l, ReaderOptions{})
	assertEvents(t, got, numbered(events, 1, 1))
	if segs, _ := l.Segments(ctx); len(segs) != 1 {
		t.Fatalf("segments = %v, want one", segs)
	}
}

func testPersistentFailure(t *testing.T, b backend) {
	l := newLog(t, b)
	claim(t, l, 1, 1)
	fs := injectFaults(l, func(int, string) faultMode { return failBefore })
	w := l.NewWriter(1, 1, WriterOptions{FlushInterval: -1, Retry: RetryPolicy{Attempts: 3, MinBackoff: time.Microsecond}})
	w.Append(genEvents(1, 14)[0])
	err := w.Flush(ctx)
	if !errors.Is(err, errInjected) {
		t.Fatalf("flush: %v, want the upload failure", err)
	}
	if !errors.Is(w.Err(), errInjected) {
		t.Fatalf("Err() = %v, want the upload failure", w.Err())
	}
	if s := w.Status(); !strings.HasPrefix(s, "recording degraded: ") || !strings.Contains(s, "failed 3 times") {
		t.Fatalf("status = %q, want recording degraded after 3 attempts", s)
	}
	if _, err := w.Append(genEvents(1, 14)[0]); err == nil {
		t.Fatal("append after a persistent failure succeeded")
	}
	if err := w.Close(); !errors.Is(err, errInjected) {
		t.Fatalf("close: %v, want the upload failure", err)
	}
	if got := fs.count(); got != 3 {
		t.Fatalf("upload attempts = %d, want 3", got)
	}
	if w.Durable() != 0 {
		t.Fatalf("durable = %d, want 0", w.Durable())
	}
}

func testSpec(t *testing.T, b backend) {
	l := newLog(t, b)
	if _, err := l.ReadSpec(ctx); !errors.Is(err, ErrNotFound) {
		t.Fatalf("read spec of an empty log: %v, want ErrNotFound", err)
	}
	spec := []byte("job: wordcount\nvertices: []\n")
	if err := l.WriteSpec(ctx, spec); err != nil {
		t.Fatal(err)
	}
	if err := l.WriteSpec(ctx, spec); err != nil {
		t.Fatalf("writing the same spec again: %v", err)
	}
	if err := l.WriteSpec(ctx, []byte("job: other\n")); !errors.Is(err, ErrExists) {
		t.Fatalf("writing another spec: %v, want ErrExists", err)
	}
	got, err := l.ReadSpec(ctx)
	if err != nil || string(got) != string(spec) {
		t.Fatalf("spec = %q, %v; want %q", got, err, spec)
	}
}

func testNoLog(t *testing.T, b backend) {
	l := newLog(t, b)
	if ok, err := l.Exists(ctx); ok || err != nil {
		t.Fatalf("exists = %v, %v; want false", ok, err)
	}
	_, err := l.NewReader(ctx, ReaderOptions{})
	if !errors.Is(err, ErrNoLog) || !strings.Contains(err.Error(), "no event log at "+l.URL()) {
		t.Fatalf("reader of an empty log: %v, want ErrNoLog naming the URL", err)
	}
	if err := l.WriteSpec(ctx, []byte("job: x\n")); err != nil {
		t.Fatal(err)
	}
	if ok, err := l.Exists(ctx); !ok || err != nil {
		t.Fatalf("exists with a spec = %v, %v; want true", ok, err)
	}
	events, _ := mustReadAll(t, l, ReaderOptions{})
	if len(events) != 0 {
		t.Fatalf("events = %d, want 0", len(events))
	}
}

func testHeartbeat(t *testing.T, b backend) {
	l := newLog(t, b)
	if _, err := l.HeartbeatAge(ctx, 1); !errors.Is(err, ErrNotFound) {
		t.Fatalf("age of an unclaimed epoch: %v, want ErrNotFound", err)
	}
	claim(t, l, 1, 1)
	age, err := l.HeartbeatAge(ctx, 1)
	if err != nil || age > time.Minute {
		t.Fatalf("age of a fresh claim = %v, %v; want about 0", age, err)
	}
	if err := l.Heartbeat(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if age, err = l.HeartbeatAge(ctx, 1); err != nil || age > time.Minute {
		t.Fatalf("age of a fresh heartbeat = %v, %v; want about 0", age, err)
	}
	if b.backdate == nil {
		return
	}
	b.backdate(t, l, heartbeatKey(1), time.Hour)
	age, err = l.HeartbeatAge(ctx, 1)
	if err != nil || age < 59*time.Minute || age > 61*time.Minute {
		t.Fatalf("age of an hour-old heartbeat = %v, %v; want about 1h", age, err)
	}
	// Probes are cleaned up.
	var probes []string
	l.store.list(ctx, probesDir, func(o objectInfo) error { probes = append(probes, o.Key); return nil })
	if len(probes) != 0 {
		t.Fatalf("probes left behind: %v", probes)
	}
}

// sliceSource is an EventSource over a slice.
type sliceSource []format.Event

func (s *sliceSource) Next() (format.Event, error) {
	if len(*s) == 0 {
		return format.Event{}, io.EOF
	}
	e := (*s)[0]
	*s = (*s)[1:]
	return e, nil
}

func testImport(t *testing.T, b backend) {
	l := newLog(t, b)
	gen := genEvents(250, 15)
	events := numbered(gen[:120], 1, 1)
	restart := gen[120]
	restart.Kind, restart.Master, restart.Recovering = format.KindMasterStarted, "10.0.0.2:7070", true
	events = append(events, numbered([]format.Event{restart}, 2, 121)...)
	events = append(events, numbered(gen[121:], 2, 122)...)
	src := sliceSource(append([]format.Event(nil), events...))
	res, err := Import(ctx, l, &src, ImportOptions{SegmentEvents: 50})
	if err != nil {
		t.Fatal(err)
	}
	// Epoch 1: 50+50+20; epoch 2: 50+50+30.
	if want := (ImportResult{Events: 250, Segments: 6, Epochs: 2}); res != want {
		t.Fatalf("import = %+v, want %+v", res, want)
	}
	got, notices := mustReadAll(t, l, ReaderOptions{})
	assertEvents(t, got, events)
	if len(notices) != 0 {
		t.Fatalf("notices = %+v, want none", notices)
	}
	epochs, err := l.Epochs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Epoch 1 starts with job_submitted at seq 1, as its master claimed it.
	want := []EpochInfo{{1, "127.0.0.1:7070", 1, ""}, {2, "10.0.0.2:7070", 121, ""}}
	if fmt.Sprint(withoutClaimants(epochs)) != fmt.Sprint(want) {
		t.Fatalf("epochs = %v, want %v", epochs, want)
	}
	src = sliceSource(events)
	if _, err := Import(ctx, l, &src, ImportOptions{}); !errors.Is(err, ErrLogExists) {
		t.Fatalf("second import: %v, want ErrLogExists", err)
	}
	if _, err := l.WriteSegment(ctx, numbered(gen[:3], 1, 5)[1:2:2]); err != nil {
		t.Fatalf("one-event segment: %v", err)
	}
	bad := numbered(gen[:3], 1, 500)
	bad[2].Seq = 600
	if _, err := l.WriteSegment(ctx, bad); !errors.Is(err, ErrInvalidEvents) {
		t.Fatalf("segment with a seq jump: %v, want ErrInvalidEvents", err)
	}
}

func testSharedByURL(t *testing.T, b backend) {
	url := b.newLog(t)
	a, err := Create(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.WriteSpec(ctx, []byte("job: shared\n")); err != nil {
		t.Fatal(err)
	}
	other, err := Open(ctx, a.URL())
	if err != nil {
		t.Fatal(err)
	}
	if got, err := other.ReadSpec(ctx); err != nil || string(got) != "job: shared\n" {
		t.Fatalf("spec through a second Open = %q, %v", got, err)
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	// Closing one Log leaves the other usable.
	if _, err := a.ReadSpec(ctx); err != nil {
		t.Fatalf("after closing the other: %v", err)
	}
}
