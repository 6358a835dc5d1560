package main

import (
	"encoding/json"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestImport_RoundTrip(t *testing.T) {
	for _, name := range goodLogs {
		dir := t.TempDir()
		targets := map[string]string{
			"file":     "file://" + filepath.ToSlash(dir) + "/a?prefix=jobs/x/",
			"bare":     filepath.Join(dir, "b"),
			"mem":      uniqueMem("roundtrip-"+strings.TrimSuffix(name, ".jsonl")) + "?prefix=jobs/x/",
			"relative": relativeTo(t, filepath.Join(dir, "c")),
		}
		for kind, url := range targets {
			t.Run(name+"/"+kind, func(t *testing.T) {
				r := runCLI(t, "import", logPath(name), url).wantCode(t, 0)
				if !strings.HasPrefix(r.stderr, "imported ") || strings.Count(r.stderr, "\n") != 1 {
					t.Errorf("stderr = %q, want a one-line summary", r.stderr)
				}
				d := runCLI(t, "dump", url, "--format", "json").wantCode(t, 0)
				if want := readLog(t, name); d.stdout != want {
					t.Fatalf("import then dump of %s is not byte for byte:\n%s", name, d.stdout)
				}
			})
		}
	}
}

// relativeTo returns path relative to the working directory.
func relativeTo(t *testing.T, path string) string {
	t.Helper()
	wd, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, path)
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

func TestImport_Summary(t *testing.T) {
	dir := t.TempDir()
	r := runCLI(t, "import", logPath("failover.jsonl"), dir, "--format", "json").wantCode(t, 0)
	var sum importSummary
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil {
		t.Fatalf("stdout %q: %v", r.stdout, err)
	}
	if sum.Events != 33 || sum.Epochs != 2 || sum.Segments < 2 {
		t.Errorf("summary = %+v, want 33 events, 2 epochs, 2 or more segments", sum)
	}
	if r.stderr != "" {
		t.Errorf("stderr = %q, want nothing with --format json", r.stderr)
	}
}

func TestImport_Stdin(t *testing.T) {
	url := uniqueMem("import-stdin")
	runCLIWith(t, t.Context(), readLog(t, "running.jsonl"), "import", "-", url).wantCode(t, 0)
	d := runCLI(t, "dump", url, "--format", "json").wantCode(t, 0)
	if d.stdout != readLog(t, "running.jsonl") {
		t.Fatalf("import from stdin then dump differs:\n%s", d.stdout)
	}
}

func TestImport_Refused(t *testing.T) {
	dir := t.TempDir()
	runCLI(t, "import", logPath("healthy.jsonl"), dir).wantCode(t, 0)
	runCLI(t, "import", logPath("healthy.jsonl"), dir).wantOneLineError(t, 2, "already holds events")
}

func TestImport_BadInput(t *testing.T) {
	dir := t.TempDir()
	runCLI(t, "import", logPath("bad-syntax.jsonl"), filepath.Join(dir, "a")).
		wantOneLineError(t, 2, "bad-syntax.jsonl: line 5", `field "subtask"`)
	runCLIWith(t, t.Context(), `{"seq":1,"kind":"nosuch"}`+"\n", "import", "-", filepath.Join(dir, "b")).
		wantOneLineError(t, 2, "stdin: line 1")
	// Nothing is written when a line is bad, even after good ones.
	bad := uniqueMem("import-bad")
	runCLIWith(t, t.Context(), readLog(t, "healthy.jsonl")+`{"kind":"snapshot","coordinators":7}`+"\n", "import", "-", bad).
		wantOneLineError(t, 2, "stdin: line 30", `"coordinators"`)
	runCLI(t, "dump", bad).wantOneLineError(t, 2, "no event log at")
	runCLI(t, "dump", filepath.Join(dir, "a")).wantOneLineError(t, 2, "no event log at")
	runCLI(t, "import", filepath.Join(dir, "missing.jsonl"), filepath.Join(dir, "c")).
		wantOneLineError(t, 2, "missing.jsonl")
	runCLI(t, "import", logPath("healthy.jsonl"), "gopher://x").wantOneLineError(t, 2, "gopher")
}

// TestImport_TimeOutOfRange: a time that a segment cannot hold, found by
// the encoder rather than the reader, fails the import with one line that
// names the event once and writes nothing.
func TestImport_TimeOutOfRange(t *testing.T) {
	in := strings.Replace(readLog(t, "healthy.jsonl"), `{"seq":29,"time":"2026-12-02T10:00:02.524000000Z"`,
		`{"seq":29,"time":"2300-01-01T00:00:00Z"`, 1)
	dir := filepath.Join(t.TempDir(), "log")
	r := runCLIWith(t, t.Context(), in, "import", "-", dir)
	r.wantOneLineError(t, 2, "epoch 1: encode segment: seq 29: time 2300-01-01T00:00:00Z: time out of range")
	if n := strings.Count(r.stderr, "encode segment"); n != 1 {
		t.Errorf("stderr = %q says \"encode segment\" %d times, want once", r.stderr, n)
	}
	runCLI(t, "dump", dir).wantOneLineError(t, 2, "no event log at")
}

// TestRelaxGC: import raises the collector's target while it runs and puts
// the previous one back, and leaves it alone when GOGC is set.
func TestRelaxGC(t *testing.T) {
	t.Setenv("GOGC", "")
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	restore := relaxGC()
	if got := debug.SetGCPercent(importGCPercent); got != importGCPercent {
		t.Errorf("while importing the target is %d, want %d", got, importGCPercent)
	}
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("after import the target is %d, want 100 back", got)
	}

	t.Setenv("GOGC", "50")
	debug.SetGCPercent(50)
	relaxGC()()
	if got := debug.SetGCPercent(100); got != 50 {
		t.Errorf("with GOGC=50 import changed the target to %d", got)
	}
}

// TestImport_MemWarns: an import into mem:// says that the log is gone
// when the process exits, rather than vanishing without a word.
func TestImport_MemWarns(t *testing.T) {
	r := runCLI(t, "import", logPath("healthy.jsonl"), "mem://import-mem-warns").wantCode(t, 0)
	if !strings.Contains(r.stderr, "in-memory bucket") || !strings.Contains(r.stderr, "gone when import exits") || strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("stderr lacks the mem:// warning:\n%s", r.stderr)
	}
}
