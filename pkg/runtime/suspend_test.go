package runtime

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/internal/testenv"
	"github.com/jobevent/jobevent/pkg/format"
)

// runGated runs a gated job until an attempt waits at the gate, then ends
// its context; pause, when set, is the master's pause hook.
func runGated(t *testing.T, dir, gate string, opts Options, pause func(string)) (*Summary, error) {
	t.Helper()
	entered, open := newGate(gate)
	defer open()
	ctx, stop := context.WithCancel(context.Background())
	if pause != nil {
		ctx = withPause(ctx, pause)
	}
	opts.Dir = dir
	type result struct {
		sum *Summary
		err error
	}
	done := make(chan result, 1)
	go func() {
		sum, err := Run(ctx, gatedJob(t, gate), opts)
		done <- result{sum, err}
	}()
	<-entered
	stop()
	r := <-done
	return r.sum, r.err
}

// TestRun_Suspend ends the context of a running job: the master writes
// nothing more (no job_finished), the log stays resumable, and a resume
// finishes the job.
func TestRun_Suspend(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sum, err := runGated(t, dir, "suspend", Options{}, nil)
	var susp *SuspendedError
	if !errors.As(err, &susp) || sum == nil || sum.Status != "suspended" {
		t.Fatalf("err = %v, want a *SuspendedError and status suspended", err)
	}
	events := readLog(t, sum.Log)
	last := events[len(events)-1]
	if last.Kind == format.KindJobFinished {
		t.Fatalf("a suspended job wrote %s", eventKey(last))
	}
	if last.Seq != susp.Seq {
		t.Fatalf("last event seq %d, want the suspension's %d: the master wrote after it suspended", last.Seq, susp.Seq)
	}
	_, open := newGate("suspend")
	open()
	res, err := Run(testenv.Context(t), gatedJob(t, "suspend"), Options{Dir: dir, Resume: true})
	if err != nil || res.Status != format.StatusFinished || !res.Recovered {
		t.Fatalf("resume: %v, status %q, want finished in a new epoch", err, res.Status)
	}
}

// TestRun_CancelWhileSuspending closes Cancel while the master suspends
// (a second SIGINT): the job ends canceled.
func TestRun_CancelWhileSuspending(t *testing.T) {
	t.Parallel()
	cancel := make(chan struct{})
	pause := func(point string) {
		if point == "suspend" {
			close(cancel)
		}
	}
	sum, err := runGated(t, t.TempDir(), "suspend-cancel", Options{Cancel: cancel}, pause)
	var jerr *JobError
	if !errors.As(err, &jerr) || jerr.Status != format.StatusCanceled {
		t.Fatalf("err = %v, want a canceled job", err)
	}
	events := readLog(t, sum.Log)
	if last := events[len(events)-1]; last.Kind != format.KindJobFinished || last.Status != format.StatusCanceled {
		t.Fatalf("last event = %s, want job_finished canceled", eventKey(last))
	}
}

// textJob is a text source and a sink, reading input and writing output.
func textJob(t *testing.T, input, output string) *Spec {
	t.Helper()
	spec, err := ParseSpec("text.yaml", []byte("job: textjob\nvertices:\n"+
		"  - {id: src, operator: text, args: {input: "+input+"}, parallelism: 1}\n"+
		"  - {id: sink, operator: sink, args: {output: "+output+"}, parallelism: 1}\n"+
		"edges:\n  - {from: src, to: sink, pattern: pointwise}\n"))
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

func writeInput(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "in"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "in", "a.txt"), []byte("to be or not to be\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRun_CannotStart: a missing input, or an output that takes no writes,
// is refused before anything is written.
func TestRun_CannotStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeInput(t, dir)
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, input, output, want string }{
		{"missing input", "nosuch", "out", "nosuch"},
		{"output under a file", "in", "file/out", "file/out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			events := filepath.Join(t.TempDir(), "log")
			_, err := Run(testenv.Context(t), textJob(t, tc.input, tc.output), Options{Dir: dir, Events: events})
			var serr *StartError
			if !errors.As(err, &serr) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want a *StartError naming %s", err, tc.want)
			}
			if got := readLogMaybe(t, "file://"+events); len(got) != 0 {
				t.Fatalf("a job that cannot start wrote %d events", len(got))
			}
			if _, err := os.Stat(filepath.Join(events, "job.yaml")); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("a job that cannot start wrote job.yaml: %v", err)
			}
			if _, err := os.Stat(events); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("a job that cannot start left its log directory behind: %v", err)
			}
			// The default log, file://<dir>/jobevents?prefix=<job>/, in
			// the embedded runtime and in a master process alike.
			cwd := t.TempDir()
			if _, err := Run(testenv.Context(t), textJob(t, tc.input, tc.output), Options{Dir: cwd}); !errors.As(err, &serr) {
				t.Fatalf("err = %v, want a *StartError", err)
			}
			url := "file://" + filepath.Join(cwd, "master") + "?prefix=textjob/"
			if _, err := RunMaster(testenv.Context(t), MasterOptions{Spec: textJob(t, tc.input, tc.output), Events: url, Token: "t", Dir: dir}); !errors.As(err, &serr) {
				t.Fatalf("master: err = %v, want a *StartError", err)
			}
			if left, _ := os.ReadDir(cwd); len(left) != 0 {
				t.Fatalf("a job that cannot start left %v in the working directory", left)
			}
		})
	}
}

// TestRun_FailsAfterStart removes the input after the job's first events
// are written and before its source lists it: the job ends with
// job_finished failed, in the embedded runtime and in a master process
// alike.
func TestRun_FailsAfterStart(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"embedded", "process"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			writeInput(t, dir)
			removed := false
			ctx := withPause(testenv.Context(t), func(point string) {
				if strings.HasPrefix(point, "upload ") && !removed {
					removed = true
					if err := os.RemoveAll(filepath.Join(dir, "in")); err != nil {
						t.Error(err)
					}
				}
			})
			events := "file://" + filepath.Join(dir, "log")
			var err error
			if mode == "embedded" {
				_, err = Run(ctx, textJob(t, "in", "out"), Options{Dir: dir, Events: events})
			} else {
				_, err = RunMaster(ctx, MasterOptions{Spec: textJob(t, "in", "out"), Events: events, Token: "t", Dir: dir})
			}
			var jerr *JobError
			if !errors.As(err, &jerr) || jerr.Status != format.StatusFailed || jerr.ExitCode() != 1 {
				t.Fatalf("err = %v, want a failed job (exit 1)", err)
			}
			got := readLog(t, events)
			if last := got[len(got)-1]; last.Kind != format.KindJobFinished || last.Status != format.StatusFailed {
				t.Fatalf("last event = %s, want job_finished failed", eventKey(last))
			}
		})
	}
}

// TestRun_OutputOwned: a job of another log is refused before it starts
// when its sink would commit over the first log's output, unless
// OverwriteOutput; the marker then names the new log.
func TestRun_OutputOwned(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeInput(t, dir)
	first, err := Run(testenv.Context(t), textJob(t, "in", "out"), Options{Dir: dir, Events: filepath.Join(dir, "log1")})
	if err != nil {
		t.Fatal(err)
	}
	second := "file://" + filepath.Join(dir, "log2")
	_, err = Run(testenv.Context(t), textJob(t, "in", "out"), Options{Dir: dir, Events: second})
	var serr *StartError
	if !errors.As(err, &serr) || !errors.Is(err, ErrOutputOwned) || !strings.Contains(err.Error(), first.Log) {
		t.Fatalf("err = %v, want a *StartError: the output belongs to %s", err, first.Log)
	}
	if got := readLogMaybe(t, second); len(got) != 0 {
		t.Fatalf("the refused job wrote %d events", len(got))
	}
	sum, err := Run(testenv.Context(t), textJob(t, "in", "out"), Options{Dir: dir, Events: second, OverwriteOutput: true})
	if err != nil {
		t.Fatal(err)
	}
	marker, err := os.ReadFile(filepath.Join(dir, "out", OutputMarker))
	if err != nil || !strings.Contains(string(marker), sum.Log) {
		t.Fatalf("marker %q (%v), want it to name %s", marker, err, sum.Log)
	}
}
