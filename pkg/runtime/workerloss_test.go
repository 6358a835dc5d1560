package runtime

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jobevent/jobevent/internal/testenv"
	"github.com/jobevent/jobevent/pkg/format"
)

// TestProcess_WorkerLossIsOneFailover kills a worker that holds finished
// partitions and runs attempts, with the restart strategy's defaults (3
// failovers). The master gives it up when its heartbeats stop: one
// failover, one subtasks_reset of what ran there and of the producers of
// what it held, and the job finishes on the other worker. Counted one
// attempt and one found-missing partition at a time, this loss alone was
// more failovers than the strategy allows.
func TestProcess_WorkerLossIsOneFailover(t *testing.T) {
	t.Parallel()
	spec, err := ParseSpec("loss.yaml", []byte(`job: loss
vertices:
  - {id: numbers, operator: sequence, args: {to: 99, splits: 8}, parallelism: 8}
  - {id: wait, operator: test_gate, args: {name: worker-loss}, parallelism: 8}
edges:
  - {from: numbers, to: wait, pattern: all_to_all}
settings:
  heartbeat.interval: 30ms
  heartbeat.timeout: 1s
`))
	if err != nil {
		t.Fatal(err)
	}
	if st := spec.Settings; st.RestartAttempts != 3 || st.RestartStrategy != RestartFixedDelay {
		t.Fatalf("restart strategy %s/%d, want the defaults", st.RestartStrategy, st.RestartAttempts)
	}
	entered, open := newGate("worker-loss")
	defer open()
	dir := t.TempDir()
	c := newProcessCluster(t, dir, "loss")
	kill := map[string]func(){"w1": c.worker("w1"), "w2": c.worker("w2")}
	ctx, cancel := context.WithTimeout(context.Background(), processDeadline)
	defer cancel()
	stderr := newLockedBuffer()
	type result struct {
		sum *Summary
		err error
	}
	done := make(chan result, 1)
	go func() {
		sum, err := RunMaster(ctx, MasterOptions{Spec: spec, Events: c.url, Token: c.token, Dir: dir, Stderr: stderr})
		done <- result{sum, err}
	}()
	select {
	case <-entered: // every numbers subtask finished: its partitions are on disk
	case <-ctx.Done():
		t.Fatal("the gate was never reached")
	}
	victim := ""
	for _, w := range []string{"w1", "w2"} {
		if countFiles(t, filepath.Join(dir, "work", w)) > 0 {
			victim = w
			break
		}
	}
	if victim == "" {
		t.Fatal("no worker holds a partition")
	}
	kill[victim]()
	stderr.waitFor(ctx, t, "worker "+victim+" lost")
	open()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		t.Fatal("the master did not finish")
	}
	if r.err != nil || r.sum.Status != format.StatusFinished {
		t.Fatalf("master = %+v, %v; want the job finished\n%s", r.sum, r.err, stderr.String())
	}
	c.wait()
	var resets []string
	for _, e := range readLog(t, c.url) {
		if e.Kind == format.KindSubtasksReset {
			resets = append(resets, e.Reason)
		}
	}
	if len(resets) != 1 || resets[0] != ReasonWorkerLost {
		t.Fatalf("resets %v, want one %s", resets, ReasonWorkerLost)
	}
}

// countFiles counts the regular files under dir.
func countFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && !strings.HasPrefix(d.Name(), ".") {
			n++
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return n
}

// TestStillRead: a lost partition needs its producer rerun only while a
// consumer subtask that reads it has not finished.
func TestStillRead(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		pattern string
		sub     int32
		want    bool
	}{
		{format.PatternPointwise, 1, false}, // its only reader finished
		{format.PatternPointwise, 2, true},
		{format.PatternAllToAll, 1, true}, // read by every consumer subtask
	} {
		prod := &vertexRun{spec: &VertexSpec{ID: "a"}, p: 4}
		cons := &vertexRun{spec: &VertexSpec{ID: "b"}, p: 4, subs: make([]subRun, 4)}
		cons.subs[1].status = subFinished
		prod.outs = []*edgeRun{{from: prod, to: cons, pattern: c.pattern}}
		m := &master{byID: map[string]*vertexRun{"a": prod, "b": cons}}
		if got := m.stillRead(partID{Vertex: "a", Subtask: c.sub, Consumer: "b"}, nil); got != c.want {
			t.Errorf("%s: stillRead(a/%d → b) = %v, want %v", c.pattern, c.sub, got, c.want)
		}
	}
}

// TestRun_UnreachableWorkerIsOneFailover: a worker that stops answering
// fetches (the embedded runtime's Disconnect) before anything notices it
// is gone is given up at the first fetch that finds it unreachable, in one
// failover, instead of one failover per partition of it that a consumer
// finds missing; the job finishes with the output of a clean run.
func TestRun_UnreachableWorkerIsOneFailover(t *testing.T) {
	t.Parallel()
	want, _ := cleanRun(t, "shuffle.yaml", 1)
	dir := jobDir(t)
	sum, err := Run(testenv.Context(t), loadJob(t, "shuffle.yaml"), Options{Dir: dir, Seeded: true, Seed: 1,
		onNet: func(n *localNet) { n.Disconnect("w1") }})
	if err != nil {
		t.Fatalf("run with w1 unreachable: %v", err)
	}
	var resets []string
	for _, e := range readLog(t, sum.Log) {
		if e.Kind == format.KindSubtasksReset {
			resets = append(resets, e.Reason)
		}
	}
	if len(resets) != 1 || resets[0] != ReasonWorkerLost {
		t.Fatalf("resets %v, want one %s", resets, ReasonWorkerLost)
	}
	if !reflect.DeepEqual(readOutput(t, dir, sum.Job), want) {
		t.Fatal("output differs from the clean run")
	}
}

// TestProcess_WorkerLossResetsTheInputsOfReruns: every stage ran on w1
// before w2 joined, so that when w1 dies the partitions of both numbers
// and mod are gone. The gate's attempts make mod's partitions needed, so
// mod reruns; mod's reruns need numbers' partitions, which were on w1
// too. The one worker_lost reset must hold numbers as well: left to be
// found missing, each of mod's eight reruns failed on its own and cost a
// failover of its own, more than the default strategy allows.
func TestProcess_WorkerLossResetsTheInputsOfReruns(t *testing.T) {
	t.Parallel()
	spec, err := ParseSpec("chain.yaml", []byte(`job: chain
vertices:
  - {id: numbers, operator: sequence, args: {to: 799, splits: 8}, parallelism: 8}
  - {id: mod, operator: map, args: {fn: mod, n: 10}, parallelism: 8}
  - {id: wait, operator: test_gate, args: {name: chain-loss}, parallelism: 8}
edges:
  - {from: numbers, to: mod, pattern: pointwise}
  - {from: mod, to: wait, pattern: pointwise}
settings:
  heartbeat.interval: 30ms
  heartbeat.timeout: 1s
`))
	if err != nil {
		t.Fatal(err)
	}
	entered, open := newGate("chain-loss")
	defer open()
	dir := t.TempDir()
	c := newProcessCluster(t, dir, "chain")
	kill := c.worker("w1")
	ctx, cancel := context.WithTimeout(context.Background(), processDeadline)
	defer cancel()
	stderr := newLockedBuffer()
	type result struct {
		sum *Summary
		err error
	}
	done := make(chan result, 1)
	go func() {
		sum, err := RunMaster(ctx, MasterOptions{Spec: spec, Events: c.url, Token: c.token, Dir: dir, Stderr: stderr})
		done <- result{sum, err}
	}()
	select {
	case <-entered: // numbers and mod finished on w1, the only worker
	case <-ctx.Done():
		t.Fatal("the gate was never reached")
	}
	c.worker("w2")
	for !startedOn(readLogMaybe(t, c.url), "wait", "w2") {
		select {
		case <-ctx.Done():
			t.Fatal("w2 never ran a gate attempt")
		case <-time.After(20 * time.Millisecond): // polling interval of the log
		}
	}
	kill()
	stderr.waitFor(ctx, t, "worker w1 lost")
	open()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		t.Fatal("the master did not finish")
	}
	if r.err != nil || r.sum.Status != format.StatusFinished {
		t.Fatalf("master = %+v, %v; want the job finished\n%s", r.sum, r.err, stderr.String())
	}
	c.wait()
	var resets []string
	for _, e := range readLog(t, c.url) {
		if e.Kind == format.KindSubtasksReset {
			resets = append(resets, e.Reason)
			n := 0
			for _, r := range e.Subtasks {
				if r.Vertex != "wait" {
					n++
				}
			}
			if n != 16 {
				t.Errorf("the reset holds %d subtasks of numbers and mod, want all 16: %v", n, e.Subtasks)
			}
		}
	}
	if len(resets) != 1 || resets[0] != ReasonWorkerLost {
		t.Fatalf("resets %v, want one %s", resets, ReasonWorkerLost)
	}
}

// startedOn reports whether an attempt of vertex started on worker.
func startedOn(events []format.Event, vertex, worker string) bool {
	for _, e := range events {
		if e.Kind == format.KindSubtaskStarted && e.Vertex == vertex && e.Worker == worker {
			return true
		}
	}
	return false
}
