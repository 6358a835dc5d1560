package replay_test

import (
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// rows renders the subtasks of a plan as "vertex/i decision attempt [reasons]".
func rows(p *replay.RecoveryPlan) []string {
	var out []string
	for _, s := range p.Subtasks {
		out = append(out, fmt.Sprintf("%s/%d %s %d [%s]", s.Vertex, s.Subtask, s.Decision, s.Attempt, strings.Join(s.Reasons, ",")))
	}
	return out
}

// TestPlanRecovery_Disabled: with recovery switched off, every subtask
// that had started reruns with its next attempt, reason recovery_disabled
// first, and every entry of the finished map is a reset to log.
func TestPlanRecovery_Disabled(t *testing.T) {
	st := foldFile(t, "../../testdata/logs/running.jsonl", 0)
	plan := replay.PlanRecovery(st, replay.AllRecorded(st), replay.PlanOptions{RecoveryDisabled: true})
	if plan.FullRestart != replay.ReasonRecoveryDisabled || plan.Ended != "" {
		t.Fatalf("full restart %q, ended %q, want recovery_disabled", plan.FullRestart, plan.Ended)
	}
	want := []string{
		"source/0 rerun 1 [recovery_disabled]", "source/1 rerun 1 [recovery_disabled]", "source/2 rerun 1 [recovery_disabled]",
		"words/0 rerun 1 [recovery_disabled]", "words/1 rerun 1 [recovery_disabled]", "words/2 rerun 1 [recovery_disabled]",
		"count/0 rerun 1 [recovery_disabled]", "count/1 rerun 1 [recovery_disabled,running_at_failover]",
	}
	if got := rows(plan); !reflect.DeepEqual(got, want) {
		t.Fatalf("rows = %q, want %q", got, want)
	}
	if plan.Summary != (replay.Summary{Rerun: 8}) {
		t.Errorf("summary = %+v, want rerun 8", plan.Summary)
	}
	if got := len(plan.Resets()); got != 7 {
		t.Errorf("resets = %d, want the 7 finished entries", got)
	}
	if got := replay.Plan(st, replay.AllRecorded(st)).Summary; got.Keep != 7 {
		t.Errorf("Plan (the rule alone) keeps %d, want 7: the options must not leak into it", got.Keep)
	}
}

// TestPlanRecovery_Unreadable: a log the master cannot replay restarts
// everything it could read from attempt 0, logging no resets.
func TestPlanRecovery_Unreadable(t *testing.T) {
	st := foldFile(t, "../../testdata/logs/running.jsonl", 0)
	plan := replay.PlanRecovery(st, replay.AllRecorded(st), replay.PlanOptions{LogUnreadable: true, RecoveryDisabled: true})
	if plan.FullRestart != replay.ReasonRecoveryDisabled {
		t.Errorf("full restart %q, want recovery_disabled, the first reason", plan.FullRestart)
	}
	got := rows(plan)
	if len(got) != 8 || got[0] != "source/0 rerun 0 [recovery_disabled,log_unreadable]" ||
		got[7] != "count/1 rerun 0 [recovery_disabled,log_unreadable,running_at_failover]" {
		t.Fatalf("rows = %q, want every subtask rerun from attempt 0, reasons in plan order", got)
	}
	if n := len(plan.Resets()); n != 0 {
		t.Errorf("resets = %d, want none: the master starts from the graph alone", n)
	}
	// An unreadable log is restarted even if what was read ends the job.
	ended := foldFile(t, "../../testdata/logs/healthy.jsonl", 0)
	if p := replay.PlanRecovery(ended, nil, replay.PlanOptions{LogUnreadable: true}); p.Ended != "" || p.Summary.Rerun == 0 {
		t.Errorf("unreadable, ended: ended %q, summary %+v, want a full restart", p.Ended, p.Summary)
	}
}

// TestPlanRecovery_Ended: a job the log ends runs nothing, and the plan
// says how it ended, whatever the options.
func TestPlanRecovery_Ended(t *testing.T) {
	st := foldFile(t, "../../testdata/logs/healthy.jsonl", 0)
	for _, opts := range []replay.PlanOptions{{}, {RecoveryDisabled: true}} {
		plan := replay.PlanRecovery(st, replay.AllRecorded(st), opts)
		if plan.Ended != format.StatusFinished || len(plan.Subtasks) != 10 || plan.Summary != (replay.Summary{Keep: 10}) || len(plan.Vertices) != 4 {
			t.Errorf("%+v: ended %q, %d rows, summary %+v, %d vertices; want finished, every finished subtask kept, 4 vertices",
				opts, plan.Ended, len(plan.Subtasks), plan.Summary, len(plan.Vertices))
		}
	}
	// A failed job: the finished entries keep, the rest has no row.
	events := readEventsFile(t, "../../testdata/logs/running.jsonl")
	last := events[len(events)-1]
	events = append(events, format.Event{Seq: last.Seq + 1, Epoch: last.Epoch, Time: last.Time, Kind: format.KindJobFinished, Job: last.Job, Status: format.StatusFailed})
	failed, err := replay.Fold(&replay.SliceSource{Events: events}, 0)
	if err != nil {
		t.Fatal(err)
	}
	plan := replay.PlanRecovery(failed, replay.AllRecorded(failed), replay.PlanOptions{})
	if plan.Ended != format.StatusFailed || plan.Summary != (replay.Summary{Keep: 7}) || len(plan.Subtasks) != 7 {
		t.Errorf("failed job: ended %q, summary %+v, %d rows; want failed, keep 7, nothing runs", plan.Ended, plan.Summary, len(plan.Subtasks))
	}
}

// TestPlanRecovery_Default is Plan.
func TestPlanRecovery_Default(t *testing.T) {
	st := foldFile(t, "../../testdata/logs/running.jsonl", 0)
	a := replay.AllRecorded(st)
	if got, want := rows(replay.PlanRecovery(st, a, replay.PlanOptions{})), rows(replay.Plan(st, a)); !reflect.DeepEqual(got, want) {
		t.Fatalf("PlanRecovery = %q, want Plan's %q", got, want)
	}
}

// readEventsFile reads every event of a JSONL file.
func readEventsFile(t *testing.T, path string) []format.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []format.Event
	r := format.NewJSONReader(f)
	for {
		e, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
}

func TestAvailabilityOptions_Unmatched(t *testing.T) {
	st := foldFile(t, "../../testdata/logs/running.jsonl", 0)
	o := replay.AvailabilityOptions{
		LostWorkers:    []string{"w1", "w3"},
		LostPartitions: []format.SubtaskRef{{Vertex: "source", Subtask: 2}, {Vertex: "source", Subtask: 9}, {Vertex: "sink", Subtask: 7}},
		Available: []replay.PartitionLoc{
			{PartitionID: replay.PartitionID{Vertex: "words", Subtask: 0, Consumer: "count"}, Worker: "w1"},
			{PartitionID: replay.PartitionID{Vertex: "nope", Subtask: 0, Consumer: "count"}, Worker: "w1"},
			{PartitionID: replay.PartitionID{Vertex: "words", Subtask: 1, Consumer: "nope"}, Worker: "w1"},
		},
	}
	var got []string
	for _, u := range o.Unmatched(st) {
		got = append(got, u.Option+" "+u.Value)
	}
	want := []string{"LostWorkers w3", "LostPartitions source/9", "Available nope/0 attempt 0 for count on w1", "Available words/1 attempt 0 for nope on w1"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("unmatched = %q, want %q", got, want)
	}
}

func TestMostExposed(t *testing.T) {
	if _, ok := replay.MostExposed(nil); ok {
		t.Fatal("most exposed of no points: found")
	}
	pts := []replay.SweepPoint{
		{Seq: 1, Rerun: 9}, // most reruns, least work
		{Seq: 2, Rerun: 2, RerunSeconds: 3, RerunBytes: 10},    // most seconds
		{Seq: 3, Rerun: 3, RerunSeconds: 3, RerunBytes: 10},    // same work, more reruns
		{Seq: 4, Rerun: 3, RerunSeconds: 3, RerunBytes: 10},    // equal: the earliest wins
		{Seq: 5, Rerun: 1, RerunSeconds: 2.5, RerunBytes: 1e6}, // fewer seconds
	}
	if i, ok := replay.MostExposed(pts); !ok || pts[i].Seq != 3 {
		t.Fatalf("most exposed = seq %d, want 3", pts[i].Seq)
	}
}
