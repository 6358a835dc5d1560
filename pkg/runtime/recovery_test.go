package runtime

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/internal/testenv"
	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// cleanRun runs a testdata job without crashes, seeded, and returns its
// output and its log.
func cleanRun(t *testing.T, job string, seed int64) (map[string]string, []format.Event) {
	t.Helper()
	dir := jobDir(t)
	sum, err := Run(testenv.Context(t), loadJob(t, job), Options{Dir: dir, Seeded: true, Seed: seed})
	if err != nil {
		t.Fatalf("clean run of %s: %v", job, err)
	}
	return readOutput(t, dir, sum.Job), readLog(t, sum.Log)
}

// planOfLog computes what a dry run predicts for the log at url: Fold over
// a blob reader, every recorded partition available.
func planOfLog(t *testing.T, url string) *replay.RecoveryPlan {
	t.Helper()
	s, err := replay.Fold(&replay.SliceSource{Events: readLog(t, url)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	return replay.Plan(s, replay.AllRecorded(s))
}

// startedIn returns "vertex/subtask attempt a" for every subtask_started
// of epoch e.
func startedIn(events []format.Event, e int32) []string {
	var out []string
	for _, ev := range events {
		if ev.Epoch == e && ev.Kind == format.KindSubtaskStarted {
			out = append(out, fmt.Sprintf("%s/%d attempt %d", ev.Vertex, ev.Subtask, ev.Attempt))
		}
	}
	sort.Strings(out)
	return out
}

// predicted returns what the plan says the resumed master starts: every
// rerun and run subtask with its attempt, and every subtask of the
// vertices not initialized yet (they run once initialized), attempt 0.
func predicted(plan *replay.RecoveryPlan, spec *Spec, events []format.Event, epoch int32) []string {
	var out []string
	for _, s := range plan.Subtasks {
		if s.Decision != replay.DecisionKeep {
			out = append(out, fmt.Sprintf("%s/%d attempt %d", s.Vertex, s.Subtask, s.Attempt))
		}
	}
	for _, v := range plan.Vertices {
		if v.Initialized {
			continue
		}
		for _, e := range events {
			if e.Epoch == epoch && e.Kind == format.KindVertexInitialized && e.Vertex == v.Vertex {
				for i := int32(0); i < e.Parallelism; i++ {
					out = append(out, fmt.Sprintf("%s/%d attempt 0", v.Vertex, i))
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// crashAndResume runs job with a crash after each seq of crashes in turn
// (each one a new epoch resuming the last) and then resumes it to the end.
// It checks after every crash that the plan of the crashed log is exactly
// what the next epoch started, and returns the output.
func crashAndResume(t *testing.T, job string, seed int64, crashes ...int64) map[string]string {
	t.Helper()
	dir := jobDir(t)
	spec := loadJob(t, job)
	opts := Options{Dir: dir, Seeded: true, Seed: seed}
	var url string
	for n, k := range append(crashes, 0) {
		opts.CrashAfterSeq = k
		opts.Resume = n > 0
		var plan *replay.RecoveryPlan
		if n > 0 {
			plan = planOfLog(t, url)
		}
		sum, err := Run(testenv.Context(t), loadJob(t, job), opts)
		var crash *CrashError
		switch {
		case k > 0 && errors.As(err, &crash):
			want := k
			if n == 0 && k == 1 {
				want = 2 // job_submitted and master_started are one unit
			}
			if crash.Seq != want {
				t.Fatalf("crashed after %d, want %d", crash.Seq, want)
			}
			k = want
		case k > 0 && err == nil && sum.Status == format.StatusFinished:
			// The job ended before seq k.
		case err != nil:
			t.Fatalf("%s run %d (crash after %d): %v", job, n, k, err)
		}
		url = sum.Log
		events := readLog(t, url)
		if k > 0 && crash != nil && events[len(events)-1].Seq != k {
			t.Fatalf("log ends at seq %d, want the crash point %d", events[len(events)-1].Seq, k)
		}
		if plan != nil && !sum.AlreadyEnded {
			got := startedIn(events, sum.Epoch)
			want := predicted(plan, spec, events, sum.Epoch)
			if crash != nil {
				// The crash cut the epoch short: what it started
				// must be part of the plan.
				if !subset(got, want) {
					t.Fatalf("%s: crashed epoch %d started\n  %s\nnot all in the plan\n  %s", job, sum.Epoch, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
				}
			} else if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: epoch %d started\n  %s\nplan predicted\n  %s", job, sum.Epoch, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
		}
	}
	return readOutput(t, dir, spec.Job)
}

// TestRecovery_CrashPoints crashes each testdata job after event k and
// resumes it: the output is the clean run's, byte for byte, and the
// resumed master starts exactly what the plan of the crashed log says.
// Two jobs are crashed at every seq; the others at the first and last
// events and every third one between (start, mid-source, between
// vertices, last event).
func TestRecovery_CrashPoints(t *testing.T) {
	t.Parallel()
	for _, job := range []string{"wordcount.yaml", "flink-failover.yaml", "auto-parallelism.yaml", "legacy-source.yaml", "shuffle.yaml"} {
		t.Run(job, func(t *testing.T) {
			want, events := cleanRun(t, job, 7)
			if len(want) == 0 {
				t.Fatal("clean run wrote no output")
			}
			n := int64(len(events))
			every := job == "wordcount.yaml" || job == "flink-failover.yaml"
			for k := int64(1); k <= n; k++ {
				if !every && k > 3 && k < n-2 && k%3 != 0 {
					continue
				}
				got := crashAndResume(t, job, 7, k)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("crash after %d: output differs from the clean run", k)
				}
			}
		})
	}
}

func subset(a, b []string) bool {
	in := map[string]bool{}
	for _, x := range b {
		in[x] = true
	}
	for _, x := range a {
		if !in[x] {
			return false
		}
	}
	return true
}

// TestRecovery_SecondFailover crashes the recovering master too: the
// recovery resets it logged make the second plan right.
func TestRecovery_SecondFailover(t *testing.T) {
	t.Parallel()
	for _, job := range []string{"wordcount.yaml", "auto-parallelism.yaml", "legacy-source.yaml"} {
		t.Run(job, func(t *testing.T) {
			want, events := cleanRun(t, job, 11)
			n := int64(len(events))
			for _, ks := range [][]int64{{n / 3, n/3 + 3}, {n / 2, n/2 + 1, n/2 + 5}, {4, 9, 15, 22}} {
				if got := crashAndResume(t, job, 11, ks...); !reflect.DeepEqual(got, want) {
					t.Fatalf("crashes after %v: output differs from the clean run", ks)
				}
			}
		})
	}
}

// TestRecovery_Zombie writes what a fenced master managed to flush after
// the next epoch was claimed (events of epoch 1 with seqs past the start
// of epoch 2): replay ignores them, validate reports them.
func TestRecovery_Zombie(t *testing.T) {
	t.Parallel()
	dir := jobDir(t)
	opts := Options{Dir: dir, Seeded: true, Seed: 2, CrashAfterSeq: 15}
	if _, err := Run(testenv.Context(t), loadJob(t, "flink-failover.yaml"), opts); err == nil {
		t.Fatal("no crash")
	}
	opts.CrashAfterSeq, opts.Resume = 0, true
	sum, err := Run(testenv.Context(t), loadJob(t, "flink-failover.yaml"), opts)
	if err != nil {
		t.Fatal(err)
	}
	before := readLog(t, sum.Log)
	ctx := testenv.Context(t)
	l, err := blob.Open(ctx, sum.Log)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	zombie := []format.Event{
		{Seq: 16, Epoch: 1, Kind: format.KindSubtaskStarted, Job: "flink-failover", Vertex: "mod", Subtask: 3, Attempt: 0, Worker: "w1"},
		{Seq: 17, Epoch: 1, Kind: format.KindSubtaskFinished, Job: "flink-failover", Vertex: "mod", Subtask: 3, Attempt: 0, Worker: "w1", Partitions: []format.Partition{}},
	}
	if _, err := l.WriteSegment(ctx, zombie); err != nil {
		t.Fatal(err)
	}
	after := readLog(t, sum.Log)
	if !reflect.DeepEqual(after, before) {
		t.Fatalf("the zombie's events changed the log as read: %d events, want %d", len(after), len(before))
	}
	r, err := l.NewReader(ctx, blob.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	findings := replay.Validate(r, replay.ValidateOptions{})
	r.Close()
	fenced := 0
	for _, f := range findings {
		if f.Rule == replay.RuleFencedWrite {
			fenced++
		} else if f.Severity == "error" {
			t.Errorf("finding %+v", f)
		}
	}
	if fenced == 0 {
		t.Fatalf("validate found no fenced write in %+v", findings)
	}
	// A further --resume sees the job finished: the zombie changed
	// nothing.
	sum, err = Run(testenv.Context(t), loadJob(t, "flink-failover.yaml"), opts)
	if err != nil || !sum.AlreadyEnded {
		t.Fatalf("resume after the zombie: %+v, %v; want already ended", sum, err)
	}
}
