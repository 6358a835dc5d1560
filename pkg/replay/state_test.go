package replay_test

import (
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/jobevent/jobevent/internal/testlog"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// job builds events over the graph a -> b (pattern) with the given
// parallelisms; seq and epoch are filled in by fill.
func job(pattern string, pa, pb int32) []format.Event {
	g := &format.Graph{
		Vertices: []format.Vertex{{ID: "a", Parallelism: pa, MaxParallelism: 8}, {ID: "b", Parallelism: pb, MaxParallelism: 8}},
		Edges:    []format.Edge{{From: "a", To: "b", Pattern: pattern}},
	}
	return []format.Event{
		{Kind: format.KindJobSubmitted, Job: "j", Graph: g},
		{Kind: format.KindMasterStarted, Master: "m1"},
		{Kind: format.KindVertexInitialized, Vertex: "a", Parallelism: pa},
	}
}

// fill numbers events from 1, in epoch 1 unless they carry one.
func fill(events []format.Event) []format.Event {
	epoch := int32(1)
	for i := range events {
		events[i].Seq = int64(i + 1)
		if events[i].Epoch == 0 {
			events[i].Epoch = epoch
		}
		epoch = events[i].Epoch
	}
	return events
}

func started(v string, i, attempt int32, w string) format.Event {
	return format.Event{Kind: format.KindSubtaskStarted, Vertex: v, Subtask: i, Attempt: attempt, Worker: w}
}

func finished(v string, i, attempt int32, w string, parts ...format.Partition) format.Event {
	return format.Event{Kind: format.KindSubtaskFinished, Vertex: v, Subtask: i, Attempt: attempt, Worker: w, Partitions: parts, BytesOut: 100, RecordsOut: 10}
}

func resetOf(refs ...format.SubtaskRef) format.Event {
	return format.Event{Kind: format.KindSubtasksReset, Subtasks: refs, Reason: "failure"}
}

func refsOf(entries []replay.FinishedEntry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.SubtaskRef.String())
	}
	return out
}

// TestFold_FinishedOrder: a later finish keeps the entry's place, a reset
// removes it, a finish after the reset goes last.
func TestFold_FinishedOrder(t *testing.T) {
	ev := append(job(format.PatternAllToAll, 3, 1),
		started("a", 0, 0, "w1"), started("a", 1, 0, "w1"), started("a", 2, 0, "w1"),
		finished("a", 1, 0, "w1"), finished("a", 0, 0, "w1"), finished("a", 2, 0, "w1"),
		started("a", 1, 1, "w2"), finished("a", 1, 1, "w2"), // again, without a reset
		resetOf(format.SubtaskRef{Vertex: "a", Subtask: 0}),
		started("a", 0, 1, "w2"), finished("a", 0, 1, "w2"),
	)
	st := fold(t, fill(ev))
	got := st.Finished()
	if want := []string{"a/1", "a/2", "a/0"}; !reflect.DeepEqual(refsOf(got), want) {
		t.Fatalf("finished = %v, want %v", refsOf(got), want)
	}
	if got[0].Attempt != 1 || got[0].Worker != "w2" || got[0].Seq != 11 {
		t.Fatalf("a/1 = %+v, want attempt 1 on w2 finished at seq 11", got[0])
	}
	if p := got[0].Partitions; len(p) != 1 || p[0].Consumer != "b" || p[0].Bytes != 100 || p[0].Worker != "w2" {
		t.Fatalf("a/1 partitions = %+v, want the one default partition for b on w2", p)
	}
}

// TestFold_Fenced ignores events of an epoch lower than one seen.
func TestFold_Fenced(t *testing.T) {
	ev := append(job(format.PatternAllToAll, 1, 1),
		started("a", 0, 0, "w1"),
		format.Event{Kind: format.KindMasterStarted, Epoch: 2, Master: "m2", Recovering: true},
		format.Event{Kind: format.KindSubtaskFinished, Epoch: 1, Vertex: "a", Worker: "w1"},
	)
	st := fold(t, fill(ev))
	if st.Fenced() != 1 || len(st.Finished()) != 0 || st.Epoch() != 2 || st.LastSeq() != 5 || st.Master() != "m2" {
		t.Fatalf("fenced %d, finished %v, epoch %d, last seq %d, master %q; want the finish of epoch 1 ignored",
			st.Fenced(), refsOf(st.Finished()), st.Epoch(), st.LastSeq(), st.Master())
	}
}

// TestFold_Malformed skips what it cannot apply, with a typed error, and
// never panics.
func TestFold_Malformed(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    format.Event
		want error
	}{
		{"unknown vertex", started("x", 0, 0, "w1"), replay.ErrUnknownVertex},
		{"not initialized", started("b", 0, 0, "w1"), replay.ErrNotInitialized},
		{"out of range", started("a", 2, 0, "w1"), replay.ErrSubtaskRange},
		{"negative subtask", started("a", -1, 0, "w1"), replay.ErrSubtaskRange},
		{"negative attempt", started("a", 0, -1, "w1"), replay.ErrBadAttempt},
		{"initialized again", format.Event{Kind: format.KindVertexInitialized, Vertex: "a", Parallelism: 2}, replay.ErrReinitialized},
		{"huge parallelism", format.Event{Kind: format.KindVertexInitialized, Vertex: "b", Parallelism: replay.MaxParallelism + 1}, replay.ErrBadParallelism},
		{"zero parallelism", format.Event{Kind: format.KindVertexInitialized, Vertex: "b"}, replay.ErrBadParallelism},
		{"resubmitted", format.Event{Kind: format.KindJobSubmitted}, replay.ErrResubmitted},
		{"unknown kind", format.Event{Kind: "subtask_paused"}, replay.ErrUnknownKind},
		{"reset of unknown", resetOf(format.SubtaskRef{Vertex: "x"}), replay.ErrUnknownVertex},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := fold(t, fill(job(format.PatternAllToAll, 2, 1)))
			e := tc.e
			e.Seq, e.Epoch = 4, 1
			err := st.Apply(&e)
			var ae *replay.ApplyError
			if !errors.As(err, &ae) || !errors.Is(err, tc.want) || ae.Seq != 4 {
				t.Fatalf("Apply = %v, want an *ApplyError at seq 4 wrapping %v", err, tc.want)
			}
			if st.Skipped() != 1 || len(st.SkipErrors()) != 1 || st.LastSeq() != 4 {
				t.Fatalf("skipped %d (%v), last seq %d", st.Skipped(), st.SkipErrors(), st.LastSeq())
			}
		})
	}
	st := replay.NewState()
	e := started("a", 0, 0, "w1")
	if err := st.Apply(&e); !errors.Is(err, replay.ErrNoGraph) {
		t.Fatalf("Apply before job_submitted = %v, want ErrNoGraph", err)
	}
}

// TestFold_Until stops after the seq given.
func TestFold_Until(t *testing.T) {
	events := testlog.Read(t, filepath.Join(validateCases, "good.jsonl"))
	st, err := replay.Fold(&replay.SliceSource{Events: events}, 16)
	if err != nil {
		t.Fatal(err)
	}
	if st.LastSeq() != 16 || st.Epoch() != 1 || st.Status() != "" || st.SnapshotSeq() != 12 {
		t.Fatalf("last seq %d, epoch %d, status %q, snapshot %d", st.LastSeq(), st.Epoch(), st.Status(), st.SnapshotSeq())
	}
	if state, seq := st.Coordinator("src"); string(state) != `{"assigned":2}` || seq != 12 {
		t.Fatalf("coordinator of src = %q at %d", state, seq)
	}
	full := fold(t, events)
	if full.Status() != format.StatusFinished || full.Job() != "wordcount" || full.Events() != 31 {
		t.Fatalf("status %q, job %q, events %d", full.Status(), full.Job(), full.Events())
	}
	if p, ok := full.Parallelism("agg"); !ok || p != 2 {
		t.Fatalf("agg parallelism = %d, %v", p, ok)
	}
}

// TestFold_SourceError returns the error with the state so far.
func TestFold_SourceError(t *testing.T) {
	st, err := replay.Fold(errSource{format.ErrCorrupt}, 0)
	if !errors.Is(err, format.ErrCorrupt) || st == nil {
		t.Fatalf("Fold = %v, %v; want the state and the error", st, err)
	}
}

// TestExpandReset: the producer's finished and running consumers, only
// those that read it over a pointwise edge, and a deferred vertex once.
func TestExpandReset(t *testing.T) {
	g := &format.Graph{
		Vertices: []format.Vertex{
			{ID: "src", Parallelism: 2, Coordinator: format.CoordinatorNoBatchSnapshot},
			{ID: "map", Parallelism: 4}, {ID: "sink", Parallelism: 1},
		},
		Edges: []format.Edge{{From: "src", To: "map", Pattern: format.PatternPointwise}, {From: "map", To: "sink", Pattern: format.PatternAllToAll}},
	}
	ev := []format.Event{
		{Kind: format.KindJobSubmitted, Graph: g}, {Kind: format.KindMasterStarted},
		{Kind: format.KindVertexInitialized, Vertex: "src", Parallelism: 2},
		started("src", 0, 0, "w1"), started("src", 1, 0, "w1"), finished("src", 0, 0, "w1"), finished("src", 1, 0, "w1"),
		{Kind: format.KindVertexInitialized, Vertex: "map", Parallelism: 4},
		started("map", 0, 0, "w1"), started("map", 1, 0, "w1"), started("map", 2, 0, "w1"),
		finished("map", 0, 0, "w1"), finished("map", 2, 0, "w1"),
	}
	st := fold(t, fill(ev))
	deferred := map[string]bool{"src": true}
	got := st.ExpandReset([]format.SubtaskRef{{Vertex: "src", Subtask: 0}}, deferred)
	// src/0 feeds map/0 and map/1 (finished and running); src is deferred,
	// so src/1 too, which feeds map/2 (finished) and map/3 (never started).
	want := []format.SubtaskRef{{Vertex: "src", Subtask: 0}, {Vertex: "src", Subtask: 1},
		{Vertex: "map", Subtask: 0}, {Vertex: "map", Subtask: 1}, {Vertex: "map", Subtask: 2}}
	if !reflect.DeepEqual(got, want) || len(deferred) != 0 {
		t.Fatalf("ExpandReset = %v (deferred left %v), want %v", got, deferred, want)
	}
	got = st.ExpandReset([]format.SubtaskRef{{Vertex: "src", Subtask: 1}, {Vertex: "nope"}}, deferred)
	want = []format.SubtaskRef{{Vertex: "src", Subtask: 1}, {Vertex: "map", Subtask: 2}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("second ExpandReset = %v, want %v (the expansion happens once)", got, want)
	}
}

// TestBuildAvailability maps the CLI's flags.
func TestBuildAvailability(t *testing.T) {
	ev := append(job(format.PatternAllToAll, 2, 1),
		started("a", 0, 0, "w1"), started("a", 1, 0, "w2"), finished("a", 0, 0, "w1"), finished("a", 1, 0, "w2"))
	st := fold(t, fill(ev))
	id := func(i int32) replay.PartitionID { return replay.PartitionID{Vertex: "a", Subtask: i, Consumer: "b"} }
	for _, tc := range []struct {
		name string
		o    replay.AvailabilityOptions
		want replay.Availability
	}{
		{"all", replay.AvailabilityOptions{}, replay.Availability{id(0): true, id(1): true}},
		{"lost worker", replay.AvailabilityOptions{LostWorkers: []string{"w2"}}, replay.Availability{id(0): true}},
		{"lost partition", replay.AvailabilityOptions{LostPartitions: []format.SubtaskRef{{Vertex: "a"}}}, replay.Availability{id(1): true}},
		{"no workers", replay.AvailabilityOptions{NoWorkers: true}, replay.Availability{}},
		{"available", replay.AvailabilityOptions{Available: []replay.PartitionLoc{{PartitionID: id(1), Worker: "w9"}}}, replay.Availability{id(1): true}},
		{"available empty", replay.AvailabilityOptions{Available: []replay.PartitionLoc{}}, replay.Availability{}},
		{"available lost", replay.AvailabilityOptions{Available: []replay.PartitionLoc{{PartitionID: id(1), Worker: "w9"}}, LostWorkers: []string{"w9"}}, replay.Availability{}},
	} {
		got, err := replay.BuildAvailability(st, tc.o)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: BuildAvailability = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
	if _, err := replay.BuildAvailability(st, replay.AvailabilityOptions{NoWorkers: true, Available: []replay.PartitionLoc{}}); !errors.Is(err, replay.ErrNoWorkersAndAvailable) {
		t.Errorf("no workers and available: %v", err)
	}
	if _, err := replay.BuildAvailability(st, replay.AvailabilityOptions{LostPartitions: []format.SubtaskRef{{Vertex: "x"}}}); !errors.Is(err, replay.ErrUnknownVertex) {
		t.Errorf("lost partition of an unknown vertex: %v", err)
	}
}

// TestPlan_RecoveryResetsReplay: the resets a recovering master logs are
// those of the plan, and the next failover replays them (the
// second-epoch scenarios of testdata/replay).
func TestPlan_RecoveryResetsReplay(t *testing.T) {
	events := testlog.ReadScenario(t, filepath.Join(replayScenarios, "second-epoch.txt"))
	st := fold(t, events[:9])
	avail, err := replay.BuildAvailability(st, replay.AvailabilityOptions{LostWorkers: []string{"w1"}})
	if err != nil {
		t.Fatal(err)
	}
	plan := replay.Plan(st, avail)
	logged := events[10]
	if logged.Kind != format.KindSubtasksReset || logged.Reason != format.ReasonRecovery || !reflect.DeepEqual(plan.Resets(), logged.Subtasks) {
		t.Fatalf("plan resets %v, the log's recovery reset %+v", plan.Resets(), logged)
	}
	kept := plan.Kept()
	if len(kept) != 1 || kept[0].SubtaskRef.String() != "a/1" || kept[0].Worker != "w2" || len(kept[0].Partitions) != 1 || kept[0].Partitions[0].Consumer != "b" {
		t.Fatalf("kept = %+v, want a/1 on w2 with its partition for b", kept)
	}
	if d := plan.Deferred(); len(d) != 0 {
		t.Fatalf("deferred = %v", d)
	}
}

// TestPlan_Empty plans an empty log.
func TestPlan_Empty(t *testing.T) {
	plan := replay.Plan(replay.NewState(), nil)
	if plan.Vertices == nil || plan.Subtasks == nil || len(plan.Subtasks) != 0 {
		t.Fatalf("plan = %+v, want empty lists", plan)
	}
}
