package replay_test

import (
	"math/rand"
	"reflect"
	"testing"

	"github.com/jobevent/jobevent/internal/loggen"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// randomOptions draws the options of a small generated job.
func randomOptions(seed int64) loggen.Options {
	rng := rand.New(rand.NewSource(seed))
	return loggen.Options{
		Seed: seed, Vertices: 2 + rng.Intn(6), Sources: 1 + rng.Intn(2), MaxParallelism: int32(1 + rng.Intn(6)),
		AutoFraction: rng.Float64() / 2, FailureRate: rng.Float64() / 4, PartitionLossRate: rng.Float64() / 10,
		SnapshotEvery: rng.Intn(4), Failovers: rng.Intn(3), LoseWorkerOnFailover: rng.Intn(2) == 0,
	}
}

// randomAvailability draws A for a failover: everything, nothing, a lost
// worker, or each partition lost with some probability.
func randomAvailability(t *testing.T, rng *rand.Rand, st *replay.State) replay.Availability {
	t.Helper()
	var o replay.AvailabilityOptions
	switch rng.Intn(4) {
	case 0:
	case 1:
		o.NoWorkers = rng.Intn(3) == 0
		o.LostWorkers = []string{"w1"}
	case 2:
		for _, p := range st.Partitions() {
			if rng.Intn(3) != 0 {
				o.Available = append(o.Available, p)
			}
		}
		if o.Available == nil {
			o.Available = []replay.PartitionLoc{}
		}
	case 3:
		for _, f := range st.Finished() {
			if rng.Intn(4) == 0 {
				o.LostPartitions = append(o.LostPartitions, f.SubtaskRef)
			}
		}
	}
	a, err := replay.BuildAvailability(st, o)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestPlan_MatchesReference plans failovers at random points of random
// generated logs, with random surviving partitions, and compares every
// decision, attempt and reason with the reference implementation; it also
// checks the sanity properties of docs/recovery.md on each plan.
func TestPlan_MatchesReference(t *testing.T) {
	plans := 0
	seen := map[string]int{}
	for seed := int64(1); seed <= 150; seed++ {
		events := loggen.Events(randomOptions(seed))
		rng := rand.New(rand.NewSource(seed))
		for cut := 0; cut < 6; cut++ {
			k := len(events)
			if cut > 0 {
				k = 2 + rng.Intn(len(events)-1)
			}
			st := fold(t, events[:k])
			avail := randomAvailability(t, rng, st)
			plan := replay.Plan(st, avail)
			checkInvariants(t, st, avail, plan)
			want := refPlan(refFold(events[:k]), avail)
			if len(want) != len(plan.Subtasks) {
				t.Fatalf("seed %d at %d: %d rows, reference %d", seed, k, len(plan.Subtasks), len(want))
			}
			for _, row := range plan.Subtasks {
				seen[string(row.Decision)]++
				for _, r := range row.Reasons {
					seen[r]++
				}
				w := want[format.SubtaskRef{Vertex: row.Vertex, Subtask: row.Subtask}]
				if !reflect.DeepEqual(row, w) {
					t.Fatalf("seed %d at seq %d: %s/%d = %+v, reference %+v", seed, k, row.Vertex, row.Subtask, row, w)
				}
			}
			plans++
		}
	}
	t.Logf("%d plans agree with the reference; decisions and reasons seen: %v", plans, seen)
	for _, r := range []string{"keep", "rerun", "run", replay.ReasonRunningAtFailover, replay.ReasonFinishedAfterLastSnapshot,
		replay.ReasonCoordinatorWithoutBatchSnapshot, replay.ReasonPartitionLost, replay.ReasonDownstreamOfReset} {
		if seen[r] < 20 {
			t.Errorf("%s seen %d times: the generated cases do not exercise it", r, seen[r])
		}
	}
}

// TestPlan_AllAvailableKeepsFinished: with every partition available and a
// snapshot after every finish, every finished subtask is kept except those
// step 3 resets (a no_batch_snapshot vertex not fully finished, and what
// closes over it).
func TestPlan_AllAvailableKeepsFinished(t *testing.T) {
	checked := 0
	for seed := int64(1); seed <= 100; seed++ {
		o := randomOptions(seed)
		o.SnapshotEvery, o.LoseWorkerOnFailover = 1, false
		events := loggen.Events(o)
		rng := rand.New(rand.NewSource(seed))
		for cut := 0; cut < 5; cut++ {
			k := 2 + rng.Intn(len(events)-1)
			st := fold(t, events[:k])
			if !snapshotAfterEveryFinish(st) {
				continue // cut between a finish and its snapshot
			}
			plan := replay.Plan(st, replay.AllRecorded(st))
			step3 := step3Resets(st)
			for _, f := range st.Finished() {
				got := decision(plan, f.SubtaskRef)
				if want := replay.DecisionKeep; step3[f.SubtaskRef] {
					want = replay.DecisionRerun
					if got != want {
						t.Fatalf("seed %d at %d: %s = %s, want %s (reset by step 3)", seed, k, f.SubtaskRef, got, want)
					}
				} else if got != want {
					t.Fatalf("seed %d at %d: %s = %s, want %s", seed, k, f.SubtaskRef, got, want)
				}
			}
			checked++
		}
	}
	if checked < 100 {
		t.Fatalf("only %d states checked", checked)
	}
}

func snapshotAfterEveryFinish(st *replay.State) bool {
	for _, f := range st.Finished() {
		if st.Graph().Vertex(f.Vertex).Coordinator == format.CoordinatorBatchSnapshot && st.SnapshotSeq() < f.Seq {
			return false
		}
	}
	return true
}

func decision(plan *replay.RecoveryPlan, r format.SubtaskRef) replay.Decision {
	for _, row := range plan.Subtasks {
		if row.Vertex == r.Vertex && row.Subtask == r.Subtask {
			return row.Decision
		}
	}
	return ""
}

// step3Resets is what step 3 resets: the subtasks of no_batch_snapshot
// vertices not fully finished, closed over the finished consumers of
// everything that runs, and over deferred vertices.
func step3Resets(st *replay.State) map[format.SubtaskRef]bool {
	g := st.Graph()
	finished := map[format.SubtaskRef]bool{}
	for _, f := range st.Finished() {
		finished[f.SubtaskRef] = true
	}
	runs := map[format.SubtaskRef]bool{}
	for _, v := range g.Vertices {
		p, _ := st.Parallelism(v.ID)
		n := int32(0)
		for i := int32(0); i < p; i++ {
			if finished[format.SubtaskRef{Vertex: v.ID, Subtask: i}] {
				n++
			}
		}
		for i := int32(0); i < p; i++ {
			r := format.SubtaskRef{Vertex: v.ID, Subtask: i}
			if !finished[r] || (v.Coordinator == format.CoordinatorNoBatchSnapshot && n < p) {
				runs[r] = true
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for _, e := range g.Edges {
			m, _ := st.Parallelism(e.From)
			n, _ := st.Parallelism(e.To)
			for i := int32(0); i < m; i++ {
				for j := int32(0); j < n; j++ {
					c := format.SubtaskRef{Vertex: e.To, Subtask: j}
					if runs[format.SubtaskRef{Vertex: e.From, Subtask: i}] && reads(e.Pattern, i, m, j, n) && !runs[c] {
						runs[c], changed = true, true
					}
				}
			}
		}
		for _, v := range g.Vertices {
			p, _ := st.Parallelism(v.ID)
			any := false
			for i := int32(0); i < p; i++ {
				any = any || runs[format.SubtaskRef{Vertex: v.ID, Subtask: i}]
			}
			for i := int32(0); any && v.Coordinator == format.CoordinatorNoBatchSnapshot && i < p; i++ {
				if r := (format.SubtaskRef{Vertex: v.ID, Subtask: i}); !runs[r] {
					runs[r], changed = true, true
				}
			}
		}
	}
	out := map[format.SubtaskRef]bool{}
	for r := range runs {
		if finished[r] {
			out[r] = true
		}
	}
	return out
}
