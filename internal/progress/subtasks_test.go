package progress

import (
	"testing"

	"github.com/jobevent/jobevent/pkg/format"
)

func TestSubtaskCount(t *testing.T) {
	var c SubtaskCount
	if c.Total() != 0 || c.Finished() != 0 {
		t.Fatalf("empty count = %d/%d, want 0/0", c.Finished(), c.Total())
	}
	graph := &format.Graph{Vertices: []format.Vertex{
		{ID: "src", Parallelism: 2}, {ID: "count", Parallelism: 0}, {ID: "sink", Parallelism: 1},
	}}
	steps := []struct {
		e               format.Event
		finished, total int64
	}{
		{format.Event{Kind: format.KindJobSubmitted, Graph: graph}, 0, 0}, // count is auto
		{format.Event{Kind: format.KindVertexInitialized, Vertex: "src", Parallelism: 2}, 0, 0},
		{format.Event{Kind: format.KindSubtaskFinished, Vertex: "src", Subtask: 0}, 1, 0},
		{format.Event{Kind: format.KindSubtaskFinished, Vertex: "src", Subtask: 1}, 2, 0},
		{format.Event{Kind: format.KindVertexInitialized, Vertex: "count", Parallelism: 3}, 2, 6},
		{format.Event{Kind: format.KindSubtaskFinished, Vertex: "src", Subtask: 1, Attempt: 1}, 2, 6}, // again
		{format.Event{Kind: format.KindSubtasksReset, Subtasks: []format.SubtaskRef{{Vertex: "src", Subtask: 1}}}, 1, 6},
		{format.Event{Kind: format.KindSubtaskFinished, Vertex: "src", Subtask: 1, Attempt: 2}, 2, 6},
		{format.Event{Kind: format.KindJobSubmitted, Graph: &format.Graph{}}, 2, 6}, // a second one is ignored
		{format.Event{Kind: format.KindSubtaskFinished, Vertex: "count", Subtask: 0}, 3, 6},
	}
	for i, s := range steps {
		c.Apply(&s.e)
		if c.Finished() != s.finished || c.Total() != s.total {
			t.Fatalf("after event %d (%s): count = %d/%d, want %d/%d", i, s.e.Kind, c.Finished(), c.Total(), s.finished, s.total)
		}
	}
}
