package drill

import (
	"errors"
	"io"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/internal/loggen"
	"github.com/jobevent/jobevent/internal/testlog"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// planOf folds events and plans with the availability o describes.
func planOf(t *testing.T, events []format.Event, o replay.AvailabilityOptions) *dryRun {
	t.Helper()
	st, err := replay.Fold(&replay.SliceSource{Events: events}, 0)
	if err != nil {
		t.Fatal(err)
	}
	dry := &dryRun{state: st, events: events}
	a, err := replay.BuildAvailability(st, o)
	if err != nil {
		t.Fatal(err)
	}
	dry.avail, dry.plan = a, replay.PlanRecovery(st, a, dry.opts)
	return dry
}

// availabilities are the partition sets the checks are run with: every
// recorded partition, none, and each worker lost.
func availabilities(st *replay.State) []replay.AvailabilityOptions {
	out := []replay.AvailabilityOptions{{}, {NoWorkers: true}}
	seen := map[string]bool{}
	for _, p := range st.Partitions() {
		if !seen[p.Worker] {
			seen[p.Worker] = true
			out = append(out, replay.AvailabilityOptions{LostWorkers: []string{p.Worker}})
		}
	}
	return out
}

// TestCheckPlan_ReplayCorpus: replay.Plan's reasons are true of the log
// of every scenario of testdata/replay, at every prefix, with every
// partition, none, and each worker lost.
func TestCheckPlan_ReplayCorpus(t *testing.T) {
	t.Parallel()
	scenarios, err := filepath.Glob(filepath.Join(repoRoot, "testdata", "replay", "*.txt"))
	if err != nil || len(scenarios) == 0 {
		t.Fatalf("no replay scenarios: %v", err)
	}
	for _, path := range scenarios {
		name := strings.TrimSuffix(filepath.Base(path), ".txt")
		t.Run(name, func(t *testing.T) {
			events := testlog.ReadScenario(t, path)
			for k := 1; k <= len(events); k++ {
				st, _ := replay.Fold(&replay.SliceSource{Events: events[:k]}, 0)
				for _, o := range availabilities(st) {
					if diffs := checkPlan(planOf(t, events[:k], o)); len(diffs) > 0 {
						t.Fatalf("seq %d, %+v:\n  %s", events[k-1].Seq, o, strings.Join(diffs, "\n  "))
					}
				}
			}
		})
	}
}

// TestCheckPlan_GeneratedLogs does the same over generated logs with
// failures, partition losses, failovers and both source coordinator
// kinds.
func TestCheckPlan_GeneratedLogs(t *testing.T) {
	t.Parallel()
	seen := map[string]int{}
	for seed := int64(1); seed <= 30; seed++ {
		g := loggen.Job(loggen.Options{
			Seed: seed, Vertices: 6, Sources: 2, MaxParallelism: 4, AutoFraction: 0.3,
			FailureRate: 0.15, PartitionLossRate: 0.05, Failovers: 2, LoseWorkerOnFailover: seed%2 == 0,
		})
		var events []format.Event
		for {
			e, err := g.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			events = append(events, e)
		}
		rng := rand.New(rand.NewSource(seed))
		for n := 0; n < 12; n++ {
			k := 1 + rng.Intn(len(events))
			st, _ := replay.Fold(&replay.SliceSource{Events: events[:k]}, 0)
			for _, o := range availabilities(st) {
				dry := planOf(t, events[:k], o)
				if diffs := checkPlan(dry); len(diffs) > 0 {
					t.Fatalf("seed %d, seq %d, %+v:\n  %s", seed, events[k-1].Seq, o, strings.Join(diffs, "\n  "))
				}
				for _, r := range dry.plan.Subtasks {
					for _, reason := range r.Reasons {
						seen[reason]++
					}
				}
			}
		}
	}
	for _, reason := range []string{replay.ReasonRunningAtFailover, replay.ReasonFinishedAfterLastSnapshot,
		replay.ReasonCoordinatorWithoutBatchSnapshot, replay.ReasonPartitionLost, replay.ReasonDownstreamOfReset} {
		if seen[reason] == 0 {
			t.Errorf("no generated plan gave %s: the check of it is untested", reason)
		}
	}
	t.Logf("reasons checked: %v", seen)
}

// TestCheckPlan_Disagreements: each kind of wrong row is reported.
func TestCheckPlan_Disagreements(t *testing.T) {
	t.Parallel()
	events := testlog.ReadScenario(t, filepath.Join(repoRoot, "testdata", "replay", "lost-worker.txt"))
	dry := planOf(t, events, replay.AvailabilityOptions{LostWorkers: []string{"w1"}})
	if diffs := checkPlan(dry); len(diffs) > 0 {
		t.Fatalf("replay.Plan: %q, want no disagreement", diffs)
	}
	for _, tc := range []struct {
		name string
		edit func(r *replay.SubtaskPlan) bool
		want string
	}{
		{"reason dropped", func(r *replay.SubtaskPlan) bool {
			if r.Decision != replay.DecisionRerun {
				return false
			}
			r.Reasons = r.Reasons[1:]
			return true
		}, "the log shows"},
		{"reason added", func(r *replay.SubtaskPlan) bool {
			if r.Decision != replay.DecisionRerun {
				return false
			}
			r.Reasons = append(r.Reasons, replay.ReasonCoordinatorWithoutBatchSnapshot)
			return true
		}, "the log shows"},
		{"wrong attempt", func(r *replay.SubtaskPlan) bool {
			if r.Decision != replay.DecisionRerun {
				return false
			}
			r.Attempt++
			return true
		}, "the log's last attempt"},
		{"keep of a subtask that was running", func(r *replay.SubtaskPlan) bool {
			if r.Decision != replay.DecisionRerun || r.Reasons[0] != replay.ReasonRunningAtFailover {
				return false
			}
			r.Decision, r.Reasons = replay.DecisionKeep, []string{}
			return true
		}, "no finished attempt"},
		{"run of a subtask that started", func(r *replay.SubtaskPlan) bool {
			if r.Decision != replay.DecisionRerun {
				return false
			}
			r.Decision, r.Reasons = replay.DecisionRun, []string{}
			return true
		}, "never started"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := *dry
			bad.plan = copyPlan(dry.plan)
			edited := false
			for i := range bad.plan.Subtasks {
				if edited = tc.edit(&bad.plan.Subtasks[i]); edited {
					break
				}
			}
			if !edited {
				t.Fatal("no row to edit")
			}
			diffs := checkPlan(&bad)
			if len(diffs) == 0 || !strings.Contains(strings.Join(diffs, "\n"), tc.want) {
				t.Fatalf("disagreements = %q, want one saying %q", diffs, tc.want)
			}
		})
	}
}
