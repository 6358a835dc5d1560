package blob

import (
	"bytes"
	"crypto/rand"
	"errors"
	"slices"
	"testing"

	"github.com/jobevent/jobevent/internal/blobtest"
	"github.com/jobevent/jobevent/pkg/format"
)

// testCreateConflict checks that a create-once write of an existing object
// is a clean error on every backend (azureblob panics on failed streamed
// uploads; the store only uploads from bytes) and leaves the object as it
// was.
func testCreateConflict(t *testing.T, b backend) {
	l := newLog(t, b)
	key := FormatSegmentName(1, 1, 1)
	if err := l.store.create(ctx, key, []byte("first"), contentTypeParquet); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		err := l.store.create(ctx, key, []byte("second"), contentTypeParquet)
		if !errors.Is(err, errKeyTaken) {
			t.Fatalf("second create: %v, want errKeyTaken", err)
		}
	}
	got, err := l.store.get(ctx, key)
	if err != nil || string(got) != "first" {
		t.Fatalf("object = %q, %v; want the first write", got, err)
	}
	if err := l.createOnce(ctx, key, []byte("other"), contentTypeParquet); !errors.Is(err, ErrExists) {
		t.Fatalf("createOnce with other bytes: %v, want ErrExists", err)
	}
	if err := l.createOnce(ctx, key, []byte("first"), contentTypeParquet); err != nil {
		t.Fatalf("createOnce with the same bytes: %v, want success", err)
	}
}

// testNoOverwrite checks that a fenced master cannot overwrite what a newer
// master wrote: not its segments (a writer that believes it holds the
// newer epoch gets ErrExists), not its epoch claim, and the old master's
// own late writes are fenced as read.
func testNoOverwrite(t *testing.T, b backend) {
	l := newLog(t, b)
	events := genEvents(30, 11)
	claim(t, l, 1, 1)
	old := l.NewWriter(1, 1, WriterOptions{FlushInterval: -1})
	for _, e := range events[:10] {
		old.Append(e)
	}
	if err := old.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	claim(t, l, 2, 11)
	w := l.NewWriter(2, 11, WriterOptions{FlushInterval: -1})
	for _, e := range events[10:20] {
		w.Append(e)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	key := FormatSegmentName(2, 11, 20)
	before, err := l.store.get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	// The old master, fenced, tries to take epoch 2 over.
	if err := l.ClaimEpoch(ctx, EpochInfo{Epoch: 2, Master: "master-1", StartSeq: 11}); !errors.Is(err, ErrEpochTaken) {
		t.Fatalf("re-claim of epoch 2: %v, want ErrEpochTaken", err)
	}
	// It writes as epoch 2 anyway, the same seqs with other events.
	impostor := l.NewWriter(2, 11, WriterOptions{FlushInterval: -1, Retry: RetryPolicy{Attempts: 2}})
	for _, e := range events[20:30] {
		impostor.Append(e)
	}
	if err := impostor.Flush(ctx); !errors.Is(err, ErrExists) {
		t.Fatalf("impostor flush: %v, want ErrExists", err)
	}
	impostor.Close()
	// And as itself, epoch 1, past the fence: refused by the writer.
	for _, e := range events[20:25] {
		old.Append(e)
	}
	if err := old.Flush(ctx); !errors.Is(err, ErrFenced) {
		t.Fatalf("fenced flush: %v, want ErrFenced", err)
	}
	old.Close()
	after, err := l.store.get(ctx, key)
	if err != nil || !bytes.Equal(after, before) {
		t.Fatalf("the newer master's segment changed (%v)", err)
	}
	got, _ := mustReadAll(t, l, ReaderOptions{})
	assertEvents(t, got, append(numbered(events[:10], 1, 1), numbered(events[10:20], 2, 11)...))
}

// testCompact compacts a log that failed over, on the backend, and checks
// that it reads the same before, during (covering segment written, parts
// not yet deleted) and after.
func testCompact(t *testing.T, b backend) {
	l := newLog(t, b)
	want := fencedLog(t, l, true)
	// An interrupted compaction of seq 1-20 left its covering segment.
	if _, err := l.WriteSegment(ctx, want[:20]); err != nil {
		t.Fatal(err)
	}
	got, _ := mustReadAll(t, l, ReaderOptions{})
	assertEvents(t, got, want)
	res, err := Compact(ctx, l, CompactOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Leftovers != 2 {
		t.Fatalf("leftovers deleted = %d, want 2", res.Leftovers)
	}
	wantKeys := []string{FormatSegmentName(1, 1, 30), FormatSegmentName(1, 31, 35), FormatSegmentName(2, 25, 50)}
	if keys := segmentKeys(t, l); !slices.Equal(keys, wantKeys) {
		t.Fatalf("segments = %v, want %v", keys, wantKeys)
	}
	got, notices := mustReadAll(t, l, ReaderOptions{})
	assertEvents(t, got, want)
	if len(noticesOf(notices, format.NoticeCovered)) != 0 || fencedRows(notices) != 11 {
		t.Fatalf("notices = %+v", notices)
	}
	if _, err := l.store.stat(ctx, CompactLockKey); !errors.Is(err, ErrNotFound) {
		t.Fatalf("lock after compaction: %v", err)
	}
}

// TestWriter_SegmentCap_S3 writes events whose segments would together
// pass the S3 multipart threshold (16 MiB) through gofakes3, which ignores
// If-None-Match on multipart uploads: the writer keeps every segment under
// MaxSegmentBytes, so each stays a conditional single PUT that a second
// write cannot replace.
func TestWriter_SegmentCap_S3(t *testing.T) {
	if testing.Short() {
		t.Skip("uploads 24 MiB")
	}
	l, err := Open(ctx, blobtest.S3(t))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	claim(t, l, 1, 1)
	w := l.NewWriter(1, 1, WriterOptions{BufferSize: 64 << 20, FlushInterval: -1})
	var events []format.Event
	for i := 0; i < 3; i++ {
		state := make([]byte, 8<<20) // incompressible
		rand.Read(state)
		e := format.Event{Kind: format.KindSnapshot, Job: "wordcount", Coordinators: map[string][]byte{"source": state}}
		events = append(events, e)
		w.Append(e)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	segs, err := l.Segments(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) < 2 {
		t.Fatalf("segments = %d, want the 24 MiB split", len(segs))
	}
	for _, s := range segs {
		if s.Size > MaxSegmentBytes {
			t.Fatalf("%s is %d bytes, over MaxSegmentBytes", s.Key, s.Size)
		}
		if err := l.store.create(ctx, s.Key, []byte("overwrite"), contentTypeParquet); !errors.Is(err, errKeyTaken) {
			t.Fatalf("overwrite of %s: %v, want errKeyTaken", s.Key, err)
		}
	}
	got, _ := mustReadAll(t, l, ReaderOptions{})
	for i := range got {
		if !bytes.Equal(got[i].Coordinators["source"], events[i].Coordinators["source"]) {
			t.Fatalf("event %d differs", i)
		}
	}
	// One event alone over the cap is refused, not uploaded in parts.
	big := make([]byte, MaxSegmentBytes+1)
	rand.Read(big)
	_, err = l.WriteSegment(ctx, []format.Event{{Seq: 4, Epoch: 1, Kind: format.KindSnapshot, Job: "wordcount",
		Coordinators: map[string][]byte{"source": big}}})
	if !errors.Is(err, ErrSegmentTooLarge) {
		t.Fatalf("oversized segment: %v, want ErrSegmentTooLarge", err)
	}
}

// TestImport_SegmentCap splits an import where a segment would pass the
// cap.
func TestImport_SegmentCap(t *testing.T) {
	saved := maxSegmentBytes
	maxSegmentBytes = 16 << 10
	defer func() { maxSegmentBytes = saved }()
	l, err := Create(ctx, uniqueMem("import-cap"))
	if err != nil {
		t.Fatal(err)
	}
	events := numbered(genEvents(2000, 12), 1, 1)
	src := sliceSource(events)
	res, err := Import(ctx, l, &src, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	segs, _ := l.Segments(ctx)
	if res.Segments < 2 || res.Segments != len(segs) {
		t.Fatalf("import wrote %d segments (listed %d), want several", res.Segments, len(segs))
	}
	for _, s := range segs {
		if s.Size > int64(maxSegmentBytes) {
			t.Fatalf("%s is %d bytes, over the cap", s.Key, s.Size)
		}
	}
	got, _ := mustReadAll(t, l, ReaderOptions{})
	assertEvents(t, got, events)
}

func TestCorruptError_ObjectKey(t *testing.T) {
	err := error(&CorruptError{Key: "events/x.parquet", Err: format.ErrCorrupt})
	var k interface{ ObjectKey() string }
	if !errors.As(err, &k) || k.ObjectKey() != "events/x.parquet" {
		t.Fatalf("ObjectKey of %v = %v", err, k)
	}
}

// testSummary checks what `jobevent ls` shows of a log.
func testSummary(t *testing.T, b backend) {
	l := newLog(t, b)
	if _, err := l.Summarize(ctx); !errors.Is(err, ErrNoLog) {
		t.Fatalf("summary of an empty log: %v, want ErrNoLog", err)
	}
	fencedLog(t, l, false)
	s, err := l.Summarize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Job != "wordcount" || s.Epochs != 2 || s.Segments != 7 || s.Events != 50 || s.LastSeq != 50 ||
		s.Finished || s.Status != "unfinished" || s.Bytes <= 0 || s.LastModified.IsZero() || s.Problem != "" {
		t.Fatalf("summary = %+v", s)
	}
	w := l.NewWriter(2, 51, WriterOptions{})
	w.Append(finishedEvent())
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Compact(ctx, l, CompactOptions{}); err != nil {
		t.Fatal(err)
	}
	s, err = l.Summarize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Events != 51 || s.Segments != 3 || !s.Finished || s.Status != "finished" {
		t.Fatalf("summary after finish and compaction = %+v", s)
	}
}
