package blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobevent/jobevent/pkg/format"
)

// importEvents returns 30 events of epoch 1, seqs 1..30.
func importEvents() []format.Event {
	return numbered(genEvents(30, 21), 1, 1)
}

// TestImport_RefusedBeforeWriting: input that would not read back as the
// same log, or cannot be stored, is refused before anything is written,
// and the fixed input then imports into the same log.
func TestImport_RefusedBeforeWriting(t *testing.T) {
	for _, tc := range []struct {
		name   string
		break_ func([]format.Event) []format.Event
		want   string
	}{
		{"duplicate last seq", func(ev []format.Event) []format.Event { ev[29].Seq = 29; return ev }, "seq 29 follows seq 29"},
		{"gap", func(ev []format.Event) []format.Event { ev[20].Seq = 40; return ev }, "seq 40 follows seq 20"},
		{"not from seq 1", func(ev []format.Event) []format.Event { return numbered(ev, 1, 5) }, "a log starts at seq 1"},
		{"negative seq", func(ev []format.Event) []format.Event { ev[10].Seq = -3; return ev }, "seq -3"},
		{"negative epoch", func(ev []format.Event) []format.Event { ev[25].Epoch = -1; return ev }, "epoch -1"},
		{"epoch goes back", func(ev []format.Event) []format.Event {
			for i := 15; i < 30; i++ {
				ev[i].Epoch = 2
			}
			ev[29].Epoch = 1
			return ev
		}, "epochs never go back"},
		{"time out of range", func(ev []format.Event) []format.Event {
			ev[28].Time = time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)
			return ev
		}, "time"},
		{"event over the segment limit", func(ev []format.Event) []format.Event {
			ev[27].Kind, ev[27].Coordinators = format.KindSnapshot, map[string][]byte{"src": randomBytes(MaxSegmentBytes + 1)}
			return ev
		}, "segment too large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := memLog(t)
			src := sliceSource(tc.break_(importEvents()))
			_, err := Import(ctx, l, &src, ImportOptions{SegmentEvents: 10})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to say %q", err, tc.want)
			}
			assertNoLog(t, l)
			events := importEvents()
			src = sliceSource(append([]format.Event(nil), events...))
			if _, err := Import(ctx, l, &src, ImportOptions{SegmentEvents: 10}); err != nil {
				t.Fatalf("fixed import: %v", err)
			}
			got, _ := mustReadAll(t, l, ReaderOptions{})
			assertEvents(t, got, events)
		})
	}
}

// TestImport_FencedRows: rows of a fenced master, followed by the next
// epoch starting at or before the seq after them, import and read back
// without them.
func TestImport_FencedRows(t *testing.T) {
	l := memLog(t)
	events := importEvents()
	tail := numbered(genEvents(10, 22), 2, 26)
	tail[0].Kind, tail[0].Master = format.KindMasterStarted, "m2"
	src := sliceSource(append(append([]format.Event(nil), events...), tail...))
	res, err := Import(ctx, l, &src, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Epochs != 2 {
		t.Fatalf("import = %+v, want 2 epochs", res)
	}
	got, _ := mustReadAll(t, l, ReaderOptions{})
	assertEvents(t, got, append(events[:25:25], tail...))
}

// TestImport_RollsBack: a failure while writing removes what was written.
func TestImport_RollsBack(t *testing.T) {
	l := memLog(t)
	l.store = &failNthCreate{objectStore: l.store, n: 3}
	src := sliceSource(importEvents())
	if _, err := Import(ctx, l, &src, ImportOptions{SegmentEvents: 10}); err == nil {
		t.Fatal("no error")
	}
	if segs, _ := l.Segments(ctx); len(segs) != 0 {
		t.Fatalf("segments left: %v", segs)
	}
	src = sliceSource(importEvents())
	if _, err := Import(ctx, l, &src, ImportOptions{SegmentEvents: 10}); err != nil {
		t.Fatalf("second import: %v", err)
	}
}

// failNthCreate fails the nth create-once write, permanently.
type failNthCreate struct {
	objectStore
	n, calls int
}

// create fails with access denied (not retried), writing nothing.
func (s *failNthCreate) create(ctx context.Context, key string, data []byte, ct string) error {
	s.calls++
	if s.calls == s.n {
		return fmt.Errorf("write %s: %w", key, &AccessError{Bucket: "mem://test", Problem: "access denied", Err: ErrAccessDenied})
	}
	return s.objectStore.create(ctx, key, data, ct)
}

// randomBytes returns n bytes that do not compress.
func randomBytes(n int) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// failingSource returns the events of its slice, then err instead of the
// last one.
type failingSource struct {
	events []format.Event
	err    error
}

func (s *failingSource) Next() (format.Event, error) {
	switch len(s.events) {
	case 0:
		return format.Event{}, io.EOF
	case 1:
		s.events = nil
		return format.Event{}, s.err
	}
	e := s.events[0]
	s.events = s.events[1:]
	return e, nil
}

// TestImport_BadLastEvent: a source that fails on its last event, after
// several segments' worth of good ones were read and encoded, leaves the
// log without segments or epochs.
func TestImport_BadLastEvent(t *testing.T) {
	l := memLog(t)
	bad := errors.New("line 30: bad")
	_, err := Import(ctx, l, &failingSource{events: importEvents(), err: bad}, ImportOptions{SegmentEvents: 4})
	if !errors.Is(err, bad) {
		t.Fatalf("err = %v, want %v", err, bad)
	}
	assertNoLog(t, l)
}

// assertNoLog fails t unless l holds no segments and no epoch objects.
func assertNoLog(t *testing.T, l *Log) {
	t.Helper()
	if segs, _ := l.Segments(ctx); len(segs) != 0 {
		t.Fatalf("segments written: %v", segs)
	}
	if e, _ := l.newestEpoch(ctx); e != 0 {
		t.Fatalf("epoch %d claimed", e)
	}
}

// TestStageImport_ManySegments: events staged in many segments, encoded
// while later ones are read, are written in order, and the staged import
// writes nothing until Write.
func TestStageImport_ManySegments(t *testing.T) {
	events := numbered(genEvents(1000, 23), 1, 1)
	src := sliceSource(append([]format.Event(nil), events...))
	st, err := StageImport(ctx, &src, ImportOptions{SegmentEvents: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got := st.Events(); got != 1000 {
		t.Fatalf("staged events = %d, want 1000", got)
	}
	l := memLog(t)
	if segs, _ := l.Segments(ctx); len(segs) != 0 {
		t.Fatalf("segments before Write: %v", segs)
	}
	res, err := st.Write(ctx, l)
	if err != nil {
		t.Fatal(err)
	}
	if res.Segments != 143 || res.Events != 1000 || res.Epochs != 1 {
		t.Fatalf("result = %+v, want 143 segments, 1000 events, 1 epoch", res)
	}
	got, _ := mustReadAll(t, l, ReaderOptions{})
	assertEvents(t, got, events)
}

// TestStageImport_NoEvents: empty input stages, and Write refuses it.
func TestStageImport_NoEvents(t *testing.T) {
	var src sliceSource
	st, err := StageImport(ctx, &src, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Write(ctx, memLog(t)); !errors.Is(err, ErrImportRefused) {
		t.Fatalf("err = %v, want ErrImportRefused", err)
	}
}

// TestStageImport_InPlace: a source that decodes in place (a JSON reader)
// stages the same segments as one that returns its events, across epochs
// and full segments, and an error after the events so far stays the
// source's.
func TestStageImport_InPlace(t *testing.T) {
	events := append(numbered(genEvents(40, 24), 1, 1), numbered(genEvents(25, 25), 2, 41)...)
	var jsonl []byte
	for i := range events {
		jsonl = format.AppendJSON(jsonl, &events[i]) // a line
	}
	stage := func(src EventSource) []format.Event {
		t.Helper()
		st, err := StageImport(ctx, src, ImportOptions{SegmentEvents: 8})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		l := memLog(t)
		if _, err := st.Write(ctx, l); err != nil {
			t.Fatal(err)
		}
		got, _ := mustReadAll(t, l, ReaderOptions{})
		if segs, _ := l.Segments(ctx); len(segs) != 5+4 {
			t.Fatalf("segments = %d, want 9 (8 events each, cut where the epoch changes)", len(segs))
		}
		return got
	}
	slice := sliceSource(append([]format.Event(nil), events...))
	returned := stage(&slice)
	inPlace := stage(format.NewJSONReader(strings.NewReader(string(jsonl))))
	assertEvents(t, returned, events)
	assertEvents(t, inPlace, events)

	bad := string(jsonl) + "{\"seq\": 66, \"kind\": \"bogus\"}\n"
	_, err := StageImport(ctx, format.NewJSONReader(strings.NewReader(bad)), ImportOptions{SegmentEvents: 8})
	if se := (*format.SyntaxError)(nil); !errors.As(err, &se) || se.Line != 66 {
		t.Fatalf("err = %v, want a syntax error on line 66", err)
	}
}

// TestStageImport_Streamed: chunks encoded while they are read are spooled
// as the segments EncodeSegment writes for their events; a chunk that
// needs the dataset schema after its first run, or that exceeds
// MaxSegmentBytes, is encoded whole again; a read error in a chunk being
// streamed is the error.
func TestStageImport_Streamed(t *testing.T) {
	const segEvents = 2*stageRun + 10
	plain := numbered(genEvents(3*stageRun+100, 26), 1, 1)
	late := numbered(genEvents(3*stageRun+100, 27), 1, 1)
	late[stageRun+5].Kind = format.KindJobSubmitted
	late[stageRun+5].Graph = &format.Graph{Datasets: []format.Dataset{{ID: "d1", Producer: "source"}}}
	staged := func(events []format.Event) map[string][]byte {
		t.Helper()
		src := sliceSource(append([]format.Event(nil), events...))
		st, err := StageImport(ctx, &src, ImportOptions{SegmentEvents: segEvents})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		files := make(map[string][]byte)
		for _, key := range stagedKeys(t, st) {
			data, err := os.ReadFile(filepath.Join(st.dir, filepath.Base(key)))
			if err != nil {
				t.Fatal(err)
			}
			files[key] = data
		}
		return files
	}
	want := func(events []format.Event, n int) map[string][]byte {
		t.Helper()
		files := make(map[string][]byte)
		var buf bytes.Buffer
		for start := 0; start < len(events); start += n {
			part := events[start:min(start+n, len(events))]
			buf.Reset()
			if err := format.EncodeSegment(&buf, part); err != nil {
				t.Fatal(err)
			}
			key := FormatSegmentName(part[0].Epoch, part[0].Seq, part[len(part)-1].Seq)
			files[key] = bytes.Clone(buf.Bytes())
		}
		return files
	}
	same := func(what string, got, want map[string][]byte) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d segments, want %d", what, len(got), len(want))
		}
		for key, data := range want {
			if !bytes.Equal(got[key], data) {
				t.Errorf("%s: segment %s differs from EncodeSegment's", what, key)
			}
		}
	}
	same("streamed", staged(plain), want(plain, segEvents))
	same("dataset schema after the first run", staged(late), want(late, segEvents))

	one := want(plain[:segEvents], segEvents)
	saved := maxSegmentBytes
	for _, data := range one {
		maxSegmentBytes = len(data) - 1 // the first chunk, whole, is too large; its halves fit
	}
	got := staged(plain)
	maxSegmentBytes = saved
	if _, ok := got[FormatSegmentName(1, 1, segEvents/2)]; !ok || len(got) != 3 {
		t.Fatalf("over the cap: segments %d, want the first chunk's halves and the second chunk", len(got))
	}

	bad := errors.New("disk gone")
	src := &failingSource{events: plain[:stageRun+50], err: bad}
	if _, err := StageImport(ctx, src, ImportOptions{SegmentEvents: segEvents}); !errors.Is(err, bad) {
		t.Fatalf("read error while streaming: err %v, want %v", err, bad)
	}
}

// TestStageImport_ChunksOfWholeBlocks: chunks that end where a block ends
// reuse every block, so that many of them stage without running out.
func TestStageImport_ChunksOfWholeBlocks(t *testing.T) {
	events := numbered(genEvents(6*stageRun+3, 28), 1, 1)
	src := sliceSource(append([]format.Event(nil), events...))
	st, err := StageImport(ctx, &src, ImportOptions{SegmentEvents: stageRun})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if keys := stagedKeys(t, st); len(keys) != 7 {
		t.Fatalf("segments = %d, want 7", len(keys))
	}
	l := memLog(t)
	if _, err := st.Write(ctx, l); err != nil {
		t.Fatal(err)
	}
	got, _ := mustReadAll(t, l, ReaderOptions{})
	assertEvents(t, got, events)
}

// stagedKeys waits until st is encoded and returns its segments' keys.
func stagedKeys(t *testing.T, st *StagedImport) []string {
	t.Helper()
	var keys []string
	for _, c := range st.chunks {
		if err := c.wait(ctx); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, c.keys...)
	}
	return keys
}
