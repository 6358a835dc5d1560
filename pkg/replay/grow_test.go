package replay_test

import (
	"testing"

	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// TestFold_SubtasksAllocatedUpFront: the subtasks of a job are allocated
// once, from the parallelism of each vertex_initialized and the
// parallelism the graph declares for the vertices still to come, not grown
// one subtask at a time; and an auto parallelism (declared 0) still grows
// the array a few times rather than once per vertex.
func TestFold_SubtasksAllocatedUpFront(t *testing.T) {
	const p = 100_000
	graph := &format.Graph{
		Vertices: []format.Vertex{
			{ID: "source", Parallelism: p, MaxParallelism: p, Coordinator: format.CoordinatorBatchSnapshot},
			{ID: "map", Parallelism: p, MaxParallelism: p},
			{ID: "sink", Parallelism: 4, MaxParallelism: 4},
		},
		Edges: []format.Edge{
			{From: "source", To: "map", Pattern: format.PatternPointwise},
			{From: "map", To: "sink", Pattern: format.PatternPointwise},
		},
	}
	events := []format.Event{
		{Seq: 1, Epoch: 1, Kind: format.KindJobSubmitted, Job: "j", Graph: graph},
		{Seq: 2, Epoch: 1, Kind: format.KindVertexInitialized, Vertex: "source", Parallelism: p},
		{Seq: 3, Epoch: 1, Kind: format.KindVertexInitialized, Vertex: "map", Parallelism: p},
		{Seq: 4, Epoch: 1, Kind: format.KindVertexInitialized, Vertex: "sink", Parallelism: 4},
	}
	submit := testing.AllocsPerRun(3, func() {
		s := replay.NewState()
		_ = s.Apply(&events[0])
	})
	all := testing.AllocsPerRun(3, func() {
		s := replay.NewState()
		for i := range events {
			if err := s.Apply(&events[i]); err != nil {
				t.Fatal(err)
			}
		}
	})
	if got := all - submit; got > 1 {
		t.Errorf("three vertex_initialized of %d subtasks allocate %.0f times, want 1", 2*p+4, got)
	}

	auto := &format.Graph{}
	for i := range 64 {
		auto.Vertices = append(auto.Vertices, format.Vertex{ID: string(rune('a'+i%26)) + string(rune('a'+i/26)), MaxParallelism: p})
	}
	autoEvents := []format.Event{{Seq: 1, Epoch: 1, Kind: format.KindJobSubmitted, Job: "j", Graph: auto}}
	for i, v := range auto.Vertices {
		autoEvents = append(autoEvents, format.Event{Seq: int64(i) + 2, Epoch: 1, Kind: format.KindVertexInitialized, Vertex: v.ID, Parallelism: 1000})
	}
	autoSubmit := testing.AllocsPerRun(3, func() {
		s := replay.NewState()
		_ = s.Apply(&autoEvents[0])
	})
	grows := testing.AllocsPerRun(3, func() {
		s := replay.NewState()
		for i := range autoEvents {
			if err := s.Apply(&autoEvents[i]); err != nil {
				t.Fatal(err)
			}
		}
	})
	if got := grows - autoSubmit; got > 12 {
		t.Errorf("64 vertices of auto parallelism allocate %.0f times, want at most 12", got)
	}
}
