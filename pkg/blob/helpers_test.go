package blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/jobevent/jobevent/pkg/format"
)

// genEvents returns n events of a plausible job (a source, a map, a count
// and a sink vertex), without seq and epoch: a writer assigns them.
func genEvents(n int, seed uint64) []format.Event {
	rng := rand.New(rand.NewPCG(seed, 42))
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	vertices := []string{"source", "tokenize", "count", "sink"}
	workers := []string{"w1", "w2", "w3", "w4"}
	events := make([]format.Event, 0, n)
	add := func(e format.Event) {
		if len(events) < n {
			e.Job = "wordcount"
			e.Time = t0.Add(time.Duration(len(events)) * 1500 * time.Microsecond)
			events = append(events, e)
		}
	}
	add(format.Event{Kind: format.KindJobSubmitted, Graph: &format.Graph{
		Vertices: []format.Vertex{
			{ID: "source", Operator: "text_source", Parallelism: 4, MaxParallelism: 128, Coordinator: format.CoordinatorBatchSnapshot},
			{ID: "tokenize", Operator: "flat_map", Parallelism: 4, MaxParallelism: 128, Coordinator: format.CoordinatorNone},
			{ID: "count", Operator: "count", Parallelism: 0, MaxParallelism: 64, Coordinator: format.CoordinatorNone},
			{ID: "sink", Operator: "sink", Parallelism: 2, MaxParallelism: 128, Coordinator: format.CoordinatorNone},
		},
		Edges: []format.Edge{
			{From: "source", To: "tokenize", Pattern: format.PatternPointwise},
			{From: "tokenize", To: "count", Pattern: format.PatternAllToAll},
			{From: "count", To: "sink", Pattern: format.PatternAllToAll},
		},
	}})
	add(format.Event{Kind: format.KindMasterStarted, Master: "127.0.0.1:7070"})
	for len(events) < n {
		v := vertices[rng.IntN(len(vertices))]
		sub := int32(rng.IntN(64))
		att := int32(rng.IntN(3))
		w := workers[rng.IntN(len(workers))]
		switch r := rng.IntN(100); {
		case r < 40:
			add(format.Event{Kind: format.KindSubtaskStarted, Vertex: v, Subtask: sub, Attempt: att, Worker: w})
		case r < 80:
			e := format.Event{Kind: format.KindSubtaskFinished, Vertex: v, Subtask: sub, Attempt: att, Worker: w,
				RecordsIn: rng.Int64N(1 << 20), RecordsOut: rng.Int64N(1 << 20), BytesIn: rng.Int64N(1 << 30), BytesOut: rng.Int64N(1 << 30)}
			switch rng.IntN(3) {
			case 0: // absent: one per out-edge
			case 1:
				e.Partitions = []format.Partition{}
			default:
				e.Partitions = []format.Partition{{Consumer: "count", Bytes: rng.Int64N(1 << 20), Records: rng.Int64N(1 << 12)}}
			}
			add(e)
		case r < 85:
			add(format.Event{Kind: format.KindVertexInitialized, Vertex: v, Parallelism: int32(1 + rng.IntN(64))})
		case r < 90:
			add(format.Event{Kind: format.KindSubtaskFailed, Vertex: v, Subtask: sub, Attempt: att, Worker: w, Error: "connection reset by peer"})
		case r < 95:
			add(format.Event{Kind: format.KindSubtasksReset, Reason: "partition_not_found",
				Subtasks: []format.SubtaskRef{{Vertex: v, Subtask: sub}, {Vertex: "count", Subtask: 1}}})
		default:
			add(format.Event{Kind: format.KindSnapshot, Coordinators: map[string][]byte{"source": {byte(rng.IntN(256)), 1, 2, 3}}})
		}
	}
	return events
}

// numbered returns copies of events with epoch and seqs from first on.
func numbered(events []format.Event, epoch int32, first int64) []format.Event {
	out := make([]format.Event, len(events))
	for i, e := range events {
		e.Epoch, e.Seq = epoch, first+int64(i)
		out[i] = e
	}
	return out
}

// readAll reads a whole log.
func readAll(t *testing.T, l *Log, opts ReaderOptions) ([]format.Event, []format.Notice, error) {
	t.Helper()
	r, err := l.NewReader(context.Background(), opts)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	var events []format.Event
	for {
		e, err := r.Next()
		if err == io.EOF {
			return events, r.Notices(), nil
		}
		if err != nil {
			return events, r.Notices(), err
		}
		events = append(events, e)
	}
}

// mustReadAll reads a whole log that must read without error.
func mustReadAll(t *testing.T, l *Log, opts ReaderOptions) ([]format.Event, []format.Notice) {
	t.Helper()
	events, notices, err := readAll(t, l, opts)
	if err != nil {
		t.Fatalf("read %s: %v", l.URL(), err)
	}
	return events, notices
}

// assertEvents compares events by their canonical JSON.
func assertEvents(t *testing.T, got, want []format.Event) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("events = %d, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := format.AppendJSON(nil, &got[i]), format.AppendJSON(nil, &want[i])
		if !bytes.Equal(g, w) {
			t.Fatalf("event %d:\n got %s\nwant %s", i, g, w)
		}
	}
}

// seqs returns the first and last seq of events and checks they count up.
func checkSeqs(t *testing.T, events []format.Event, first, last int64) {
	t.Helper()
	if len(events) == 0 {
		if last >= first {
			t.Fatalf("no events, want seq %d to %d", first, last)
		}
		return
	}
	if events[0].Seq != first || events[len(events)-1].Seq != last || int64(len(events)) != last-first+1 {
		t.Fatalf("seqs %d..%d (%d events), want %d..%d", events[0].Seq, events[len(events)-1].Seq, len(events), first, last)
	}
	for i := 1; i < len(events); i++ {
		if events[i].Seq != events[i-1].Seq+1 {
			t.Fatalf("seq %d follows %d", events[i].Seq, events[i-1].Seq)
		}
	}
}

// noticesOf returns the notices of one kind.
func noticesOf(notices []format.Notice, kind format.NoticeKind) []format.Notice {
	var out []format.Notice
	for _, n := range notices {
		if n.Kind == kind {
			out = append(out, n)
		}
	}
	return out
}

// faultMode says what faultyStore does to one create call.
type faultMode int

const (
	passThrough faultMode = iota
	failBefore            // fail without writing
	failAfter             // write, then report a failure
)

var errInjected = errors.New("injected upload failure")

// faultyStore wraps a log's store and fails create calls of segments as
// its plan says: plan(n, key) for the n-th (1-based) segment create.
type faultyStore struct {
	objectStore
	mu      sync.Mutex
	creates int
	plan    func(n int, key string) faultMode
}

func (s *faultyStore) create(ctx context.Context, key string, data []byte, contentType string) error {
	mode := passThrough
	if _, _, _, ok := ParseSegmentName(key); ok {
		s.mu.Lock()
		s.creates++
		mode = s.plan(s.creates, key)
		s.mu.Unlock()
	}
	switch mode {
	case failBefore:
		return fmt.Errorf("write %s: %w", key, errInjected)
	case failAfter:
		if err := s.objectStore.create(ctx, key, data, contentType); err != nil {
			return err
		}
		return fmt.Errorf("write %s: %w (after the write landed)", key, errInjected)
	}
	return s.objectStore.create(ctx, key, data, contentType)
}

func (s *faultyStore) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.creates
}

// injectFaults replaces l's store with a faulty one.
func injectFaults(l *Log, plan func(n int, key string) faultMode) *faultyStore {
	fs := &faultyStore{objectStore: l.store, plan: plan}
	l.store = fs
	return fs
}

// waitDurable waits, up to a real-time deadline, for the OnDurable hook to
// report seq or more.
func waitDurable(t *testing.T, ch <-chan int64, seq int64) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case got := <-ch:
			if got >= seq {
				return
			}
		case <-deadline:
			t.Fatalf("seq %d not durable after 20s", seq)
		}
	}
}

// durableChan installs an OnDurable hook that reports into a channel.
func durableChan(w *Writer) <-chan int64 {
	ch := make(chan int64, 1024)
	w.OnDurable(func(seq int64) {
		select {
		case ch <- seq:
		default:
		}
	})
	return ch
}
