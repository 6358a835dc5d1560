package replay_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"reflect"
	"runtime"
	"testing"

	"github.com/jobevent/jobevent/internal/loggen"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// TestPlanDryRun_MatchesBuildAvailability compares PlanDryRun with what it
// replaces, PlanRecovery on the A of BuildAvailability, on generated logs
// of several shapes cut at random points, for each kind of what-if option,
// both profiles and every plan option: the plans must be equal in full
// (rows, kept subtasks, resets, deferred vertices), and so must the
// errors.
func TestPlanDryRun_MatchesBuildAvailability(t *testing.T) {
	plans := 0
	for seed := int64(1); seed <= 60; seed++ {
		o := randomOptions(seed)
		if seed%10 == 0 {
			o = loggen.BenchOptions(seed, 400, 3000)
		}
		events := loggen.Events(o)
		rng := rand.New(rand.NewSource(seed))
		for cut := 0; cut < 4; cut++ {
			k := len(events)
			if cut > 0 {
				k = 2 + rng.Intn(len(events)-1)
			}
			for _, profile := range []replay.Profile{replay.ProfileJobevent, replay.ProfileFlink} {
				st := fold(t, events[:k])
				st.SetProfile(profile)
				for _, ao := range dryRunOptions(rng, st) {
					for _, po := range []replay.PlanOptions{{}, {RecoveryDisabled: true}, {LogUnreadable: true}} {
						comparePlans(t, fmt.Sprintf("seed %d at %d, %v, %+v, %+v", seed, k, profile, ao, po), st, ao, po)
						plans++
					}
				}
			}
		}
	}
	t.Logf("%d plans compared", plans)
}

func comparePlans(t *testing.T, name string, st *replay.State, ao replay.AvailabilityOptions, po replay.PlanOptions) {
	t.Helper()
	got, err := replay.PlanDryRun(st, ao, po)
	a, werr := replay.BuildAvailability(st, ao)
	if err != nil || werr != nil {
		if err == nil || werr == nil || err.Error() != werr.Error() {
			t.Fatalf("%s: error %v, want %v", name, err, werr)
		}
		return
	}
	want := replay.PlanRecovery(st, a, po)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: plan\n%+v\nwant\n%+v", name, got, want)
	}
	if !reflect.DeepEqual(got.Kept(), want.Kept()) || !reflect.DeepEqual(got.Resets(), want.Resets()) ||
		!reflect.DeepEqual(got.Deferred(), want.Deferred()) {
		t.Fatalf("%s: kept, resets or deferred differ", name)
	}
	checkKept(t, name, st, got)
	checkStreamedJSON(t, name, st, ao, po, got)
}

// checkStreamedJSON compares the JSON DryRun.WriteJSON writes row by row
// with WritePlanJSON's of the plan laid out, byte for byte, with and
// without vertex names.
func checkStreamedJSON(t *testing.T, name string, st *replay.State, ao replay.AvailabilityOptions, po replay.PlanOptions, plan *replay.RecoveryPlan) {
	t.Helper()
	names := map[string]string{}
	for k, v := range st.Graph().Vertices {
		if k%2 == 0 {
			names[v.ID] = "Source: " + v.ID + " -> <map>"
		}
	}
	for _, names := range []map[string]string{nil, names} {
		d, err := replay.DecideDryRun(st, ao, po)
		if err != nil {
			t.Fatalf("%s: DecideDryRun: %v", name, err)
		}
		var streamed, laid bytes.Buffer
		if err := d.WriteJSON(&streamed, names); err != nil {
			t.Fatal(err)
		}
		if err := replay.WritePlanJSON(&laid, plan, names); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(streamed.Bytes(), laid.Bytes()) {
			t.Fatalf("%s: streamed JSON\n%s\nwant\n%s", name, streamed.Bytes(), laid.Bytes())
		}
		if !reflect.DeepEqual(d.Plan(), plan) {
			t.Fatalf("%s: DryRun.Plan after WriteJSON differs from PlanDryRun's", name)
		}
	}
}

// checkKept compares the kept subtasks of plan with the keep rows and the
// finished map of st: each is a keep row, in row order, with the attempt,
// worker and partitions of its finished entry.
func checkKept(t *testing.T, name string, st *replay.State, plan *replay.RecoveryPlan) {
	t.Helper()
	finished := map[format.SubtaskRef]replay.FinishedEntry{}
	for _, f := range st.Finished() {
		finished[f.SubtaskRef] = f
	}
	var want []replay.KeptSubtask
	for _, row := range plan.Subtasks {
		if row.Decision == replay.DecisionKeep {
			ref := format.SubtaskRef{Vertex: row.Vertex, Subtask: row.Subtask}
			f := finished[ref]
			want = append(want, replay.KeptSubtask{SubtaskRef: ref, Attempt: f.Attempt, Worker: f.Worker, Partitions: f.Partitions})
		}
	}
	if got := plan.Kept(); len(got) != 0 || len(want) != 0 {
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: Kept() = %+v, want %+v", name, got, want)
		}
	}
}

// dryRunOptions are the what-if options of one comparison: none, lost
// workers (one that names nothing), lost partitions (one out of range),
// both, no workers, an available list, and the two refused combinations.
func dryRunOptions(rng *rand.Rand, st *replay.State) []replay.AvailabilityOptions {
	var lost []format.SubtaskRef
	for _, f := range st.Finished() {
		if rng.Intn(4) == 0 {
			lost = append(lost, f.SubtaskRef)
		}
	}
	var avail []replay.PartitionLoc
	for _, p := range st.Partitions() {
		if rng.Intn(3) != 0 {
			avail = append(avail, p)
		}
	}
	if avail == nil {
		avail = []replay.PartitionLoc{}
	}
	first := ""
	if g := st.Graph(); g != nil && len(g.Vertices) > 0 {
		first = g.Vertices[0].ID
		lost = append(lost, format.SubtaskRef{Vertex: first, Subtask: 1 << 20})
	}
	opts := []replay.AvailabilityOptions{
		{},
		{LostWorkers: []string{"w1"}},
		{LostWorkers: []string{"w2", "nobody", ""}},
		{LostPartitions: lost},
		{LostWorkers: []string{"w3"}, LostPartitions: lost},
		{NoWorkers: true},
		{NoWorkers: true, LostWorkers: []string{"w1"}},
		{Available: avail},
		{Available: avail, LostWorkers: []string{"w1"}, LostPartitions: lost},
		{Available: []replay.PartitionLoc{}},
		{NoWorkers: true, Available: avail},
		{LostPartitions: []format.SubtaskRef{{Vertex: "no such vertex"}}},
	}
	return opts
}

// TestPlanDryRun_Errors: the refused options are refused as
// BuildAvailability refuses them.
func TestPlanDryRun_Errors(t *testing.T) {
	st := fold(t, loggen.Events(loggen.Options{Seed: 1}))
	if _, err := replay.PlanDryRun(st, replay.AvailabilityOptions{NoWorkers: true, Available: []replay.PartitionLoc{}}, replay.PlanOptions{}); !errors.Is(err, replay.ErrNoWorkersAndAvailable) {
		t.Fatalf("error = %v, want %v", err, replay.ErrNoWorkersAndAvailable)
	}
	lost := replay.AvailabilityOptions{LostPartitions: []format.SubtaskRef{{Vertex: "nope"}}}
	if _, err := replay.PlanDryRun(st, lost, replay.PlanOptions{}); !errors.Is(err, replay.ErrUnknownVertex) {
		t.Fatalf("error = %v, want %v", err, replay.ErrUnknownVertex)
	}
}

// TestAvailabilityOptions_UnmatchedWorkers compares the lost workers that
// Unmatched reports with the workers of the finished entries.
func TestAvailabilityOptions_UnmatchedWorkers(t *testing.T) {
	for seed := int64(1); seed <= 20; seed++ {
		st := fold(t, loggen.Events(randomOptions(seed)))
		held := map[string]bool{}
		for _, f := range st.Finished() {
			held[f.Worker] = true
		}
		o := replay.AvailabilityOptions{LostWorkers: []string{"w1", "w2", "w3", "w4", "w9", "nobody", ""}}
		var want []string
		for _, w := range o.LostWorkers {
			if !held[w] {
				want = append(want, w)
			}
		}
		var got []string
		for _, u := range o.Unmatched(st) {
			got = append(got, u.Value)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: unmatched workers %q, want %q", seed, got, want)
		}
	}
}

// TestPlanFields: a state folded from events projected on PlanFields
// plans as the state of the whole events does, for every kind of what-if
// option, both profiles and every plan option.
func TestPlanFields(t *testing.T) {
	for seed := int64(1); seed <= 40; seed++ {
		o := randomOptions(seed)
		if seed%10 == 0 {
			o = loggen.BenchOptions(seed, 400, 3000)
		}
		events := loggen.Events(o)
		projected := make([]format.Event, len(events))
		for k := range events {
			projected[k] = events[k].Project(replay.PlanFields)
		}
		rng := rand.New(rand.NewSource(seed))
		for _, profile := range []replay.Profile{replay.ProfileJobevent, replay.ProfileFlink} {
			full, proj := fold(t, events), fold(t, projected)
			full.SetProfile(profile)
			proj.SetProfile(profile)
			for _, ao := range dryRunOptions(rng, full) {
				for _, po := range []replay.PlanOptions{{}, {RecoveryDisabled: true}, {LogUnreadable: true}} {
					want, werr := replay.PlanDryRun(full, ao, po)
					got, err := replay.PlanDryRun(proj, ao, po)
					if (err == nil) != (werr == nil) {
						t.Fatalf("seed %d %v %+v: error %v, want %v", seed, profile, ao, err, werr)
					}
					if err == nil && (!reflect.DeepEqual(got, want) || !reflect.DeepEqual(got.Kept(), want.Kept())) {
						t.Fatalf("seed %d %v %+v %+v: the plan of the projected log differs", seed, profile, ao, po)
					}
				}
			}
		}
	}
}

// TestDryRun_WriteJSONHoldsNoRows: DryRun.WriteJSON writes a plan's rows
// as it decides them, so the bytes it allocates do not grow with the job:
// laying out 400,000 more rows takes 72 bytes each (29 MB), and writing
// them row by row takes nothing more than the write buffers and the
// vertices.
func TestDryRun_WriteJSONHoldsNoRows(t *testing.T) {
	allocs := func(p int32) uint64 {
		d := wideDryRun(t, p)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if err := d.WriteJSON(io.Discard, nil); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		if got := len(d.Plan().Subtasks); got != 2*int(p)+4 {
			t.Errorf("plan rows = %d, want %d", got, 2*p+4)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := allocs(100_000), allocs(300_000)
	if large > small+1<<20 {
		t.Errorf("WriteJSON of 200,004 rows allocated %d bytes, of 600,004 rows %d: want at most 1 MiB more", small, large)
	}
}

// wideEvents returns the log of a wide job just started: a source and a
// map of p subtasks each, and a sink of 4, none of them run yet.
func wideEvents(p int32) []format.Event {
	return []format.Event{
		{Seq: 1, Epoch: 1, Kind: format.KindJobSubmitted, Job: "j", Graph: wideGraph(p)},
		{Seq: 2, Epoch: 1, Kind: format.KindMasterStarted, Master: "m"},
		{Seq: 3, Epoch: 1, Kind: format.KindVertexInitialized, Vertex: "source", Parallelism: p},
		{Seq: 4, Epoch: 1, Kind: format.KindVertexInitialized, Vertex: "map", Parallelism: p},
		{Seq: 5, Epoch: 1, Kind: format.KindVertexInitialized, Vertex: "sink", Parallelism: 4},
	}
}

// wideDryRun decides the dry run of wideEvents(p).
func wideDryRun(t *testing.T, p int32) *replay.DryRun {
	t.Helper()
	d, err := replay.DecideDryRun(fold(t, wideEvents(p)), replay.AvailabilityOptions{}, replay.PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// checkStreamed requires d's streamed JSON, at least min bytes of it, to
// be the bytes WritePlanJSON writes for the plan laid out, and returns
// the plan.
func checkStreamed(t *testing.T, d *replay.DryRun, min int) *replay.RecoveryPlan {
	t.Helper()
	var streamed, laid bytes.Buffer
	if err := d.WriteJSON(&streamed, nil); err != nil {
		t.Fatal(err)
	}
	plan := d.Plan()
	if err := replay.WritePlanJSON(&laid, plan, nil); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(streamed.Bytes(), laid.Bytes()) {
		t.Fatalf("streamed JSON (%d bytes) differs from the laid-out plan's (%d bytes)", streamed.Len(), laid.Len())
	}
	if streamed.Len() < min {
		t.Fatalf("the plan's JSON is %d bytes, want at least %d: too small to need several buffers", streamed.Len(), min)
	}
	return plan
}

// TestDryRun_WriteJSONAhead: a plan's JSON of many write buffers is
// written out of each while the next is filled: the bytes are still
// those of WritePlanJSON, in order, and the first write error ends the
// writing and is what the write returns.
func TestDryRun_WriteJSONAhead(t *testing.T) {
	d := wideDryRun(t, 20_000)
	checkStreamed(t, d, 1<<20)
	// A job that ended shows the subtasks of its finished map alone: the
	// source's blocks of rows are empty, and the map's first rows are
	// far into one of its blocks.
	events := wideEvents(20_000)
	for i := int32(5000); i < 5100; i++ {
		events = append(events, format.Event{Kind: format.KindSubtaskFinished, Vertex: "map", Subtask: i, Worker: "w"})
	}
	events = append(events,
		format.Event{Kind: format.KindSubtaskFinished, Vertex: "map", Subtask: 15_000, Worker: "w"},
		format.Event{Kind: format.KindSubtaskFinished, Vertex: "sink", Subtask: 3, Worker: "w"},
		format.Event{Kind: format.KindJobFinished, Status: format.StatusFailed})
	for k := range events {
		events[k].Seq, events[k].Epoch = int64(k+1), 1
	}
	ended, err := replay.DecideDryRun(fold(t, events), replay.AvailabilityOptions{}, replay.PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rows := checkStreamed(t, ended, 0).Summary; rows.Keep != 102 || rows.Rerun+rows.Run != 0 {
		t.Fatalf("the ended job's plan has %+v, want 102 kept rows alone", rows)
	}
	for _, writes := range []int{0, 1, 5} {
		w := &failingWriter{ok: writes}
		err := replay.WritePlanJSON(w, d.Plan(), nil)
		if !errors.Is(err, errWriterFull) {
			t.Errorf("after %d writes: error %v, want %v", writes, err, errWriterFull)
		}
		if w.calls != writes+1 {
			t.Errorf("after %d writes and an error: %d calls to Write, want %d", writes, w.calls, writes+1)
		}
	}
}

var errWriterFull = errors.New("writer full")

// failingWriter takes ok writes, then fails every one.
type failingWriter struct {
	ok, calls int
}

func (w *failingWriter) Write(b []byte) (int, error) {
	if w.calls++; w.calls > w.ok {
		return 0, errWriterFull
	}
	return len(b), nil
}
