package blob

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jobevent/jobevent/pkg/format"
)

// holdChunk makes the encoders wait before they encode the index-th chunk
// until release is called. The test must release it before it closes the
// staged import.
func holdChunk(t *testing.T, index int) (release func()) {
	t.Helper()
	gate := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(gate) }) }
	testHookEncode = func(i int) {
		if i == index {
			<-gate
		}
	}
	t.Cleanup(func() { testHookEncode = nil })
	return release
}

// createdStore sends the key of every object it creates on created.
type createdStore struct {
	objectStore
	created chan string
}

func (s *createdStore) create(ctx context.Context, key string, data []byte, ct string) error {
	err := s.objectStore.create(ctx, key, data, ct)
	if err == nil {
		s.created <- key
	}
	return err
}

// watchedLog returns an in-memory log and the channel on which it sends
// the key of every object it creates.
func watchedLog(t *testing.T) (*Log, <-chan string) {
	l := memLog(t)
	s := &createdStore{objectStore: l.store, created: make(chan string, 100)}
	l.store = s
	return l, s.created
}

// writeHeld stages events, a chunk of stageRun events each, with the last
// chunk held (stageCtx is StageImport's context), and starts writing them
// into the log it returns; done receives Write's error. The staged import
// is released and closed when the test ends.
func writeHeld(t *testing.T, stageCtx context.Context, events []format.Event) (l *Log, created <-chan string, done <-chan error, release func()) {
	t.Helper()
	release = holdChunk(t, (len(events)-1)/stageRun)
	src := sliceSource(append([]format.Event(nil), events...))
	st, err := StageImport(stageCtx, &src, ImportOptions{SegmentEvents: stageRun})
	if err != nil {
		release()
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	t.Cleanup(release) // cleanups run last first: released before closed
	l, created = watchedLog(t)
	errc := make(chan error, 1)
	go func() {
		_, err := st.Write(ctx, l)
		errc <- err
	}()
	return l, created, errc, release
}

// TestStagedImport_WritesWhileEncoding: StageImport returns while the last
// segment is still being encoded, Write writes the segments before it
// meanwhile and the last one once it is encoded, and every segment holds
// the bytes EncodeSegment writes for its events.
func TestStagedImport_WritesWhileEncoding(t *testing.T) {
	const chunks = 5
	events := numbered(genEvents(chunks*stageRun, 31), 1, 1)
	l, created, done, release := writeHeld(t, ctx, events)
	var keys []string
	for i := range chunks {
		part := events[i*stageRun : (i+1)*stageRun]
		keys = append(keys, FormatSegmentName(1, part[0].Seq, part[len(part)-1].Seq))
	}
	for _, want := range keys[:chunks-1] {
		if got := <-created; got != want {
			t.Fatalf("created %s, want %s", got, want)
		}
	}
	select {
	case err := <-done:
		t.Fatalf("Write returned (%v) before the last segment was encoded", err)
	default:
	}
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for i, key := range keys {
		buf.Reset()
		if err := format.EncodeSegment(&buf, events[i*stageRun:(i+1)*stageRun]); err != nil {
			t.Fatal(err)
		}
		data, err := l.store.get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(data, buf.Bytes()) {
			t.Errorf("segment %s differs from EncodeSegment's", key)
		}
	}
}

// TestStagedImport_FailsWhileWriting: an encoder that fails after Write
// began (here, stopped by the cancelled context of StageImport) fails
// Write, which removes what it wrote.
func TestStagedImport_FailsWhileWriting(t *testing.T) {
	const chunks = 3
	stageCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	l, created, done, release := writeHeld(t, stageCtx, numbered(genEvents(chunks*stageRun, 32), 1, 1))
	for range chunks - 1 {
		<-created
	}
	cancel()
	release()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Write: err %v, want context.Canceled", err)
	}
	assertNoLog(t, l)
}

// TestStagedImport_Settled: once the input is read, StageImport leaves
// the encoders running only when no chunk failed and no event of a chunk
// still being encoded could fail to encode.
func TestStagedImport_Settled(t *testing.T) {
	good := numbered(genEvents(10, 33), 1, 1)
	bad := func(change func(e *format.Event)) []format.Event {
		events := append([]format.Event(nil), good...)
		change(&events[9])
		return events
	}
	pending := func(events []format.Event) *stageChunk {
		return &stageChunk{blocks: [][]format.Event{events}, done: make(chan struct{})}
	}
	finished := func(err error) *stageChunk {
		c := &stageChunk{done: make(chan struct{}), err: err}
		close(c.done)
		return c
	}
	huge := map[string][]byte{"source": make([]byte, 8<<10)}
	for _, tc := range []struct {
		name   string
		chunks []*stageChunk
		want   bool
	}{
		{"encoded", []*stageChunk{finished(nil), finished(nil)}, true},
		{"being encoded", []*stageChunk{finished(nil), pending(good)}, true},
		{"a chunk failed", []*stageChunk{finished(errors.New("x")), pending(good)}, false},
		{"time out of range", []*stageChunk{finished(nil), pending(bad(func(e *format.Event) {
			e.Time = time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)
		}))}, false},
		{"unknown kind", []*stageChunk{pending(bad(func(e *format.Event) { e.Kind = "bogus" }))}, false},
		{"maybe too large", []*stageChunk{pending(bad(func(e *format.Event) {
			e.Kind, e.Coordinators = format.KindSnapshot, huge
		}))}, false},
	} {
		saved := maxSegmentBytes
		maxSegmentBytes = 64<<10 + 4<<10 // fits every event of good, not 8 KiB of state
		st := &StagedImport{chunks: tc.chunks}
		got := st.settled()
		maxSegmentBytes = saved
		if got != tc.want {
			t.Errorf("%s: settled = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestImport_LateErrorWritesNothing: an event that only the encoder
// refuses, in the last segment, while earlier ones are encoded already,
// fails the import before anything is written to the log.
func TestImport_LateErrorWritesNothing(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(e *format.Event)
		want   error
	}{
		{"time out of range", func(e *format.Event) { e.Time = time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC) }, format.ErrTimeRange},
		{"too large", func(e *format.Event) {
			e.Kind, e.Coordinators = format.KindSnapshot, map[string][]byte{"src": randomBytes(MaxSegmentBytes + 1)}
		}, ErrSegmentTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			events := numbered(genEvents(4*stageRun, 34), 1, 1)
			tc.change(&events[len(events)-1])
			l, created := watchedLog(t)
			src := sliceSource(events)
			if _, err := Import(ctx, l, &src, ImportOptions{SegmentEvents: stageRun}); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			select {
			case key := <-created:
				t.Fatalf("%s written", key)
			default:
			}
		})
	}
}

// TestImport_FileGroups: into a file:// log, whose segments' data is
// written and synced several at a time, import writes the segments
// EncodeSegment writes; a segment that cannot be created (a directory
// holds its name) fails the import, which leaves no segment, epoch object
// or temporary file behind.
func TestImport_FileGroups(t *testing.T) {
	const chunks = 2*putAhead + 1
	events := numbered(genEvents(chunks*stageRun, 35), 1, 1)
	keyOf := func(i int) string {
		return FormatSegmentName(1, int64(i*stageRun+1), int64((i+1)*stageRun))
	}
	open := func() *Log {
		l, err := Create(ctx, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l
	}
	l := open()
	src := sliceSource(append([]format.Event(nil), events...))
	if res, err := Import(ctx, l, &src, ImportOptions{SegmentEvents: stageRun}); err != nil || res.Segments != chunks {
		t.Fatalf("import = %+v, %v; want %d segments", res, err, chunks)
	}
	var buf bytes.Buffer
	for i := range chunks {
		buf.Reset()
		if err := format.EncodeSegment(&buf, events[i*stageRun:(i+1)*stageRun]); err != nil {
			t.Fatal(err)
		}
		if data, err := l.store.get(ctx, keyOf(i)); err != nil || !bytes.Equal(data, buf.Bytes()) {
			t.Errorf("segment %s: %d bytes, %v; want EncodeSegment's %d", keyOf(i), len(data), err, buf.Len())
		}
	}

	l = open()
	fs := l.store.(*fileStore)
	if err := os.MkdirAll(fs.path(keyOf(putAhead+1)), 0o777); err != nil {
		t.Fatal(err)
	}
	src = sliceSource(events)
	_, err := Import(ctx, l, &src, ImportOptions{SegmentEvents: stageRun})
	if err == nil || !strings.Contains(err.Error(), keyOf(putAhead+1)) {
		t.Fatalf("import over a directory in %s's place: err %v", keyOf(putAhead+1), err)
	}
	assertNoLog(t, l)
	names, err := filepath.Glob(filepath.Join(fs.root, "events", "*"+tmpExt))
	if err != nil || len(names) > 0 {
		t.Fatalf("temporary files left: %v %v", names, err)
	}
}
