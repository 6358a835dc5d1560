package format

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// sampleEvents returns a small log that uses every kind and every optional
// field shape: absent, empty and full partitions, empty and full
// coordinators, errors present and absent, unicode and escapes.
func sampleEvents() []Event {
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	return []Event{
		{Seq: 1, Time: at(0), Epoch: 1, Kind: KindJobSubmitted, Job: "wordcount", Graph: &Graph{
			Vertices: []Vertex{
				{ID: "src", Operator: "text_source", Parallelism: 2, MaxParallelism: 8, Coordinator: CoordinatorBatchSnapshot},
				{ID: "count", Operator: "key_by_count", Parallelism: 0, MaxParallelism: 4, Coordinator: CoordinatorNone},
				{ID: "sink", Operator: "sink", Parallelism: 1, MaxParallelism: 1, Coordinator: CoordinatorNone},
			},
			Edges: []Edge{
				{From: "src", To: "count", Pattern: PatternAllToAll},
				{From: "count", To: "sink", Pattern: PatternPointwise},
			},
		}},
		{Seq: 2, Time: at(1), Epoch: 1, Kind: KindMasterStarted, Job: "wordcount", Master: "127.0.0.1:7070"},
		{Seq: 3, Time: at(2), Epoch: 1, Kind: KindVertexInitialized, Job: "wordcount", Vertex: "src", Parallelism: 2},
		{Seq: 4, Time: at(3), Epoch: 1, Kind: KindSubtaskStarted, Job: "wordcount", Vertex: "src", Subtask: 0, Attempt: 0, Worker: "w1"},
		{Seq: 5, Time: at(4), Epoch: 1, Kind: KindSubtaskStarted, Job: "wordcount", Vertex: "src", Subtask: 1, Attempt: 0, Worker: "w2"},
		{Seq: 6, Time: at(5), Epoch: 1, Kind: KindSubtaskFinished, Job: "wordcount", Vertex: "src", Subtask: 0, Worker: "w1",
			RecordsIn: 10, RecordsOut: 20, BytesIn: 300, BytesOut: 400},
		{Seq: 7, Time: at(6), Epoch: 1, Kind: KindSubtaskFailed, Job: "wordcount", Vertex: "src", Subtask: 1, Worker: "w2",
			Error: "disk full: \"/tmp\"\n\tat write\u2028 ünïcødé 日本語 \x01"},
		{Seq: 8, Time: at(7), Epoch: 1, Kind: KindSubtasksReset, Job: "wordcount",
			Subtasks: []SubtaskRef{{Vertex: "src", Subtask: 1}}, Reason: "failure"},
		{Seq: 9, Time: at(8), Epoch: 1, Kind: KindSubtaskFailed, Job: "wordcount", Vertex: "src", Subtask: 1, Attempt: 1, Worker: "w2"},
		{Seq: 10, Time: at(9), Epoch: 1, Kind: KindSnapshot, Job: "wordcount",
			Coordinators: map[string][]byte{"src": []byte("\x00\x01splits\xff"), "a": nil}},
		{Seq: 11, Time: at(10), Epoch: 1, Kind: KindSnapshot, Job: "wordcount", Coordinators: map[string][]byte{}},
		{Seq: 12, Time: at(11), Epoch: 2, Kind: KindMasterStarted, Job: "wordcount", Master: "10.0.0.1:1", Recovering: true},
		{Seq: 13, Time: at(12), Epoch: 2, Kind: KindSubtasksReset, Job: "wordcount", Reason: ReasonRecovery},
		{Seq: 14, Time: at(13).Add(123456789), Epoch: 2, Kind: KindSubtaskFinished, Job: "wordcount", Vertex: "src", Subtask: 1, Attempt: 2,
			Worker: "w3", Partitions: []Partition{}},
		{Seq: 15, Time: at(14), Epoch: 2, Kind: KindSubtaskFinished, Job: "wordcount", Vertex: "count", Subtask: 0, Attempt: 0,
			Worker: "w1", RecordsIn: -1, RecordsOut: 1 << 62, Partitions: []Partition{{Consumer: "sink", Bytes: 1 << 40, Records: 7}, {Consumer: "x", Bytes: 0, Records: 0}}},
		{Seq: 16, Time: at(15), Epoch: 2, Kind: KindJobFinished, Job: "wordcount", Status: StatusFinished},
		{Seq: 17, Time: at(16), Epoch: 2, Kind: KindJobFinished, Job: "wordcount", Status: StatusFailed, Error: "too many failures"},
	}
}

// realisticEvents returns n events shaped like a real job's log: mostly
// starts and finishes with partitions over a few vertices and workers, and
// a few failures, resets and snapshots.
func realisticEvents(n int, seed uint64) []Event {
	rng := rand.New(rand.NewPCG(seed, 1))
	vertices := []string{"source", "tokenize", "count", "aggregate", "sink"}
	workers := []string{"worker-1:7071", "worker-2:7071", "worker-3:7071", "worker-4:7071"}
	t := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	events := make([]Event, 0, n)
	add := func(e Event) {
		t = t.Add(time.Duration(rng.IntN(2_000_000)) * time.Nanosecond)
		e.Seq, e.Time, e.Epoch, e.Job = int64(len(events)+1), t, 1, "wordcount-2026-12-02"
		events = append(events, e)
	}
	g := &Graph{}
	for i, v := range vertices {
		g.Vertices = append(g.Vertices, Vertex{ID: v, Operator: "op_" + v, Parallelism: 64, MaxParallelism: 128})
		if i > 0 {
			g.Edges = append(g.Edges, Edge{From: vertices[i-1], To: v, Pattern: PatternAllToAll})
		}
	}
	add(Event{Kind: KindJobSubmitted, Graph: g})
	add(Event{Kind: KindMasterStarted, Master: "master-1:7070"})
	for _, v := range vertices {
		add(Event{Kind: KindVertexInitialized, Vertex: v, Parallelism: 64})
	}
	for sub := int32(0); len(events) < n; sub++ {
		v := vertices[rng.IntN(len(vertices)-1)]
		w := workers[rng.IntN(len(workers))]
		s := sub % 4096
		add(Event{Kind: KindSubtaskStarted, Vertex: v, Subtask: s, Worker: w})
		switch r := rng.IntN(100); {
		case r < 3:
			add(Event{Kind: KindSubtaskFailed, Vertex: v, Subtask: s, Worker: w, Error: "connection reset by peer"})
			add(Event{Kind: KindSubtasksReset, Subtasks: []SubtaskRef{{Vertex: v, Subtask: s}}, Reason: "failure"})
		case r < 5:
			add(Event{Kind: KindSnapshot, Coordinators: map[string][]byte{"source": []byte(fmt.Sprintf("split-%d", sub))}})
		default:
			recs := int64(rng.IntN(1000))
			add(Event{Kind: KindSubtaskFinished, Vertex: v, Subtask: s, Worker: w,
				RecordsIn: recs, RecordsOut: recs / 2, BytesIn: recs * 40, BytesOut: recs * 20,
				Partitions: []Partition{{Consumer: "next", Bytes: recs * 20, Records: recs / 2}}})
		}
	}
	return events[:n]
}
