package runtime

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jobevent/jobevent/internal/testenv"
	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/format"
)

// failing passes records through but fails the attempts below
// args.attempts (of the subtasks in args.subtask, default all).
type failing struct {
	attempts int64
	subtask  int64
}

func init() {
	Register("test_fail", func(args Args) (Operator, error) {
		n, err := args.Int("attempts", 1)
		if err != nil {
			return nil, err
		}
		sub, err := args.Int("subtask", -1)
		if err != nil {
			return nil, err
		}
		return &failing{attempts: n, subtask: sub}, nil
	})
	Register("test_gate", func(args Args) (Operator, error) {
		name, err := args.String("name", "")
		return &gate{name: name}, err
	})
}

func (f *failing) Name() string { return "test_fail" }

func (f *failing) Run(ctx context.Context, task *Task, in Input, out Emitter) error {
	if int64(task.Attempt) < f.attempts && (f.subtask < 0 || f.subtask == int64(task.Subtask)) {
		return fmt.Errorf("injected failure of attempt %d", task.Attempt)
	}
	for {
		r, ok, err := in.Next(ctx)
		if err != nil || !ok {
			return err
		}
		if err := out.Emit(r); err != nil {
			return err
		}
	}
}

// gate passes records through once the test opens it: gates[name] is
// closed. Until then it blocks (or ends with its context).
type gate struct{ name string }

var gates = struct {
	sync.Mutex
	m       map[string]chan struct{}
	entered map[string]chan struct{}
}{m: map[string]chan struct{}{}, entered: map[string]chan struct{}{}}

// newGate returns the channels of gate name: entered is closed once an
// attempt waits at it, open releases it.
func newGate(name string) (entered <-chan struct{}, open func()) {
	gates.Lock()
	defer gates.Unlock()
	o, e := make(chan struct{}), make(chan struct{})
	gates.m[name], gates.entered[name] = o, e
	var once sync.Once
	return e, func() { once.Do(func() { close(o) }) }
}

func (g *gate) Name() string { return "test_gate" }

func (g *gate) Run(ctx context.Context, task *Task, in Input, out Emitter) error {
	gates.Lock()
	o, e := gates.m[g.name], gates.entered[g.name]
	gates.Unlock()
	if e != nil {
		select {
		case <-e:
		default:
			close(e)
		}
	}
	select {
	case <-o:
	case <-ctx.Done():
		return ctx.Err()
	}
	for {
		r, ok, err := in.Next(ctx)
		if err != nil || !ok {
			return err
		}
		if err := out.Emit(r); err != nil {
			return err
		}
	}
}

const failSpec = `job: failing
vertices:
  - id: numbers
    operator: sequence
    args: {from: 1, to: 100, splits: 2}
    parallelism: 2
  - id: flaky
    operator: test_fail
    args: {attempts: %d, subtask: 1}
    parallelism: 2
  - id: sum
    operator: sum
    parallelism: 1
  - id: sink
    operator: sink
    args: {output: out}
    parallelism: 1
edges:
  - {from: numbers, to: flaky, pattern: pointwise}
  - {from: flaky, to: sum, pattern: all_to_all}
  - {from: sum, to: sink, pattern: pointwise}
settings:
  restart-strategy.fixed-delay.attempts: 2
  restart-strategy.fixed-delay.delay: 0s
`

func kindsOf(events []format.Event) []string {
	var out []string
	for _, e := range events {
		s := string(e.Kind)
		if e.Vertex != "" {
			s += " " + e.Vertex + "/" + fmt.Sprint(e.Subtask)
		}
		if e.Kind == format.KindSubtasksReset {
			s += " " + e.Reason
		}
		out = append(out, s)
	}
	return out
}

func TestRun_RestartStrategy(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec, err := ParseSpec("failing.yaml", []byte(fmt.Sprintf(failSpec, 2)))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Run(testenv.Context(t), spec, Options{Dir: dir, Seeded: true, Seed: 1})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if sum.Reruns != 2 {
		t.Errorf("reruns = %d, want 2", sum.Reruns)
	}
	events := readLog(t, sum.Log)
	var fails, resets []string
	for _, e := range events {
		switch e.Kind {
		case format.KindSubtaskFailed:
			fails = append(fails, fmt.Sprintf("%s/%d attempt %d: %s", e.Vertex, e.Subtask, e.Attempt, e.Error))
		case format.KindSubtasksReset:
			resets = append(resets, fmt.Sprintf("%v %s", e.Subtasks, e.Reason))
		}
	}
	wantFails := []string{"flaky/1 attempt 0: injected failure of attempt 0", "flaky/1 attempt 1: injected failure of attempt 1"}
	if !reflect.DeepEqual(fails, wantFails) {
		t.Errorf("failures = %q, want %q", fails, wantFails)
	}
	wantResets := []string{"[flaky/1] failure", "[flaky/1] failure"}
	if !reflect.DeepEqual(resets, wantResets) {
		t.Errorf("resets = %q, want %q", resets, wantResets)
	}
	data, err := os.ReadFile(filepath.Join(dir, "out", "part-00000"))
	if err != nil {
		t.Fatal(err)
	}
	// sum keys by the value's identity: every number keyed by itself.
	if lines := strings.Count(string(data), "\n"); lines != 100 {
		t.Errorf("output lines = %d, want 100", lines)
	}
}

func TestRun_RestartLimitFailsJob(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec, err := ParseSpec("failing.yaml", []byte(fmt.Sprintf(failSpec, 3)))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Run(testenv.Context(t), spec, Options{Dir: dir, Seeded: true, Seed: 1})
	var jerr *JobError
	if !errors.As(err, &jerr) || jerr.Status != format.StatusFailed {
		t.Fatalf("err = %v, want a failed job", err)
	}
	if jerr.ExitCode() != 1 {
		t.Errorf("exit code = %d, want 1", jerr.ExitCode())
	}
	events := readLog(t, sum.Log)
	last := events[len(events)-1]
	if last.Kind != format.KindJobFinished || last.Status != format.StatusFailed || !strings.Contains(last.Error, "injected failure of attempt 2") {
		t.Fatalf("last event = %s, want job_finished failed naming the failure", eventKey(last))
	}
	if _, err := os.Stat(filepath.Join(dir, "jobevents-work", "failing")); !os.IsNotExist(err) {
		t.Errorf("partitions of the failed job left behind (stat: %v)", err)
	}
}

// gatedJob is a job whose second vertex waits at the gate named gate.
func gatedJob(t *testing.T, gate string) *Spec {
	t.Helper()
	spec, err := ParseSpec("gate.yaml", []byte(`job: gated
vertices:
  - {id: numbers, operator: sequence, args: {to: 9}, parallelism: 1}
  - {id: wait, operator: test_gate, args: {name: `+gate+`}, parallelism: 1}
edges:
  - {from: numbers, to: wait, pattern: pointwise}
`))
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

func TestRun_Cancel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := gatedJob(t, "cancel")
	entered, open := newGate("cancel")
	defer open()
	cancel := make(chan struct{})
	done := make(chan error, 1)
	var sum *Summary
	go func() {
		var err error
		sum, err = Run(testenv.Context(t), spec, Options{Dir: dir, Cancel: cancel})
		done <- err
	}()
	<-entered
	close(cancel)
	err := <-done
	var jerr *JobError
	if !errors.As(err, &jerr) || jerr.Status != format.StatusCanceled {
		t.Fatalf("err = %v, want a canceled job", err)
	}
	events := readLog(t, sum.Log)
	if last := events[len(events)-1]; last.Kind != format.KindJobFinished || last.Status != format.StatusCanceled {
		t.Fatalf("last event = %s, want job_finished canceled", eventKey(last))
	}
}

// TestRun_Fenced runs a master until a gate, claims the next epoch from
// outside (as a new master would), and checks that the old master stops at
// its next flush with a FencedError and that nothing it wrote after the
// claim counts.
func TestRun_Fenced(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec, err := ParseSpec("gate.yaml", []byte(`job: fenced
vertices:
  - {id: numbers, operator: sequence, args: {to: 9}, parallelism: 1}
  - {id: wait, operator: test_gate, args: {name: fenced}, parallelism: 1}
  - {id: sink, operator: sink, args: {output: out}, parallelism: 1}
edges:
  - {from: numbers, to: wait, pattern: pointwise}
  - {from: wait, to: sink, pattern: pointwise}
`))
	if err != nil {
		t.Fatal(err)
	}
	entered, open := newGate("fenced")
	defer open()
	url := "file://" + filepath.Join(dir, "log")
	done := make(chan error, 1)
	go func() {
		_, err := Run(testenv.Context(t), spec, Options{Dir: dir, Events: url})
		done <- err
	}()
	<-entered
	ctx := testenv.Context(t)
	l, err := blob.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	// The master does not wait for its flushes: wait until the start of
	// the gated attempt, its last event before the gate, is durable.
	var before []format.Event
	deadline := time.Now().Add(10 * time.Second)
	for len(before) == 0 || before[len(before)-1].Kind != format.KindSubtaskStarted || before[len(before)-1].Vertex != "wait" {
		if time.Now().After(deadline) {
			t.Fatalf("log never got the gated attempt's start: %d events", len(before))
		}
		time.Sleep(5 * time.Millisecond) // polling interval of the condition
		before = readLogMaybe(t, url)
	}
	if err := l.ClaimEpoch(ctx, blob.EpochInfo{Epoch: 2, Master: "usurper", StartSeq: before[len(before)-1].Seq + 1}); err != nil {
		t.Fatal(err)
	}
	open()
	err = <-done
	var fenced *FencedError
	if !errors.As(err, &fenced) {
		t.Fatalf("err = %v, want a FencedError", err)
	}
	after := readLog(t, url)
	if len(after) != len(before) {
		t.Fatalf("log has %d events after the claim, want the %d before it", len(after), len(before))
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "part-00000")); !os.IsNotExist(err) {
		t.Errorf("a fenced master committed output (stat: %v)", err)
	}
}

// TestRun_CancelAtStart asks for the cancel before the master starts: the
// first heartbeat sees it while the job is being submitted (a flush, a wait
// for workers), and the job must still end canceled, not in an error. The
// job waits at a gate that never opens, so it cannot finish first.
func TestRun_CancelAtStart(t *testing.T) {
	t.Parallel()
	spec := gatedJob(t, "cancel-at-start")
	_, open := newGate("cancel-at-start")
	defer open()
	for i := 0; i < 20; i++ {
		dir := t.TempDir()
		url := "file://" + filepath.Join(dir, "log")
		ctx := testenv.Context(t)
		l, err := blob.Create(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.RequestCancel(ctx, "test"); err != nil {
			t.Fatal(err)
		}
		l.Close()
		sum, err := Run(ctx, spec, Options{Dir: dir, Events: url})
		var jerr *JobError
		if !errors.As(err, &jerr) || jerr.Status != format.StatusCanceled {
			t.Fatalf("run %d: err = %v, want a canceled job", i, err)
		}
		if sum == nil || sum.Status != format.StatusCanceled {
			t.Fatalf("run %d: summary = %+v, want status canceled", i, sum)
		}
		events := readLog(t, url)
		if last := events[len(events)-1]; last.Kind != format.KindJobFinished || last.Status != format.StatusCanceled {
			t.Fatalf("run %d: last event = %s, want job_finished canceled", i, eventKey(last))
		}
	}
}
