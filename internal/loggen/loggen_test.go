package loggen_test

import (
	"reflect"
	"testing"

	"github.com/jobevent/jobevent/internal/loggen"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// TestJob_Deterministic: the same options give the same log.
func TestJob_Deterministic(t *testing.T) {
	o := loggen.Options{Seed: 7, Vertices: 6, FailureRate: 0.2, PartitionLossRate: 0.05, Failovers: 2, AutoFraction: 0.5}
	a, b := loggen.Events(o), loggen.Events(o)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two generators with the same options differ")
	}
	o.Seed = 8
	if reflect.DeepEqual(a, loggen.Events(o)) {
		t.Fatal("another seed gives the same log")
	}
}

// TestJob_RunsToTheEnd: a job without a stop runs to job_finished, every
// subtask finished, and the log is well-formed.
func TestJob_RunsToTheEnd(t *testing.T) {
	g := loggen.Job(loggen.Options{Seed: 3, Vertices: 7, Sources: 2, FailureRate: 0.1, SnapshotEvery: 1})
	events := g.Rest()
	last := events[len(events)-1]
	if last.Kind != format.KindJobFinished || last.Status != format.StatusFinished {
		t.Fatalf("last event = %+v, want job_finished", last)
	}
	plan := replay.Plan(g.State(), replay.AllRecorded(g.State()))
	if plan.Summary.Rerun+plan.Summary.Run != 0 || len(plan.Vertices) != 7 {
		t.Fatalf("plan of the finished job = %+v", plan.Summary)
	}
	if fs := replay.Validate(&replay.SliceSource{Events: events}, replay.ValidateOptions{}); len(fs) != 0 {
		t.Fatalf("findings: %v", fs)
	}
}

// TestJob_Failover: each failover is a master_started of the next epoch,
// recovering, followed by the resets of replay.Plan on the log so far.
func TestJob_Failover(t *testing.T) {
	o := loggen.Options{Seed: 5, Vertices: 6, MaxParallelism: 8, FailureRate: 0.1, FailoverAt: []int64{20, 45}}
	events := loggen.Events(o)
	st := replay.NewState()
	epochs := 0
	for i := range events {
		e := &events[i]
		if e.Kind == format.KindMasterStarted && e.Recovering {
			epochs++
			if e.Epoch != int32(epochs+1) {
				t.Fatalf("seq %d: master_started of epoch %d, want %d", e.Seq, e.Epoch, epochs+1)
			}
			want := replay.Plan(st, replay.AllRecorded(st)).Resets()
			var got []format.SubtaskRef
			if next := events[i+1]; next.Kind == format.KindSubtasksReset && next.Reason == format.ReasonRecovery {
				got = next.Subtasks
			}
			if !reflect.DeepEqual(got, want) && len(got)+len(want) > 0 {
				t.Fatalf("seq %d: recovery resets %v, the plan's %v", e.Seq, got, want)
			}
		}
		if err := st.Apply(e); err != nil {
			t.Fatal(err)
		}
	}
	if epochs != 2 {
		t.Fatalf("%d failovers in %d events, want 2", epochs, len(events))
	}
	if fs := replay.Validate(&replay.SliceSource{Events: events}, replay.ValidateOptions{}); len(fs) != 0 {
		t.Fatalf("findings: %v", fs)
	}
}

// TestJob_StopAfter ends the log mid-job.
func TestJob_StopAfter(t *testing.T) {
	events := loggen.Events(loggen.Options{Seed: 1, Vertices: 8, MaxParallelism: 20, StopAfter: 50})
	if len(events) != 50 || events[49].Seq != 50 || events[49].Kind == format.KindJobFinished {
		t.Fatalf("%d events, last %+v; want 50, no job_finished", len(events), events[len(events)-1])
	}
}

// TestJob_Graph uses the graph it is given.
func TestJob_Graph(t *testing.T) {
	o := loggen.BenchOptions(1, 40, 0)
	g := loggen.Job(o)
	events := g.Rest()
	if !reflect.DeepEqual(events[0].Graph, o.Graph) || g.Graph() != o.Graph {
		t.Fatal("job_submitted does not hold the graph given")
	}
	if p, ok := g.State().Parallelism("sink"); !ok || p != 4 {
		t.Fatalf("sink parallelism = %d, %v; want 4", p, ok)
	}
}
