package format

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"
)

// badlyCompressing returns events that compress as badly as events can:
// each kind at its zero value, then long random strings and bytes, and
// lists of many elements of random values or of empty strings, in every
// field that a kind writes.
func badlyCompressing() []Event {
	rng := rand.New(rand.NewPCG(7, 8))
	str := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return string(b)
	}
	at := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	var events []Event
	for _, k := range Kinds {
		events = append(events, Event{Seq: 1, Epoch: 1, Kind: k})
	}
	g := &Graph{}
	for i := range 2000 {
		g.Vertices = append(g.Vertices, Vertex{ID: str(12), Operator: str(20), Parallelism: rng.Int32(), MaxParallelism: rng.Int32(), Coordinator: str(9)})
		g.Edges = append(g.Edges, Edge{From: str(12), To: str(12), Pattern: str(7), Dataset: str(10)})
		g.Ranges = append(g.Ranges, Range{Edge: rng.Int32(), Subtask: rng.Int32(), First: rng.Int32(), Last: int32(i)})
		g.Datasets = append(g.Datasets, Dataset{ID: str(10), Producer: str(12)})
	}
	events = append(events, Event{Seq: 1, Epoch: 1, Kind: KindJobSubmitted, Job: str(300), Graph: g})
	events = append(events, Event{Seq: 1, Epoch: 1, Kind: KindJobSubmitted, Graph: &Graph{Vertices: make([]Vertex, 20000), Edges: make([]Edge, 20000)}})
	events = append(events, Event{Seq: 1 << 40, Epoch: 1 << 30, Time: at, Kind: KindMasterStarted, Master: str(100_000), Recovering: true})
	var parts []Partition
	for range 20000 {
		parts = append(parts, Partition{Consumer: str(8), Bytes: rng.Int64(), Records: rng.Int64()})
	}
	events = append(events, Event{Seq: 5, Epoch: 1, Time: at, Kind: KindSubtaskFinished, Vertex: str(500), Subtask: rng.Int32(),
		Attempt: rng.Int32(), Worker: str(500), RecordsIn: rng.Int64(), RecordsOut: rng.Int64(), BytesIn: rng.Int64(),
		BytesOut: rng.Int64(), Partitions: parts})
	events = append(events, Event{Seq: 5, Epoch: 1, Kind: KindSubtaskFinished, Partitions: make([]Partition, 50000)})
	var refs []SubtaskRef
	for range 20000 {
		refs = append(refs, SubtaskRef{Vertex: str(6), Subtask: rng.Int32()})
	}
	events = append(events, Event{Seq: 6, Epoch: 2, Time: at, Kind: KindSubtasksReset, Subtasks: refs, Reason: str(10_000)})
	events = append(events, Event{Seq: 6, Epoch: 2, Kind: KindSubtasksReset, Subtasks: make([]SubtaskRef, 50000)})
	coords := make(map[string][]byte)
	for range 500 {
		coords[str(16)] = []byte(str(1000))
	}
	events = append(events, Event{Seq: 7, Epoch: 2, Time: at, Kind: KindSnapshot, Coordinators: coords})
	events = append(events, Event{Seq: 8, Epoch: 2, Time: at, Kind: KindSubtaskFailed, Vertex: str(40), Error: str(200_000), Worker: str(40)})
	events = append(events, Event{Seq: 9, Epoch: 2, Time: at, Kind: KindJobFinished, Status: str(1000), Error: str(300_000)})
	return events
}

// TestSegmentBound: the segment of an event alone is never larger than
// segmentBound says, however badly the event compresses.
func TestSegmentBound(t *testing.T) {
	var buf bytes.Buffer
	for _, e := range badlyCompressing() {
		buf.Reset()
		if err := EncodeSegment(&buf, []Event{e}); err != nil {
			t.Fatalf("%s: %v", e.Kind, err)
		}
		bound := segmentBound(&e)
		if buf.Len() > bound {
			t.Errorf("%s: segment of %d bytes, over its bound of %d", e.Kind, buf.Len(), bound)
		}
		t.Logf("%s: %d bytes, bound %d", e.Kind, buf.Len(), bound)
	}
}

// TestSegmentFits: an unknown kind, a time a segment cannot hold or a
// bound over the limit is refused; an ordinary event fits.
func TestSegmentFits(t *testing.T) {
	e := realisticEvents(1, 9)[0]
	if !SegmentFits(&e, 15<<20) {
		t.Fatalf("SegmentFits(%+v) = false, want true", e)
	}
	if SegmentFits(&e, segmentBound(&e)-1) {
		t.Errorf("SegmentFits under the bound = true, want false")
	}
	for _, tc := range []struct {
		name string
		bad  func(e *Event)
	}{
		{"unknown kind", func(e *Event) { e.Kind = "bogus" }},
		{"after 2262", func(e *Event) { e.Time = time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC) }},
		{"before 1678", func(e *Event) { e.Time = time.Date(1600, 1, 1, 0, 0, 0, 0, time.UTC) }},
	} {
		bad := e
		tc.bad(&bad)
		if SegmentFits(&bad, 15<<20) {
			t.Errorf("%s: SegmentFits = true, want false", tc.name)
		}
		if err := EncodeSegment(new(bytes.Buffer), []Event{bad}); err == nil {
			t.Errorf("%s: EncodeSegment succeeds; the case shows nothing", tc.name)
		}
	}
}
