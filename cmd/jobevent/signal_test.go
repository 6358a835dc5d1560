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
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/runtime"
)

// proc is a jobevent process of a test, run under the test's deadline.
type proc struct {
	cmd            *exec.Cmd
	mu             sync.Mutex
	stdout, stderr bytes.Buffer
}

type procWriter struct {
	p *proc
	b *bytes.Buffer
}

func (w procWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	return w.b.Write(b)
}

// startProc starts "jobevent args..." in dir, with JOBEVENT_TOKEN=s3cret.
func startProc(t *testing.T, ctx context.Context, dir string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.CommandContext(ctx, buildBinary(t), args...)}
	p.cmd.Dir = dir
	p.cmd.Env = append(os.Environ(), "JOBEVENT_TOKEN=s3cret")
	p.cmd.Stdout, p.cmd.Stderr = procWriter{p, &p.stdout}, procWriter{p, &p.stderr}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			p.cmd.Wait()
		}
	})
	return p
}

// wait waits for the process and returns its exit code and output.
func (p *proc) wait(t *testing.T) result {
	t.Helper()
	err := p.cmd.Wait()
	var exit *exec.ExitError
	code := 0
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return result{code: code, stdout: p.stdout.String(), stderr: p.stderr.String()}
}

// runProc runs "jobevent args..." in dir to its end.
func runProc(t *testing.T, ctx context.Context, dir string, args ...string) result {
	t.Helper()
	return startProc(t, ctx, dir, args...).wait(t)
}

// logEvents reads the log at url as it is now (nil before it exists).
func logEvents(t *testing.T, url string) []format.Event {
	t.Helper()
	c := &procCluster{t: t, log: url}
	return c.events()
}

// waitForEvents polls the log until cond holds or ctx ends.
func waitForEvents(t *testing.T, ctx context.Context, url, what string, cond func([]format.Event) bool) {
	t.Helper()
	for !cond(logEvents(t, url)) {
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		case <-time.After(10 * time.Millisecond): // the polling interval, not a wait for the condition
		}
	}
}

// checkCounts checks the output of slowJob under dir/out: 10000 keys,
// each counted 4 times.
func checkCounts(t *testing.T, dir string) {
	t.Helper()
	keys := 0
	for _, part := range []string{"part-00000", "part-00001"} {
		data, err := os.ReadFile(filepath.Join(dir, "out", part))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			k, v, _ := strings.Cut(line, "\t")
			if _, err := strconv.Atoi(k); err != nil || v != "4" {
				t.Fatalf("output line %q, want <key>\\t4", line)
			}
			keys++
		}
	}
	if keys != 10000 {
		t.Fatalf("output has %d keys, want 10000", keys)
	}
}

// signalLayout writes slowJob into base/spec and makes two working
// directories, base/cwd1 and base/cwd2.
func signalLayout(t *testing.T) (base, spec string) {
	t.Helper()
	base = t.TempDir()
	for _, d := range []string{"spec", "cwd1", "cwd2"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	spec = filepath.Join(base, "spec", "slowjob.yaml")
	if err := os.WriteFile(spec, []byte(fmt.Sprintf(slowJob, "10s")), 0o644); err != nil {
		t.Fatal(err)
	}
	return base, spec
}

func hasJobFinished(events []format.Event) bool {
	for _, e := range events {
		if e.Kind == format.KindJobFinished {
			return true
		}
	}
	return false
}

// TestProcess_SigintSuspendsRun sends SIGINT to a real `jobevent run`
// while attempts run: it exits 130 with one line saying how to resume or
// cancel, writes no job_finished, and a resume from another working
// directory keeps the finished work and finishes with the right output
// beside the spec.
func TestProcess_SigintSuspendsRun(t *testing.T) {
	base, _ := signalLayout(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	logURL := "file://" + filepath.Join(base, "log")
	work := filepath.Join(base, "work")
	p := startProc(t, ctx, filepath.Join(base, "cwd1"), "run", "../spec/slowjob.yaml", "--events", logURL, "--work-dir", work)
	waitForEvents(t, ctx, logURL, "the slow stage to run", slowRunning)
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	r := p.wait(t)
	r.wantOneLineError(t, 130, "suspended by SIGINT", "--resume", "jobevent cancel")
	if r.stdout != "" {
		t.Errorf("a suspended run printed %q", r.stdout)
	}
	if events := logEvents(t, logURL); hasJobFinished(events) {
		t.Fatal("the suspended run wrote job_finished")
	}
	r = runProc(t, ctx, filepath.Join(base, "cwd2"), "run", "../spec/slowjob.yaml", "--events", logURL, "--work-dir", work, "--resume")
	r.wantCode(t, 0)
	if !strings.Contains(r.stdout, "recovered in epoch 2: plan kept") || strings.Contains(r.stdout, "plan kept 0,") {
		t.Fatalf("resume summary %q, want a recovery that kept the finished work", r.stdout)
	}
	checkCounts(t, filepath.Join(base, "spec"))
}

// TestProcess_SigtermSuspendsMaster sends SIGTERM to a real `jobevent
// master`: it exits 143 and writes no job_finished; its workers keep their
// partitions and serve the resumed master, which keeps the finished work.
func TestProcess_SigtermSuspendsMaster(t *testing.T) {
	base, spec := signalLayout(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	logURL := "file://" + filepath.Join(base, "log")
	var workers []*proc
	for _, w := range []string{"w1", "w2"} {
		workers = append(workers, startProc(t, ctx, base, "worker", "--events", logURL, "--dir", filepath.Join(base, "work", w), "--name", w))
	}
	m := startProc(t, ctx, filepath.Join(base, "cwd1"), "master", spec, "--events", logURL)
	waitForEvents(t, ctx, logURL, "the slow stage to run", slowRunning)
	if err := m.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	r := m.wait(t)
	if r.code != 143 || !strings.Contains(r.stderr, "suspended by SIGTERM") || !strings.Contains(r.stderr, "jobevent master --events") {
		t.Fatalf("master = exit %d, stderr %q; want 143 and the suspension line", r.code, r.stderr)
	}
	if hasJobFinished(logEvents(t, logURL)) {
		t.Fatal("the suspended master wrote job_finished")
	}
	r = runProc(t, ctx, filepath.Join(base, "cwd2"), "master", "--events", logURL, "--resume")
	r.wantCode(t, 0)
	if !strings.Contains(r.stdout, "recovered in epoch 2: plan kept") || strings.Contains(r.stdout, "plan kept 0,") {
		t.Fatalf("resume summary %q, want a recovery that kept the workers' partitions", r.stdout)
	}
	for _, w := range workers {
		if got := w.wait(t); got.code != 0 {
			t.Fatalf("worker exit %d: %s", got.code, got.stderr)
		}
	}
	checkCounts(t, filepath.Join(base, "spec"))
}

// TestInterrupts: the first signal ends the context, a second SIGINT (not
// a SIGTERM) asks to cancel, and the exit code follows the first signal.
func TestInterrupts(t *testing.T) {
	for _, tc := range []struct {
		sigs     []os.Signal
		canceled bool
		code     int
	}{
		{[]os.Signal{syscall.SIGINT}, false, 130},
		{[]os.Signal{syscall.SIGTERM}, false, 143},
		{[]os.Signal{syscall.SIGTERM, syscall.SIGTERM}, false, 143},
		{[]os.Signal{syscall.SIGINT, syscall.SIGINT}, true, 130},
		{[]os.Signal{syscall.SIGTERM, syscall.SIGINT}, true, 143},
	} {
		in := &interrupts{cancel: make(chan struct{})}
		for i, s := range tc.sigs {
			if first := in.note(s); first != (i == 0) {
				t.Fatalf("%v: signal %d reported first = %v", tc.sigs, i, first)
			}
		}
		if in.canceled() != tc.canceled || in.exitCode() != tc.code {
			t.Errorf("%v: canceled %v, exit %d; want %v, %d", tc.sigs, in.canceled(), in.exitCode(), tc.canceled, tc.code)
		}
	}
	sigs := make(chan os.Signal, 1)
	ctx, stop := withInterrupts(context.Background(), sigs)
	defer stop()
	sigs <- syscall.SIGINT
	<-ctx.Done()
	if interruptsOf(ctx).signal() != syscall.SIGINT {
		t.Fatalf("signal = %v, want SIGINT", interruptsOf(ctx).signal())
	}
}

// TestRun_CannotStart: a job whose input is missing, or whose output
// takes no writes, is refused with one line and exit 2, before anything
// is written: no log that looks alive, and a corrected run is not refused.
func TestRun_CannotStart(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, input, output, want string }{
		{"missing input", "nosuch", "out", "nosuch"},
		{"output under a file", "in", "file/out", "file/out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".yaml")
			writeTextSpec(t, spec, tc.input, tc.output)
			logURL := "file://" + filepath.Join(t.TempDir(), "log")
			runCLI(t, "run", spec, "--events", logURL).wantOneLineError(t, 2, "cannot start", tc.want)
			l, err := blob.Open(context.Background(), logURL)
			if err == nil {
				exists, _ := l.Exists(context.Background())
				l.Close()
				if exists {
					t.Fatal("a job that cannot start left a log behind")
				}
			}
			writeTextSpec(t, spec, "in", "out-"+strings.ReplaceAll(tc.name, " ", "-"))
			if err := os.MkdirAll(filepath.Join(dir, "in"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "in", "a.txt"), []byte("a b a\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			runCLI(t, "run", spec, "--events", logURL, "--work-dir", filepath.Join(dir, "work")).wantCode(t, 0)
		})
	}
}

// writeTextSpec writes a text-to-sink job reading input and writing output.
func writeTextSpec(t *testing.T, path, input, output string) {
	t.Helper()
	spec := "job: textjob\nvertices:\n" +
		"  - {id: src, operator: text, args: {input: " + input + "}, parallelism: 1}\n" +
		"  - {id: sink, operator: sink, args: {output: " + output + "}, parallelism: 1}\n" +
		"edges:\n  - {from: src, to: sink, pattern: pointwise}\n"
	if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyTestdata copies the repository's testdata/jobs/wordcount.yaml and
// testdata/text into dir/testdata, keeping their layout.
func copyTestdata(t *testing.T, dir string) {
	t.Helper()
	for _, f := range []string{"jobs/wordcount.yaml", "text/01-recovery.txt", "text/02-partitions.txt", "text/03-sources.txt"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, "testdata", f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readDir returns the files of dir by name (dot files left out).
func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(data)
	}
	return out
}

// TestRun_FromAnyDirectory runs testdata/jobs/wordcount.yaml from a
// working directory that is not the repository root, crashes it, and
// resumes it (with --resume, then a replay of the finished job) from
// another: its relative paths are the spec file's, stored resolved in the
// log's job.yaml, and the output is a clean run's.
func TestRun_FromAnyDirectory(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	clean, crashed := t.TempDir(), t.TempDir()
	copyTestdata(t, clean)
	copyTestdata(t, crashed)
	runProc(t, ctx, clean, "run", "testdata/jobs/wordcount.yaml").wantCode(t, 0)
	want := readDir(t, filepath.Join(clean, "testdata", "jobs", "jobevents-out", "wordcount"))

	cwd1, cwd2 := t.TempDir(), t.TempDir()
	spec := filepath.Join(crashed, "testdata", "jobs", "wordcount.yaml")
	logURL := "file://" + filepath.Join(crashed, "log")
	work := filepath.Join(crashed, "work")
	runProc(t, ctx, cwd1, "run", spec, "--events", logURL, "--work-dir", work, "--seed", "4", "--crash-after-seq", "12").wantCode(t, 3)
	l, err := blob.Open(ctx, logURL)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := l.ReadSpec(ctx)
	l.Close()
	if err != nil {
		t.Fatal(err)
	}
	if text := filepath.Join(crashed, "testdata", "text"); !strings.Contains(string(stored), text) {
		t.Fatalf("job.yaml does not name the input %s:\n%s", text, stored)
	}
	runProc(t, ctx, cwd2, "run", "--events", logURL, "--work-dir", work, "--resume", spec).wantCode(t, 0)
	runProc(t, ctx, cwd1, "replay", logURL).wantCode(t, 0)
	got := readDir(t, filepath.Join(crashed, "testdata", "jobs", "jobevents-out", "wordcount"))
	if len(got) == 0 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("output after the resume from another directory:\n%v\nwant the clean run's:\n%v", got, want)
	}
	for _, cwd := range []string{cwd1, cwd2} {
		if _, err := os.Stat(filepath.Join(cwd, "jobevents-out")); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("output written under the working directory %s", cwd)
		}
	}
}

// TestRun_OutputOfAnotherLog: a run whose sink would commit over the
// output another log committed is refused before it starts, naming that
// log and the flag; with --overwrite-output it runs, and its summary says
// where the output went.
func TestRun_OutputOfAnotherLog(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "job.yaml")
	writeTextSpec(t, spec, "in", "out")
	if err := os.MkdirAll(filepath.Join(dir, "in"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "in", "a.txt"), []byte("a b a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(dir, "work")
	first := "file://" + filepath.Join(dir, "log1")
	runCLI(t, "run", spec, "--events", first, "--work-dir", work).wantCode(t, 0)
	second := "file://" + filepath.Join(dir, "log2")
	runCLI(t, "run", spec, "--events", second, "--work-dir", work).wantOneLineError(t, 2, "cannot start", filepath.Join(dir, "log1"), "--overwrite-output")
	r := runCLI(t, "run", spec, "--events", second, "--work-dir", work, "--overwrite-output").wantCode(t, 0)
	if !strings.Contains(r.stdout, "output        "+filepath.Join(dir, "out")) {
		t.Fatalf("summary %q, want it to name the output %s", r.stdout, filepath.Join(dir, "out"))
	}
	// The first log's job is the other one now.
	runCLI(t, "run", spec, "--events", first, "--work-dir", work, "--resume").wantCode(t, 0)
}

// TestRun_SecondSigintCancels: a second SIGINT before the master has
// suspended the job cancels it: job_finished canceled, exit 1.
func TestRun_SecondSigintCancels(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "slow.yaml")
	if err := os.WriteFile(spec, []byte(fmt.Sprintf(napJob, filepath.Join(dir, "out"))), 0o644); err != nil {
		t.Fatal(err)
	}
	logURL := "file://" + filepath.ToSlash(filepath.Join(dir, "log"))
	deadline, stop := context.WithTimeout(context.Background(), time.Minute)
	defer stop()
	in := &interrupts{cancel: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.WithValue(deadline, interruptsKey{}, in))
	defer cancel()
	done := make(chan result, 1)
	go func() {
		done <- runCLIWith(t, ctx, "", "run", spec, "--events", logURL, "--work-dir", filepath.Join(dir, "work"))
	}()
	waitForEvents(t, deadline, logURL, "the nap stage to run", func(events []format.Event) bool {
		for _, e := range events {
			if e.Kind == format.KindSubtaskStarted && e.Vertex == "nap" {
				return true
			}
		}
		return false
	})
	in.note(syscall.SIGINT)
	in.note(syscall.SIGINT)
	cancel()
	var r result
	select {
	case r = <-done:
	case <-deadline.Done():
		t.Fatal("run did not stop")
	}
	if r.code != 1 || !strings.Contains(r.stdout+r.stderr, "canceled") {
		t.Fatalf("run = exit %d, stdout %q, stderr %q; want exit 1, canceled", r.code, r.stdout, r.stderr)
	}
	events := logEvents(t, logURL)
	if last := events[len(events)-1]; last.Kind != format.KindJobFinished || last.Status != format.StatusCanceled {
		t.Fatalf("last event %s %s, want job_finished canceled", last.Kind, last.Status)
	}
}

// TestEndBySignal_SecondSigintAfterSuspension: a second SIGINT that comes
// once the master has suspended the job (before the process exits)
// cancels the job in the log, in a new epoch.
func TestEndBySignal_SecondSigintAfterSuspension(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "slow.yaml")
	if err := os.WriteFile(spec, []byte(fmt.Sprintf(napJob, filepath.Join(dir, "out"))), 0o644); err != nil {
		t.Fatal(err)
	}
	logURL := "file://" + filepath.ToSlash(filepath.Join(dir, "log"))
	deadline, stop := context.WithTimeout(context.Background(), time.Minute)
	defer stop()
	in := &interrupts{cancel: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.WithValue(deadline, interruptsKey{}, in))
	defer cancel()
	done := make(chan result, 1)
	go func() {
		done <- runCLIWith(t, ctx, "", "run", spec, "--events", logURL, "--work-dir", filepath.Join(dir, "work"))
	}()
	waitForEvents(t, deadline, logURL, "the nap stage to run", func(events []format.Event) bool {
		for _, e := range events {
			if e.Kind == format.KindSubtaskStarted && e.Vertex == "nap" {
				return true
			}
		}
		return false
	})
	in.note(syscall.SIGINT)
	cancel()
	r := <-done
	r.wantOneLineError(t, 130, "suspended by SIGINT")
	// The same end, had the second SIGINT come before the process exited.
	in.note(syscall.SIGINT)
	app := newApp(io.Discard, io.Discard)
	c := cli.NewContext(app, nil, nil)
	c.Context = ctx
	err := endBySignal(c, logURL, nil, "", &runtime.SuspendedError{Job: "slow", Epoch: 1})
	var jerr *runtime.JobError
	if !errors.As(err, &jerr) || jerr.Status != format.StatusCanceled || exitCode(err) != 1 {
		t.Fatalf("err = %v, want a canceled job (exit 1)", err)
	}
	events := logEvents(t, logURL)
	if last := events[len(events)-1]; last.Kind != format.KindJobFinished || last.Status != format.StatusCanceled || last.Epoch != 2 {
		t.Fatalf("last event %s %s in epoch %d, want job_finished canceled in epoch 2", last.Kind, last.Status, last.Epoch)
	}
}
