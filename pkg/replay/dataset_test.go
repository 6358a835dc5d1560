package replay_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// datasetLog is a job whose src writes one dataset d that a and b both
// read, and a second dataset e that b reads too (two datasets between src
// and b); src and a finished on w1, b was running.
func datasetLog() []format.Event {
	g := &format.Graph{
		Vertices: []format.Vertex{
			{ID: "src", Parallelism: 1, MaxParallelism: 1},
			{ID: "a", Parallelism: 1, MaxParallelism: 1},
			{ID: "b", Parallelism: 1, MaxParallelism: 1},
		},
		Edges: []format.Edge{
			{From: "src", To: "a", Pattern: format.PatternAllToAll, Dataset: "d"},
			{From: "src", To: "b", Pattern: format.PatternAllToAll, Dataset: "d"},
			{From: "src", To: "b", Pattern: format.PatternPointwise, Dataset: "e"},
		},
	}
	ev := []format.Event{
		{Kind: format.KindJobSubmitted, Graph: g},
		{Kind: format.KindMasterStarted, Master: "m"},
		{Kind: format.KindVertexInitialized, Vertex: "src", Parallelism: 1},
		{Kind: format.KindVertexInitialized, Vertex: "a", Parallelism: 1},
		{Kind: format.KindVertexInitialized, Vertex: "b", Parallelism: 1},
		{Kind: format.KindSubtaskStarted, Vertex: "src", Worker: "w1"},
		{Kind: format.KindSubtaskFinished, Vertex: "src", Worker: "w1"},
		{Kind: format.KindSubtaskStarted, Vertex: "a", Worker: "w1"},
		{Kind: format.KindSubtaskFinished, Vertex: "a", Worker: "w1"},
		{Kind: format.KindSubtaskStarted, Vertex: "b", Worker: "w2"},
	}
	for i := range ev {
		ev[i].Seq, ev[i].Epoch, ev[i].Job = int64(i+1), 1, "j"
	}
	return ev
}

// TestPlan_Datasets: partitions are per dataset, not per edge. An
// --available list naming src's partition for a names dataset d, which b
// reads too; with dataset e's partition also available, src is kept and
// only b runs. Without e's, src reruns for b, and a with it.
func TestPlan_Datasets(t *testing.T) {
	st := fold(t, datasetLog())
	d := replay.PartitionLoc{PartitionID: replay.PartitionID{Vertex: "src", Consumer: "a"}, Worker: "w1"}
	e := replay.PartitionLoc{PartitionID: replay.PartitionID{Vertex: "src", Dataset: "e"}, Worker: "w1"}
	for _, tc := range []struct {
		avail []replay.PartitionLoc
		want  []string
	}{
		{[]replay.PartitionLoc{d, e}, []string{"src/0 keep 0 []", "a/0 keep 0 []", "b/0 rerun 1 [running_at_failover]"}},
		{[]replay.PartitionLoc{d}, []string{"src/0 rerun 1 [partition_lost]", "a/0 rerun 1 [downstream_of_reset]", "b/0 rerun 1 [running_at_failover]"}},
	} {
		plan, err := replay.PlanDryRun(st, replay.AvailabilityOptions{Available: tc.avail}, replay.PlanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := rows(plan); !reflect.DeepEqual(got, tc.want) {
			t.Fatalf("available %v: rows = %q, want %q", tc.avail, got, tc.want)
		}
	}
	// The recorded partitions: one per dataset, the kept subtask's too.
	a := replay.AllRecorded(st)
	if len(a) != 2 || !a[replay.PartitionID{Vertex: "src", Consumer: "a", Dataset: "d"}] || !a[replay.PartitionID{Vertex: "src", Consumer: "b", Dataset: "e"}] {
		t.Fatalf("recorded = %v", a)
	}
	plan := replay.Plan(st, a)
	if k := plan.Kept(); len(k) != 2 || len(k[0].Partitions) != 2 || k[0].Partitions[1].Dataset != "e" {
		t.Fatalf("kept = %+v", k)
	}
}

// TestValidate_Datasets: two datasets between two vertices and one
// dataset read by two vertices are a valid graph; an edge repeated with
// its dataset, a dataset of two producers and ranges that miss a consumer
// subtask are not.
func TestValidate_Datasets(t *testing.T) {
	if fs := graphFindings(t, datasetLog()); len(fs) > 0 {
		t.Fatalf("findings on a valid graph: %q", fs)
	}
	bad := datasetLog()
	g := bad[0].Graph
	g.Vertices = append(g.Vertices, format.Vertex{ID: "c", Parallelism: 1, MaxParallelism: 1})
	g.Edges = append(g.Edges,
		format.Edge{From: "src", To: "b", Pattern: format.PatternPointwise, Dataset: "e"},
		format.Edge{From: "a", To: "c", Dataset: "d"},
		format.Edge{From: "b", To: "c", Dataset: "x"},
	)
	g.Ranges = []format.Range{{Edge: int32(len(g.Edges) - 1), Subtask: 1, First: 0, Last: 0}}
	want := []string{
		"edge src -> b (dataset e) is repeated",
		`edge a -> c (dataset d) reads a dataset that "src" produces`,
		"edge b -> c: no range for consumer subtask 0 of 2",
	}
	if got := graphFindings(t, bad); !reflect.DeepEqual(got, want) {
		t.Fatalf("findings = %q, want %q", got, want)
	}
}

// graphFindings returns the messages of the invalid-graph findings of
// events.
func graphFindings(t *testing.T, events []format.Event) []string {
	t.Helper()
	var out []string
	for _, f := range replay.Validate(&replay.SliceSource{Events: events}, replay.ValidateOptions{}) {
		if f.Rule == replay.RuleInvalidGraph {
			out = append(out, f.Message)
		}
	}
	return out
}

// TestUnmatched_WorkerReset: a lost worker whose finished subtasks were
// all reset since names no recorded partition, and the warning says that
// they were reset, not that none ran there.
func TestUnmatched_WorkerReset(t *testing.T) {
	ev := datasetLog()
	ev = append(ev, format.Event{Seq: int64(len(ev) + 1), Epoch: 1, Job: "j", Kind: format.KindSubtasksReset,
		Subtasks: []format.SubtaskRef{{Vertex: "src"}, {Vertex: "a"}}, Reason: "failure"})
	st := fold(t, ev)
	un := replay.AvailabilityOptions{LostWorkers: []string{"w1", "w9"}}.Unmatched(st)
	if len(un) != 2 || !strings.Contains(un[0].Why, "every subtask that finished on worker w1 was reset") ||
		!strings.Contains(un[1].Why, "no finished subtask ran on worker w9") {
		t.Fatalf("unmatched = %+v", un)
	}
}
