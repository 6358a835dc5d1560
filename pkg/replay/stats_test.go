package replay_test

import (
	"encoding/json"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jobevent/jobevent/internal/loggen"
	"github.com/jobevent/jobevent/internal/testlog"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func statsOf(t *testing.T, events []format.Event) *replay.Stats {
	t.Helper()
	st, err := replay.ComputeStats(&replay.SliceSource{Events: events})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestStats_Failover: the numbers of testdata/logs/failover.jsonl, worked
// out by hand from the log.
func TestStats_Failover(t *testing.T) {
	st := statsOf(t, testlog.Read(t, "../../testdata/logs/failover.jsonl"))
	if st.Job != "wordcount" || st.Status != "finished" || st.Events != 33 || !near(st.WallSeconds, 45.132) {
		t.Fatalf("job %q status %q events %d wall %v, want wordcount finished 33 45.132", st.Job, st.Status, st.Events, st.WallSeconds)
	}
	src := st.Vertices[0]
	want := replay.VertexStats{Vertex: "source", Parallelism: 3, Initialized: true, Attempts: 4, Reruns: 1, Finished: 3,
		P50Seconds: 0.404, MaxSeconds: 1.316, RecordsOut: 3300, BytesOut: 61440 + 56320 + 51200}
	if src.P50Seconds, src.MaxSeconds = round(src.P50Seconds), round(src.MaxSeconds); src != want {
		t.Fatalf("source = %+v, want %+v", src, want)
	}
	if sink := st.Vertices[3]; sink.RecordsIn != 2411+2389 || sink.Attempts != 2 || sink.Reruns != 0 {
		t.Fatalf("sink = %+v, want 4800 records in over 2 attempts", sink)
	}
	if len(st.Failovers) != 1 {
		t.Fatalf("failovers = %+v, want one", st.Failovers)
	}
	f := st.Failovers[0]
	if f.Epoch != 2 || f.LastSeq != 10 || !near(f.DowntimeSeconds, 41) || !near(f.RedoneSeconds, 1.316) || f.Reran != 1 {
		t.Fatalf("failover = %+v, want epoch 2 after seq 10, 41 s down, 1.316 s redone, 1 rerun", f)
	}
	if !near(st.Lost.TotalSeconds, 42.316) {
		t.Fatalf("lost = %+v, want 42.316 s in all", st.Lost)
	}
	var path []string
	for _, s := range st.CriticalPath {
		path = append(path, s.SubtaskRef.String()+"#"+itoa(s.Attempt)+":"+s.Wait)
	}
	wantPath := "source/2#0:start source/2#1:failover words/2#0:input count/1#0:input sink/1#0:input"
	if got := strings.Join(path, " "); got != wantPath {
		t.Fatalf("critical path = %s, want %s", got, wantPath)
	}
	if w := st.CriticalPath[1].WaitSeconds; !near(round(w), 42.213) {
		t.Fatalf("wait of the rerun = %v, want 42.213", w)
	}
}

func round(f float64) float64 { return math.Round(f*1e6) / 1e6 }

func itoa(i int32) string { return strconv.Itoa(int(i)) }

// outcomeLog: a -> b pointwise, 2 x 2, with one attempt of every outcome
// and a failover.
func outcomeLog() []format.Event {
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	events := job(format.PatternPointwise, 2, 2)
	events = append(events,
		started("a", 0, 0, "w1"),
		started("a", 1, 0, "w2"),
		format.Event{Kind: format.KindSubtaskFailed, Vertex: "a", Subtask: 1, Worker: "w2", Error: "disk full"},
		resetOf(format.SubtaskRef{Vertex: "a", Subtask: 1}),
		started("a", 1, 1, "w2"),
		finished("a", 0, 0, "w1"),
		finished("a", 1, 1, "w2"),
		format.Event{Kind: format.KindVertexInitialized, Vertex: "b", Parallelism: 2},
		started("b", 0, 0, "w1"),
		started("b", 1, 0, "w2"),
		format.Event{Kind: format.KindMasterStarted, Epoch: 2, Master: "m2", Recovering: true},
		format.Event{Kind: format.KindSubtasksReset, Epoch: 2, Subtasks: []format.SubtaskRef{{Vertex: "a", Subtask: 1}}, Reason: format.ReasonRecovery},
		format.Event{Kind: format.KindSubtaskStarted, Epoch: 2, Vertex: "a", Subtask: 1, Attempt: 2, Worker: "w1"},
		format.Event{Kind: format.KindSubtaskStarted, Epoch: 2, Vertex: "b", Subtask: 0, Attempt: 1, Worker: "w1"},
	)
	events = fill(events)
	for i := range events {
		events[i].Time = t0.Add(time.Duration(i) * time.Second)
	}
	events[13].Time = t0.Add(20 * time.Second) // master_started, 8 s after the last event of epoch 1
	for i := 14; i < len(events); i++ {
		events[i].Time = t0.Add(time.Duration(20+i-13) * time.Second)
	}
	return events
}

// TestHistory_Outcomes: every outcome, causes and the epochs' reruns.
func TestHistory_Outcomes(t *testing.T) {
	h := replay.NewHistory()
	for _, e := range outcomeLog() {
		e := e
		if err := h.Apply(&e); err != nil {
			t.Fatalf("seq %d: %v", e.Seq, err)
		}
	}
	var got []string
	for _, a := range h.Attempts() {
		got = append(got, a.SubtaskRef.String()+"#"+itoa(a.Attempt)+"="+string(a.Outcome)+"/"+a.Cause)
	}
	want := "a/0#0=finished/ a/1#0=failed/ a/1#1=reset/recovery b/0#0=interrupted/failover b/1#0=interrupted/failover a/1#2=running/ b/0#1=running/"
	if strings.Join(got, " ") != want {
		t.Fatalf("attempts:\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
	epochs := h.Epochs()
	if len(epochs) != 2 || epochs[0].Master != "m1" || !epochs[1].Recovering || epochs[0].LastSeq != 13 || epochs[1].StartSeq != 14 {
		t.Fatalf("epochs = %+v", epochs)
	}
	var reran []string
	for _, r := range epochs[1].Reran {
		reran = append(reran, r.String())
	}
	if strings.Join(reran, " ") != "a/1 b/0 b/1" || len(epochs[0].Reran) != 0 {
		t.Fatalf("reran = %v (epoch 1: %v), want a/1 b/0 b/1 in epoch 2", reran, epochs[0].Reran)
	}
	st := h.Stats()
	if st.Status != "running" || len(st.Failovers) != 1 {
		t.Fatalf("status %q, failovers %+v", st.Status, st.Failovers)
	}
	// Downtime 20 s - 12 s; redone: a/1#1 ran 7 s -> 9 s (2 s), b/0 and
	// b/1 ran from 11 s and 12 s until the master's last event at 12 s.
	if f := st.Failovers[0]; !near(f.DowntimeSeconds, 8) || !near(f.RedoneSeconds, 3) || f.Reran != 3 {
		t.Fatalf("failover = %+v, want 8 s down, 3 s redone, 3 reran", f)
	}
	a := st.Vertices[0]
	if a.Attempts != 4 || a.Reruns != 2 || a.Failed != 1 || a.Finished != 1 {
		t.Fatalf("vertex a = %+v, want 4 attempts, 2 reruns, 1 failed, 1 finished", a)
	}
	// The only finished attempt that stands is a/0#0.
	if p := st.CriticalPath; len(p) != 1 || p[0].Vertex != "a" || p[0].Subtask != 0 || p[0].Wait != replay.WaitStart {
		t.Fatalf("critical path = %+v, want a/0#0 alone", p)
	}
}

// TestStats_NothingFinished: a log without finishes has an empty path, and
// the JSON form has arrays, never null.
func TestStats_NothingFinished(t *testing.T) {
	events := fill(append(job(format.PatternAllToAll, 1, 1), started("a", 0, 0, "w1")))
	st := statsOf(t, events)
	if len(st.CriticalPath) != 0 || st.Vertices[0].Attempts != 1 {
		t.Fatalf("stats = %+v", st)
	}
	data, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"critical_path":[]`, `"failovers":[]`, `"status":"running"`, `"lost_to_failovers":{`} {
		if !strings.Contains(string(data), key) {
			t.Fatalf("json %s: want %s", data, key)
		}
	}
	empty := statsOf(t, nil)
	if empty.Events != 0 || len(empty.Vertices) != 0 {
		t.Fatalf("empty log: %+v", empty)
	}
}

// TestStats_Generated: on generated logs with failures and failovers,
// spans are well-formed, the path is a chain in time, and each failover
// is accounted for.
func TestStats_Generated(t *testing.T) {
	for seed := int64(1); seed <= 6; seed++ {
		events := loggen.Events(loggen.Options{Seed: seed, Vertices: 7, Sources: 2, FailureRate: 0.15,
			PartitionLossRate: 0.05, Failovers: 2, LoseWorkerOnFailover: seed%2 == 0})
		h := replay.NewHistory()
		starts := 0
		for i := range events {
			if events[i].Kind == format.KindSubtaskStarted {
				starts++
			}
			if err := h.Apply(&events[i]); err != nil {
				t.Fatalf("seed %d seq %d: %v", seed, events[i].Seq, err)
			}
		}
		spans := h.Attempts()
		if len(spans) != starts {
			t.Fatalf("seed %d: %d spans, want one per subtask_started (%d)", seed, len(spans), starts)
		}
		for _, a := range spans {
			if a.End.Before(a.Start) || a.Outcome == "" {
				t.Fatalf("seed %d: bad span %+v", seed, a)
			}
		}
		st := h.Stats()
		if len(st.Failovers) != 2 {
			t.Fatalf("seed %d: failovers = %d, want 2", seed, len(st.Failovers))
		}
		path := st.CriticalPath
		if len(path) == 0 {
			t.Fatalf("seed %d: empty critical path", seed)
		}
		for i := 1; i < len(path); i++ {
			if path[i].Start.Before(path[i-1].End) {
				t.Fatalf("seed %d: step %d starts at %v before step %d ends at %v", seed, i, path[i].Start, i-1, path[i-1].End)
			}
		}
		finishedAt := time.Time{}
		for _, a := range spans {
			if a.Outcome == replay.OutcomeFinished && a.End.After(finishedAt) {
				finishedAt = a.End
			}
		}
		if !path[len(path)-1].End.Equal(finishedAt) {
			t.Fatalf("seed %d: path ends at %v, want the last finish %v", seed, path[len(path)-1].End, finishedAt)
		}
	}
}

// TestHistory_Malformed: events a validator rejects never panic and leave
// well-formed spans.
func TestHistory_Malformed(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	base := testlog.Read(t, "../../testdata/logs/failover.jsonl")
	kinds := format.Kinds
	for trial := 0; trial < 200; trial++ {
		h := replay.NewHistory()
		for i := 0; i < 60; i++ {
			e := base[rng.Intn(len(base))]
			switch rng.Intn(4) {
			case 0:
				e.Kind = kinds[rng.Intn(len(kinds))]
			case 1:
				e.Subtask = int32(rng.Intn(5) - 1)
			case 2:
				e.Epoch = int32(rng.Intn(3))
			}
			_ = h.Apply(&e)
		}
		for _, a := range h.Attempts() {
			if a.Outcome == "" {
				t.Fatalf("trial %d: span without an outcome: %+v", trial, a)
			}
		}
		_ = h.Stats()
	}
}

// BenchmarkComputeStats: the statistics of a log of a 10,000-subtask
// job with failures and a failover.
func BenchmarkComputeStats(b *testing.B) {
	events := loggen.Events(loggen.BenchOptions(1, 10000, 100000))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := replay.ComputeStats(&replay.SliceSource{Events: events}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(events))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
