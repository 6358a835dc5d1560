package runtime

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"testing"

	"github.com/jobevent/jobevent/internal/testenv"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// crashPoint returns the seq of the first subtask_finished of vertex in a
// clean log, and a subtask of consumer not finished by then.
func crashPoint(t *testing.T, events []format.Event, vertex, consumer string) (int64, int32) {
	t.Helper()
	finished := map[int32]bool{}
	var at int64
	for _, e := range events {
		if e.Kind == format.KindSubtaskFinished && e.Vertex == vertex && at == 0 {
			at = e.Seq
		}
		if at > 0 && e.Seq <= at && e.Kind == format.KindSubtaskFinished && e.Vertex == consumer {
			finished[e.Subtask] = true
		}
	}
	for i := int32(0); ; i++ {
		if !finished[i] {
			return at, i
		}
	}
}

// resetsOf returns the subtasks of the subtasks_reset events with reason.
func resetsOf(events []format.Event, reason string) []string {
	var out []string
	for _, e := range events {
		if e.Kind == format.KindSubtasksReset && e.Reason == reason {
			for _, r := range e.Subtasks {
				out = append(out, r.String())
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestRecovery_PartitionNotFoundAfterRecovery loses a source partition
// after a recovering master kept it: the consumer reports
// partition-not-found. A batch_snapshot source reruns only the producer;
// a fully finished no_batch_snapshot source is deferred and reruns whole
// (docs/recovery.md, step 3).
func TestRecovery_PartitionNotFoundAfterRecovery(t *testing.T) {
	t.Parallel()
	cases := []struct {
		job, source, consumer string
		wholeSource           bool
	}{
		{"wordcount.yaml", "source", "tokenize", false},
		{"legacy-source.yaml", "source", "tokenize", true},
	}
	for _, c := range cases {
		t.Run(c.job, func(t *testing.T) {
			want, clean := cleanRun(t, c.job, 3)
			at, j := crashPoint(t, clean, c.consumer, c.consumer)
			dir := jobDir(t)
			opts := Options{Dir: dir, Seeded: true, Seed: 3, CrashAfterSeq: at}
			_, err := Run(testenv.Context(t), loadJob(t, c.job), opts)
			var crash *CrashError
			if !errors.As(err, &crash) {
				t.Fatalf("crash run: %v", err)
			}
			lostID := partID{Vertex: c.source, Subtask: j, Attempt: 0, Consumer: c.consumer}
			opts.CrashAfterSeq, opts.Resume = 0, true
			opts.onNet = func(n *localNet) { n.Lose(lostID) }
			opts.Settings = func(s *Settings) { s.RestartDelay = 0 }
			sum, err := Run(testenv.Context(t), loadJob(t, c.job), opts)
			if err != nil {
				t.Fatalf("resume: %v", err)
			}
			events := readLog(t, sum.Log)
			got := resetsOf(events, ReasonPartitionNotFound)
			if len(got) == 0 {
				t.Fatalf("no partition_not_found reset after losing %s", partString(lostID))
			}
			hasAll := true
			for i := 0; i < 3; i++ {
				found := false
				for _, r := range got {
					if r == fmt.Sprintf("%s/%d", c.source, i) {
						found = true
					}
				}
				hasAll = hasAll && found
			}
			if hasAll != c.wholeSource {
				t.Fatalf("partition_not_found resets %v: whole source reset = %v, want %v", got, hasAll, c.wholeSource)
			}
			if !reflect.DeepEqual(readOutput(t, dir, sum.Job), want) {
				t.Fatal("output differs from the clean run")
			}
		})
	}
}

// TestRecovery_NoBatchSnapshotUnfinished crashes while a no_batch_snapshot
// source runs: the plan reruns all its subtasks, finished ones included,
// and the resumed master starts exactly those.
func TestRecovery_NoBatchSnapshotUnfinished(t *testing.T) {
	t.Parallel()
	want, clean := cleanRun(t, "legacy-source.yaml", 5)
	at, _ := crashPoint(t, clean, "source", "source")
	dir := jobDir(t)
	opts := Options{Dir: dir, Seeded: true, Seed: 5, CrashAfterSeq: at}
	sum, err := Run(testenv.Context(t), loadJob(t, "legacy-source.yaml"), opts)
	var crash *CrashError
	if !errors.As(err, &crash) {
		t.Fatalf("crash run: %v", err)
	}
	plan := planOfLog(t, sum.Log)
	for _, s := range plan.Subtasks {
		if s.Vertex != "source" {
			continue
		}
		if s.Decision == replay.DecisionKeep {
			t.Fatalf("plan keeps %s/%d of a no_batch_snapshot source that had not finished", s.Vertex, s.Subtask)
		}
		if s.Decision == replay.DecisionRerun && !contains(s.Reasons, replay.ReasonCoordinatorWithoutBatchSnapshot) && !contains(s.Reasons, replay.ReasonRunningAtFailover) {
			t.Fatalf("rerun %s/%d reasons %v", s.Vertex, s.Subtask, s.Reasons)
		}
	}
	opts.CrashAfterSeq, opts.Resume = 0, true
	sum, err = Run(testenv.Context(t), loadJob(t, "legacy-source.yaml"), opts)
	if err != nil {
		t.Fatal(err)
	}
	events := readLog(t, sum.Log)
	var sources []string
	for _, s := range startedIn(events, 2) {
		if len(s) > 7 && s[:7] == "source/" {
			sources = append(sources, s)
		}
	}
	if len(sources) != 3 {
		t.Fatalf("epoch 2 started source subtasks %v, want all 3", sources)
	}
	if !reflect.DeepEqual(readOutput(t, dir, sum.Job), want) {
		t.Fatal("output differs from the clean run")
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
