package drill

import (
	"reflect"
	"testing"

	"github.com/jobevent/jobevent/pkg/format"
)

// pointsLog is a small clean log: two vertices, two subtasks each.
func pointsLog() []format.Event {
	kinds := []struct {
		kind   format.Kind
		vertex string
		i      int32
	}{
		{format.KindJobSubmitted, "", 0}, {format.KindMasterStarted, "", 0},
		{format.KindVertexInitialized, "src", 0},
		{format.KindSubtaskStarted, "src", 0}, {format.KindSubtaskFinished, "src", 0},
		{format.KindSubtaskStarted, "src", 1}, {format.KindSubtaskFinished, "src", 1},
		{format.KindVertexInitialized, "sink", 0},
		{format.KindSubtaskStarted, "sink", 1}, {format.KindSubtaskFinished, "sink", 1},
		{format.KindSubtaskStarted, "sink", 0}, {format.KindSubtaskFinished, "sink", 0},
		{format.KindJobFinished, "", 0},
	}
	events := make([]format.Event, len(kinds))
	for i, k := range kinds {
		events[i] = format.Event{Seq: int64(i + 1), Epoch: 1, Kind: k.kind, Vertex: k.vertex, Subtask: k.i, Status: format.StatusFinished}
	}
	return events
}

func seqs(points []Point) []int64 {
	var out []int64
	for _, p := range points {
		out = append(out, p.Seq)
	}
	return out
}

func TestSelectPoints(t *testing.T) {
	t.Parallel()
	events := pointsLog()
	boundaries := []int64{3, 7, 8, 12} // vertex_initialized, last finish of each vertex
	for _, tc := range []struct {
		name string
		n    int
		at   []int64
		want []int64
	}{
		{"all", 0, nil, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
		{"one", 1, nil, []int64{3, 7, 8, 12}},
		{"three", 3, nil, []int64{1, 3, 7, 8, 12, 13}},
		{"more than events", 40, nil, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}},
		{"at", 3, []int64{5, 2, 99, 5}, []int64{2, 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := selectPoints(events, tc.n, tc.at)
			if !reflect.DeepEqual(seqs(got), tc.want) {
				t.Fatalf("points = %v, want %v", seqs(got), tc.want)
			}
			for _, p := range got {
				want := false
				for _, b := range boundaries {
					want = want || b == p.Seq
				}
				if p.Boundary != want {
					t.Errorf("point %d boundary = %v, want %v", p.Seq, p.Boundary, want)
				}
			}
		})
	}
	if got := selectPoints(nil, 0, nil); got != nil {
		t.Fatalf("points of an empty log = %v, want none", got)
	}
}

func TestSelectPoints_Events(t *testing.T) {
	t.Parallel()
	got := selectPoints(pointsLog(), 0, []int64{1, 3, 5, 13})
	want := []string{"job_submitted", "vertex_initialized src", "subtask_finished src/0", "job_finished finished"}
	for i, p := range got {
		if p.Event != want[i] {
			t.Errorf("point %d event = %q, want %q", p.Seq, p.Event, want[i])
		}
	}
}
