package replay_test

import (
	"reflect"
	"testing"

	"github.com/jobevent/jobevent/internal/loggen"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// wideGraph is a source → map → sink graph, the source and the map p
// wide, the sink 4.
func wideGraph(p int32) *format.Graph {
	return &format.Graph{
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
}

// TestFold_SubtasksAllocatedUpFront: the subtasks of a job are allocated
// once, from the parallelism of each vertex_initialized and the
// parallelism the graph declares for the vertices still to come, not grown
// one subtask at a time; and an auto parallelism (declared 0) still grows
// the array a few times rather than once per vertex.
func TestFold_SubtasksAllocatedUpFront(t *testing.T) {
	const p = 100_000
	graph := wideGraph(p)
	events := []format.Event{
		{Seq: 1, Epoch: 1, Kind: format.KindJobSubmitted, Job: "j", Graph: graph},
		{Seq: 2, Epoch: 1, Kind: format.KindVertexInitialized, Vertex: "source", Parallelism: p},
		{Seq: 3, Epoch: 1, Kind: format.KindVertexInitialized, Vertex: "map", Parallelism: p},
		{Seq: 4, Epoch: 1, Kind: format.KindVertexInitialized, Vertex: "sink", Parallelism: 4},
	}
	if got := allocsAfterFirst(t, events); got > 1 {
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
	if got := allocsAfterFirst(t, autoEvents); got > 12 {
		t.Errorf("64 vertices of auto parallelism allocate %.0f times, want at most 12", got)
	}
}

// TestFold_FinishAllocatesNothing: a subtask_finished whose partitions
// say what the absent form says (a single out-edge holding the attempt's
// output, or no out-edge) is recorded without allocating.
func TestFold_FinishAllocatesNothing(t *testing.T) {
	const p = 1000
	graph := &format.Graph{
		Vertices: []format.Vertex{{ID: "map", Parallelism: p}, {ID: "sink", Parallelism: p}},
		Edges:    []format.Edge{{From: "map", To: "sink", Pattern: format.PatternPointwise}},
	}
	s := replay.NewState()
	seq := int64(0)
	apply := func(e format.Event) {
		seq++
		e.Seq, e.Epoch = seq, 1
		if err := s.Apply(&e); err != nil {
			t.Fatal(err)
		}
	}
	apply(format.Event{Kind: format.KindJobSubmitted, Job: "j", Graph: graph})
	apply(format.Event{Kind: format.KindVertexInitialized, Vertex: "map", Parallelism: p})
	apply(format.Event{Kind: format.KindVertexInitialized, Vertex: "sink", Parallelism: p})
	mapFinish := format.Event{Kind: format.KindSubtaskFinished, Vertex: "map", Worker: "w1", RecordsOut: 10, BytesOut: 200,
		Partitions: []format.Partition{{Consumer: "sink", Bytes: 200, Records: 10}}}
	sinkFinish := format.Event{Kind: format.KindSubtaskFinished, Vertex: "sink", Worker: "w1", Partitions: []format.Partition{}}
	i := int32(0)
	allocs := testing.AllocsPerRun(100, func() {
		for _, e := range []*format.Event{&mapFinish, &sinkFinish} {
			seq++
			e.Seq, e.Epoch, e.Subtask = seq, 1, i%p
			if err := s.Apply(e); err != nil {
				t.Fatal(err)
			}
		}
		i++
	})
	if allocs != 0 {
		t.Errorf("a finish allocates %.1f times, want 0", allocs/2)
	}
}

// TestFold_PartitionsAbsentOrListed: a log whose single-out-edge finishes
// list their partition explicitly, and the same log with those lists in
// the absent form, fold to the same finished map, partitions and plans.
func TestFold_PartitionsAbsentOrListed(t *testing.T) {
	for seed := int64(1); seed <= 40; seed++ {
		events := loggen.Events(randomOptions(seed))
		absent := make([]format.Event, len(events))
		copy(absent, events)
		outs := map[string][]string{}
		changed := 0
		for k := range absent {
			e := &absent[k]
			if e.Kind == format.KindJobSubmitted {
				for _, ed := range e.Graph.Edges {
					outs[ed.From] = append(outs[ed.From], ed.To)
				}
			}
			if e.Kind != format.KindSubtaskFinished || len(outs[e.Vertex]) != 1 || len(e.Partitions) != 1 {
				continue
			}
			if p := e.Partitions[0]; p.Consumer == outs[e.Vertex][0] && p.Bytes == e.BytesOut && p.Records == e.RecordsOut {
				e.Partitions = nil
				changed++
			}
		}
		a, b := fold(t, events), fold(t, absent)
		if !reflect.DeepEqual(a.Finished(), b.Finished()) || !reflect.DeepEqual(a.Partitions(), b.Partitions()) {
			t.Fatalf("seed %d: the finished maps differ", seed)
		}
		for _, o := range []replay.AvailabilityOptions{{}, {LostWorkers: []string{"w1"}}} {
			pa, err := replay.PlanDryRun(a, o, replay.PlanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			pb, _ := replay.PlanDryRun(b, o, replay.PlanOptions{})
			if !reflect.DeepEqual(pa.Subtasks, pb.Subtasks) || !reflect.DeepEqual(pa.Kept(), pb.Kept()) {
				t.Fatalf("seed %d %+v: the plans differ", seed, o)
			}
		}
		if seed == 1 && changed == 0 {
			t.Fatal("no finish listed its single partition: the generated logs do not exercise the absent form")
		}
	}
}

// TestFold_FoldFields: events projected on FoldFields fold to the state
// the whole events fold to.
func TestFold_FoldFields(t *testing.T) {
	for seed := int64(1); seed <= 30; seed++ {
		events := loggen.Events(randomOptions(seed))
		projected := make([]format.Event, len(events))
		for k := range events {
			projected[k] = events[k].Project(replay.FoldFields)
		}
		if a, b := fold(t, events), fold(t, projected); !reflect.DeepEqual(a, b) {
			t.Fatalf("seed %d: the state folded from projected events differs", seed)
		}
	}
}

// allocsAfterFirst returns how many times folding events allocates beyond
// folding their first (the job_submitted, whose graph allocates).
func allocsAfterFirst(t *testing.T, events []format.Event) float64 {
	t.Helper()
	first := testing.AllocsPerRun(3, func() {
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
	return all - first
}
