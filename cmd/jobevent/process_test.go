package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// The multi-process tests build the jobevent binary and run real
// "jobevent worker" and "jobevent master" processes on 127.0.0.1.

var binary struct {
	once sync.Once
	path string
	err  error
}

func buildBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("multi-process test skipped with -short")
	}
	binary.once.Do(func() {
		dir, err := os.MkdirTemp("", "jobevent-bin-")
		if err != nil {
			binary.err = err
			return
		}
		binary.path = filepath.Join(dir, "jobevent")
		out, err := exec.Command("go", "build", "-o", binary.path, ".").CombinedOutput()
		if err != nil {
			binary.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binary.err != nil {
		t.Fatal(binary.err)
	}
	return binary.path
}

// slowJob is flink-failover with a one-second stage in the middle, so that
// a master can be killed while attempts run.
const slowJob = `job: slowjob
vertices:
  - {id: numbers, operator: sequence, args: {from: 0, to: 39999, splits: 8}, parallelism: 4}
  - {id: mod, operator: map, args: {fn: mod, n: 10000}, parallelism: 4}
  - {id: slow, operator: sleep, args: {duration: 1s}, parallelism: 2}
  - {id: count, operator: count, parallelism: 4}
  - {id: sink, operator: sink, args: {output: out}, parallelism: 2}
edges:
  - {from: numbers, to: mod, pattern: pointwise}
  - {from: mod, to: slow, pattern: pointwise}
  - {from: slow, to: count, pattern: all_to_all}
  - {from: count, to: sink, pattern: pointwise}
settings:
  execution.batch.job-recovery.snapshot.min-pause: 0s
  execution.batch.job-recovery.previous-worker.recovery.timeout: %s
  job-event.store.write-buffer.flush-interval: 20ms
  heartbeat.interval: 50ms
  heartbeat.timeout: 600ms
  restart-strategy.fixed-delay.delay: 0s
`

// procCluster is a job directory with its processes.
type procCluster struct {
	t    *testing.T
	bin  string
	dir  string
	spec string
	log  string
	mu   sync.Mutex
	logs map[string]*bytes.Buffer
}

func newProcCluster(t *testing.T, recoveryTimeout string) *procCluster {
	c := &procCluster{t: t, bin: buildBinary(t), dir: t.TempDir(), logs: map[string]*bytes.Buffer{}}
	c.spec = filepath.Join(c.dir, "slowjob.yaml")
	if err := os.WriteFile(c.spec, []byte(fmt.Sprintf(slowJob, recoveryTimeout)), 0o644); err != nil {
		t.Fatal(err)
	}
	c.log = "file://" + filepath.Join(c.dir, "log")
	t.Cleanup(func() {
		if t.Failed() || os.Getenv("JOBEVENT_TEST_LOGS") != "" {
			c.mu.Lock()
			defer c.mu.Unlock()
			for name, b := range c.logs {
				t.Logf("--- %s:\n%s", name, b.String())
			}
		}
	})
	return c
}

// start starts "jobevent args..." as name, in the job directory.
func (c *procCluster) start(name string, args ...string) *exec.Cmd {
	c.t.Helper()
	cmd := exec.Command(c.bin, args...)
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), "JOBEVENT_TOKEN=s3cret")
	var buf bytes.Buffer
	c.mu.Lock()
	c.logs[name] = &buf
	c.mu.Unlock()
	w := &lockedWriter{mu: &c.mu, w: &buf}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (c *procCluster) worker(name string) *exec.Cmd {
	return c.start(name, "worker", "--events", c.log, "--dir", filepath.Join(c.dir, "work", name), "--name", name)
}

// wait waits for cmd to exit, at most d, and returns its exit code.
func wait(t *testing.T, cmd *exec.Cmd, d time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%s still running after %v", strings.Join(cmd.Args, " "), d)
		return -1
	}
}

// events reads the log as it is now.
func (c *procCluster) events() []format.Event {
	ctx := context.Background()
	l, err := blob.Open(ctx, c.log)
	if errors.Is(err, blob.ErrNoLog) {
		return nil
	}
	if err != nil {
		c.t.Fatal(err)
	}
	defer l.Close()
	r, err := l.NewReader(ctx, blob.ReaderOptions{})
	if errors.Is(err, blob.ErrNoLog) {
		return nil
	}
	if err != nil {
		c.t.Fatal(err)
	}
	defer r.Close()
	var out []format.Event
	for {
		e, err := r.Next()
		if errors.Is(err, io.EOF) || errors.Is(err, blob.ErrNoLog) {
			return out
		}
		if err != nil {
			c.t.Fatal(err)
		}
		out = append(out, e)
	}
}

// waitFor polls the log until cond holds, at most 20 seconds.
func (c *procCluster) waitFor(what string, cond func([]format.Event) bool) {
	c.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if cond(c.events()) {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond) // polling interval of the condition, not a wait for it
	}
}

// slowRunning reports whether both attempts of the slow stage are
// recorded as started.
func slowRunning(events []format.Event) bool {
	n := 0
	for _, e := range events {
		if e.Kind == format.KindSubtaskStarted && e.Vertex == "slow" {
			n++
		}
	}
	return n >= 2
}

// busiest returns the worker that finished the most attempts of vertex.
func busiest(events []format.Event, vertex string) string {
	n := map[string]int{}
	best := ""
	for _, e := range events {
		if e.Kind == format.KindSubtaskFinished && e.Vertex == vertex {
			n[e.Worker]++
			if best == "" || n[e.Worker] > n[best] || (n[e.Worker] == n[best] && e.Worker < best) {
				best = e.Worker
			}
		}
	}
	return best
}

// plan computes the dry run of the log as it is now.
func (c *procCluster) plan(lostWorkers ...string) *replay.RecoveryPlan {
	s, err := replay.Fold(&replay.SliceSource{Events: c.events()}, 0)
	if err != nil {
		c.t.Fatal(err)
	}
	avail, err := replay.BuildAvailability(s, replay.AvailabilityOptions{LostWorkers: lostWorkers})
	if err != nil {
		c.t.Fatal(err)
	}
	return replay.Plan(s, avail)
}

// checkPrediction compares the plan with the subtask_started events of
// epoch, and checks the job's answer.
func (c *procCluster) checkPrediction(plan *replay.RecoveryPlan, epoch int32) {
	c.t.Helper()
	events := c.events()
	var got, want []string
	// What the recovery starts is what the plan predicts; a failure later
	// in the epoch (a worker lost on a loaded machine) starts more, which
	// is the next failover's business, not this prediction's.
	for _, e := range events {
		if e.Epoch != epoch {
			continue
		}
		if e.Kind == format.KindSubtaskFailed || (e.Kind == format.KindSubtasksReset && e.Reason != format.ReasonRecovery) {
			c.t.Logf("epoch %d: %s at seq %d (%s); later starts are not the recovery's", epoch, e.Kind, e.Seq, e.Reason+e.Error)
			break
		}
		if e.Kind == format.KindSubtaskStarted {
			got = append(got, fmt.Sprintf("%s/%d#%d", e.Vertex, e.Subtask, e.Attempt))
		}
	}
	for _, s := range plan.Subtasks {
		if s.Decision != replay.DecisionKeep {
			want = append(want, fmt.Sprintf("%s/%d#%d", s.Vertex, s.Subtask, s.Attempt))
		}
	}
	for _, v := range plan.Vertices {
		for _, e := range events {
			if !v.Initialized && e.Epoch == epoch && e.Kind == format.KindVertexInitialized && e.Vertex == v.Vertex {
				for i := int32(0); i < e.Parallelism; i++ {
					want = append(want, fmt.Sprintf("%s/%d#0", v.Vertex, i))
				}
			}
		}
	}
	sort.Strings(got)
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		c.t.Fatalf("epoch %d started %v\nplan predicted %v", epoch, got, want)
	}
	if last := events[len(events)-1]; last.Kind != format.KindJobFinished || last.Status != format.StatusFinished {
		c.t.Fatalf("last event %s %s, want job_finished finished", last.Kind, last.Status)
	}
	c.checkAnswer()
}

// checkAnswer checks the job's output: 10000 keys, each counted 4 times.
func (c *procCluster) checkAnswer() {
	c.t.Helper()
	keys := 0
	for _, part := range []string{"part-00000", "part-00001"} {
		data, err := os.ReadFile(filepath.Join(c.dir, "out", part))
		if err != nil {
			c.t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			k, v, _ := strings.Cut(line, "\t")
			if _, err := strconv.Atoi(k); err != nil || v != "4" {
				c.t.Fatalf("output line %q, want <key>\\t4", line)
			}
			keys++
		}
	}
	if keys != 10000 {
		c.t.Fatalf("output has %d keys, want 10000", keys)
	}
}

func TestProcesses_KillMasterAndResume(t *testing.T) {
	c := newProcCluster(t, "10s")
	w1, w2 := c.worker("w1"), c.worker("w2")
	m1 := c.start("master1", "master", c.spec, "--events", c.log)
	c.waitFor("the slow stage to run", slowRunning)
	m1.Process.Signal(syscall.SIGKILL)
	wait(t, m1, 10*time.Second)
	plan := c.plan()
	m2 := c.start("master2", "master", "--resume", "--events", c.log)
	if code := wait(t, m2, 60*time.Second); code != 0 {
		t.Fatalf("resumed master exit code %d", code)
	}
	for _, w := range []*exec.Cmd{w1, w2} {
		if code := wait(t, w, 20*time.Second); code != 0 {
			t.Fatalf("worker exit code %d", code)
		}
	}
	c.checkPrediction(plan, 2)
	if rerun := plan.Summary.Rerun; rerun != 2 {
		t.Errorf("plan reruns %d subtasks, want the 2 slow ones", rerun)
	}
}

func TestProcesses_Standby(t *testing.T) {
	c := newProcCluster(t, "10s")
	c.worker("w1")
	c.worker("w2")
	m1 := c.start("master1", "master", c.spec, "--events", c.log)
	c.waitFor("the first master's epoch", func(events []format.Event) bool { return len(events) >= 2 })
	standby := c.start("standby", "master", "--standby", "--events", c.log)
	c.waitFor("the slow stage to run", slowRunning)
	m1.Process.Signal(syscall.SIGKILL)
	wait(t, m1, 10*time.Second)
	plan := c.plan()
	if code := wait(t, standby, 60*time.Second); code != 0 {
		t.Fatalf("standby exit code %d", code)
	}
	c.checkPrediction(plan, 2)
}

func TestProcesses_WorkerLostDuringRecovery(t *testing.T) {
	c := newProcCluster(t, "1500ms")
	workers := map[string]*exec.Cmd{"w1": c.worker("w1"), "w2": c.worker("w2")}
	m1 := c.start("master1", "master", c.spec, "--events", c.log)
	c.waitFor("the slow stage to run", slowRunning)
	// Lose the worker holding the most of mod's partitions, which the
	// slow stage reads: however the attempts were spread, losing it
	// loses needed partitions.
	lostName := busiest(c.events(), "mod")
	lost := workers[lostName]
	delete(workers, lostName)
	m1.Process.Signal(syscall.SIGKILL)
	lost.Process.Signal(syscall.SIGKILL)
	wait(t, m1, 10*time.Second)
	wait(t, lost, 10*time.Second)
	// The lost worker never comes back: the recovering master waits out
	// the shortened previous-worker-recovery-timeout, then reruns the
	// producers whose partitions lived on it.
	plan := c.plan(lostName)
	m2 := c.start("master2", "master", "--resume", "--events", c.log)
	if code := wait(t, m2, 60*time.Second); code != 0 {
		t.Fatalf("resumed master exit code %d", code)
	}
	for _, w := range workers {
		wait(t, w, 20*time.Second)
	}
	c.checkPrediction(plan, 2)
	reruns := 0
	for _, s := range plan.Subtasks {
		for _, r := range s.Reasons {
			if r == replay.ReasonPartitionLost {
				reruns++
			}
		}
	}
	if reruns == 0 {
		t.Fatalf("plan without %s reruns nothing for partition_lost", lostName)
	}
	c.mu.Lock()
	out := c.logs["master2"].String()
	c.mu.Unlock()
	if !strings.Contains(out, "previous-worker-recovery-timeout") {
		t.Errorf("master2 did not say it gave up waiting:\n%s", out)
	}
}

// lossJob is slowJob with the default restart strategy (3 failovers, a
// one-second delay), a shorter, wider slow stage, so that a worker can be
// killed at every stage of it, and a longer heartbeat timeout.
func lossJob(t *testing.T) string {
	s := fmt.Sprintf(slowJob, "10s")
	s = strings.Replace(s, "args: {duration: 1s}, parallelism: 2", "args: {duration: 300ms}, parallelism: 4", 1)
	s = strings.Replace(s, "  restart-strategy.fixed-delay.delay: 0s\n", "", 1)
	// The survivor must not be taken for lost too on a loaded machine:
	// that would be a second failover the test does not count on.
	s = strings.Replace(s, "heartbeat.timeout: 600ms", "heartbeat.timeout: 2s", 1)
	if strings.Contains(s, "restart-strategy") || !strings.Contains(s, "duration: 300ms") || !strings.Contains(s, "timeout: 2s") {
		t.Fatalf("lossJob does not follow slowJob any more:\n%s", s)
	}
	return s
}

// TestProcesses_WorkerKilledMidJob kills one worker process (SIGKILL)
// while the master lives, at ten points of the job: after the k-th
// subtask_finished. The master gives it up in one failover, whose reset
// holds everything the reruns need that the worker held, and the job
// finishes on the other worker with the default restart strategy.
func TestProcesses_WorkerKilledMidJob(t *testing.T) {
	for k := 0; k < 10; k++ {
		t.Run(fmt.Sprintf("after-%d-finishes", k), func(t *testing.T) {
			c := newProcCluster(t, "10s")
			if err := os.WriteFile(c.spec, []byte(lossJob(t)), 0o644); err != nil {
				t.Fatal(err)
			}
			workers := map[string]*exec.Cmd{"w1": c.worker("w1"), "w2": c.worker("w2")}
			m := c.start("master", "master", c.spec, "--events", c.log)
			victim := "w1"
			c.waitFor(fmt.Sprintf("%d finishes", k), func(events []format.Event) bool {
				n := 0
				for _, e := range events {
					if e.Kind == format.KindSubtaskFinished {
						n++
						victim = busiest(events, e.Vertex)
					}
				}
				return n >= k && len(events) > 2
			})
			workers[victim].Process.Signal(syscall.SIGKILL)
			wait(t, workers[victim], 10*time.Second)
			if code := wait(t, m, 60*time.Second); code != 0 {
				t.Fatalf("master exit code %d after %s was killed", code, victim)
			}
			c.checkAnswer()
			failovers := 0
			for _, e := range c.events() {
				if e.Kind == format.KindSubtasksReset {
					failovers++
				}
			}
			if failovers > 1 {
				t.Errorf("%d failovers for one lost worker, want at most 1", failovers)
			}
		})
	}
}

// TestProcesses_FencedIdleMasterExits: a master waiting for workers that
// never come has nothing to write; when a newer epoch is claimed over it,
// its next heartbeat sees the claim and it exits 2 with one line naming
// the newer epoch.
func TestProcesses_FencedIdleMasterExits(t *testing.T) {
	c := newProcCluster(t, "10s")
	m := c.start("master", "master", c.spec, "--events", c.log)
	c.waitFor("the first master's epoch", func(events []format.Event) bool { return len(events) >= 2 })
	ctx := context.Background()
	l, err := blob.Open(ctx, c.log)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	events := c.events()
	if err := l.ClaimEpoch(ctx, blob.EpochInfo{Epoch: 2, Master: "other", StartSeq: events[len(events)-1].Seq + 1}); err != nil {
		t.Fatal(err)
	}
	if code := wait(t, m, 5*time.Second); code != 2 {
		t.Fatalf("fenced master exit code %d, want 2", code)
	}
	c.mu.Lock()
	out := c.logs["master"].String()
	c.mu.Unlock()
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "jobevent:") && strings.Contains(l, "fenced") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "epoch 2") {
		t.Fatalf("fenced master said:\n%s\nwant one line naming epoch 2", out)
	}
}
