package replay_test

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/jobevent/jobevent/internal/loggen"
	"github.com/jobevent/jobevent/internal/testlog"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// wantPoint is the point Plan gives on the log folded up to seq.
func wantPoint(t *testing.T, events []format.Event, seq int64) replay.SweepPoint {
	t.Helper()
	st, err := replay.Fold(&replay.SliceSource{Events: events}, seq)
	if err != nil {
		t.Fatal(err)
	}
	plan := replay.Plan(st, replay.AllRecorded(st))
	bytes := make(map[format.SubtaskRef]int64)
	for _, f := range st.Finished() {
		bytes[f.SubtaskRef] = f.BytesOut
	}
	p := replay.SweepPoint{Seq: st.LastSeq(), Epoch: st.Epoch(),
		Keep: plan.Summary.Keep, Rerun: plan.Summary.Rerun, Run: plan.Summary.Run, Discarded: len(plan.Resets())}
	for _, r := range plan.Resets() {
		p.RerunBytes += bytes[r]
	}
	return p
}

func samePlanSummary(a, b replay.SweepPoint) bool {
	return a.Seq == b.Seq && a.Epoch == b.Epoch && a.Keep == b.Keep && a.Rerun == b.Rerun &&
		a.Run == b.Run && a.Discarded == b.Discarded && a.RerunBytes == b.RerunBytes
}

// TestSweep_MatchesPlan: a sweep of every event gives, at each seq, the
// summary of Plan on the log folded to that seq — the very same rule.
func TestSweep_MatchesPlan(t *testing.T) {
	logs := map[string][]format.Event{}
	for _, name := range []string{"healthy.jsonl", "failover.jsonl", "running.jsonl", "no-batch-snapshot.jsonl"} {
		logs[name] = testlog.Read(t, filepath.Join("../../testdata/logs", name))
	}
	logs["loggen-failovers"] = loggen.Events(loggen.Options{Seed: 3, Vertices: 6, FailureRate: 0.1,
		PartitionLossRate: 0.05, Failovers: 2, LoseWorkerOnFailover: true, Sources: 2})
	for name, events := range logs {
		t.Run(name, func(t *testing.T) {
			points, err := replay.Sweep(&replay.SliceSource{Events: events}, replay.SweepOptions{})
			if err != nil {
				t.Fatal(err)
			}
			st, _ := replay.Fold(&replay.SliceSource{Events: events}, 0)
			if int64(len(points)) != st.Events() {
				t.Fatalf("points = %d, want one per event applied (%d)", len(points), st.Events())
			}
			exposed := false
			for _, p := range points {
				if want := wantPoint(t, events, p.Seq); !samePlanSummary(p, want) {
					t.Fatalf("point at seq %d = %+v, want %+v", p.Seq, p, want)
				}
				exposed = exposed || p.Rerun > 0
			}
			if !exposed {
				t.Fatalf("no point with a rerun in %s", name)
			}
		})
	}
}

// TestSweep_Points: a cap keeps at most Points points, at least half of
// them, evenly spaced, and always the last event.
func TestSweep_Points(t *testing.T) {
	events := loggen.Events(loggen.Options{Seed: 1, Vertices: 8, MaxParallelism: 16, FailureRate: 0.05})
	last := events[len(events)-1].Seq
	for _, n := range []int{1, 2, 7, 10, 64} {
		points, err := replay.Sweep(&replay.SliceSource{Events: events}, replay.SweepOptions{Points: n})
		if err != nil {
			t.Fatal(err)
		}
		if len(points) > n || (n > 1 && len(points) < n/2) {
			t.Fatalf("points = %d for Points %d of %d events, want in [%d, %d]", len(points), n, len(events), n/2, n)
		}
		if got := points[len(points)-1].Seq; got != last {
			t.Fatalf("Points %d: last point at seq %d, want the last event %d", n, got, last)
		}
		if len(points) > 3 {
			stride := points[1].Seq - points[0].Seq
			for i := 1; i < len(points)-1; i++ {
				if d := points[i].Seq - points[i-1].Seq; d != stride {
					t.Fatalf("Points %d: spacing %d at point %d, want %d", n, d, i, stride)
				}
			}
		}
	}
}

// TestSweep_EveryUntil: Every samples each K-th event and the last;
// Until ends the sweep there.
func TestSweep_EveryUntil(t *testing.T) {
	events := testlog.Read(t, "../../testdata/logs/failover.jsonl")
	points, err := replay.Sweep(&replay.SliceSource{Events: events}, replay.SweepOptions{Every: 10, Until: 25})
	if err != nil {
		t.Fatal(err)
	}
	var seqs []int64
	for _, p := range points {
		seqs = append(seqs, p.Seq)
	}
	if want := []int64{10, 20, 25}; !equalInt64s(seqs, want) {
		t.Fatalf("seqs = %v, want %v", seqs, want)
	}
	if points[0].Kind != format.KindSubtaskFinished || points[1].Epoch != 2 {
		t.Fatalf("points = %+v, want seq 10 a subtask_finished and seq 20 of epoch 2", points)
	}
}

func equalInt64s(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestSweep_Work: the bytes and task-seconds a failover would redo.
func TestSweep_Work(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	events := job(format.PatternPointwise, 2, 2)
	events[0].Graph.Vertices[0].Coordinator = format.CoordinatorBatchSnapshot
	events = append(events,
		started("a", 0, 0, "w1"),  // t0+1s
		started("a", 1, 0, "w2"),  // t0+2s
		finished("a", 0, 0, "w1"), // t0+4s: 3 s of work, not covered by a snapshot
		format.Event{Kind: format.KindSnapshot, Coordinators: map[string][]byte{"a": {1}}}, // t0+5s
	)
	events = fill(events)
	for i := range events {
		events[i].Time = t0.Add(time.Duration(i-2) * time.Second)
	}
	events[5].Time = t0.Add(4 * time.Second)
	events[6].Time = t0.Add(5 * time.Second)
	points, err := replay.Sweep(&replay.SliceSource{Events: events}, replay.SweepOptions{})
	if err != nil {
		t.Fatal(err)
	}
	atFinish, atSnapshot := points[5], points[6]
	// At the finish: a/0 is trimmed (3 s, 100 bytes) and a/1 runs (2 s).
	if atFinish.Discarded != 1 || atFinish.RerunBytes != 100 || atFinish.RerunSeconds != 5 || atFinish.Rerun != 2 {
		t.Fatalf("at the finish: %+v, want 1 discarded, 100 bytes, 5 s, 2 reruns", atFinish)
	}
	// After the snapshot a/0 is kept; a/1 has run for 3 s.
	if atSnapshot.Discarded != 0 || atSnapshot.RerunBytes != 0 || atSnapshot.RerunSeconds != 3 || atSnapshot.Keep != 1 {
		t.Fatalf("at the snapshot: %+v, want 0 discarded, 0 bytes, 3 s, 1 keep", atSnapshot)
	}
}

// TestSweep_Available: the availability options apply at every point.
func TestSweep_Available(t *testing.T) {
	events := testlog.Read(t, "../../testdata/logs/running.jsonl")
	all, err := replay.Sweep(&replay.SliceSource{Events: events}, replay.SweepOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lost, err := replay.Sweep(&replay.SliceSource{Events: events}, replay.SweepOptions{
		Available: replay.AvailabilityOptions{NoWorkers: true}})
	if err != nil {
		t.Fatal(err)
	}
	more := false
	for i := range all {
		if lost[i].Rerun < all[i].Rerun {
			t.Fatalf("seq %d: %d reruns with no workers, fewer than %d with all", all[i].Seq, lost[i].Rerun, all[i].Rerun)
		}
		more = more || lost[i].Rerun > all[i].Rerun
	}
	if !more {
		t.Fatal("losing every worker never adds a rerun")
	}
	_, err = replay.Sweep(&replay.SliceSource{Events: events}, replay.SweepOptions{
		Available: replay.AvailabilityOptions{LostPartitions: []format.SubtaskRef{{Vertex: "nosuch"}}}})
	if !errors.Is(err, replay.ErrUnknownVertex) {
		t.Fatalf("unknown lost vertex: err = %v, want ErrUnknownVertex", err)
	}
}

// TestSweep_Errors: bad options, and a source failing half way.
func TestSweep_Errors(t *testing.T) {
	if _, err := replay.Sweep(&replay.SliceSource{}, replay.SweepOptions{Points: -1}); !errors.Is(err, replay.ErrBadSweep) {
		t.Fatalf("Points -1: err = %v, want ErrBadSweep", err)
	}
	points, err := replay.Sweep(&replay.SliceSource{}, replay.SweepOptions{})
	if err != nil || len(points) != 0 {
		t.Fatalf("empty log: %d points, err %v; want none, nil", len(points), err)
	}
	events := testlog.Read(t, "../../testdata/logs/healthy.jsonl")
	boom := errors.New("boom")
	points, err = replay.Sweep(&failingSource{events: events[:5], err: boom}, replay.SweepOptions{})
	if !errors.Is(err, boom) || len(points) != 5 {
		t.Fatalf("failing source: %d points, err %v; want 5 points and boom", len(points), err)
	}
}

// failingSource returns its events, then err.
type failingSource struct {
	events []format.Event
	err    error
}

func (s *failingSource) Next() (format.Event, error) {
	if len(s.events) == 0 {
		return format.Event{}, s.err
	}
	e := s.events[0]
	s.events = s.events[1:]
	return e, nil
}

// BenchmarkSweep: 100 points over a log of a 10,000-subtask job.
func BenchmarkSweep(b *testing.B) {
	events := loggen.Events(loggen.BenchOptions(1, 10000, 100000))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := replay.Sweep(&replay.SliceSource{Events: events}, replay.SweepOptions{Points: 100}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(events)), "events")
}
