package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobevent/jobevent/internal/testenv"
)

// TestRun_HostileSpec: a spec of 100,000 nested brackets (its parse would
// take gigabytes) and a spec over the size limit are refused with one
// line, before anything is written.
func TestRun_HostileSpec(t *testing.T) {
	dir := t.TempDir()
	deep := filepath.Join(dir, "deep.yaml")
	os.WriteFile(deep, []byte("job: deep\nvertices: "+strings.Repeat("[", 100_000)+strings.Repeat("]", 100_000)+"\n"), 0o644)
	log := filepath.Join(dir, "log")
	runCLI(t, "run", deep, "--events", log).wantOneLineError(t, 2, "deep.yaml:2", "nests more than 64 levels")
	if _, err := os.Stat(log); !os.IsNotExist(err) {
		t.Fatalf("stat %s: %v, want no log written", log, err)
	}
	big := filepath.Join(dir, "big.yaml")
	os.WriteFile(big, []byte("job: big\n# "+strings.Repeat("x", 2<<20)+"\n"), 0o644)
	runCLI(t, "run", big, "--events", log).wantOneLineError(t, 2, "big.yaml", "larger than the limit")
}

// TestCLI_SilentInputsRefused: inputs that used to be accepted in silence
// get one line and exit 2.
func TestCLI_SilentInputsRefused(t *testing.T) {
	dir := t.TempDir()
	good := logPath("healthy.jsonl")
	for _, d := range []string{"0", "0s", "-1s"} {
		runCLI(t, "dump", good, "--poll-interval", d).wantOneLineError(t, 2, "--poll-interval", "positive")
		runCLI(t, "status", good, "--heartbeat-timeout", d).wantOneLineError(t, 2, "--heartbeat-timeout", "positive")
	}

	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, nil, 0o644)
	out := filepath.Join(dir, "out")
	runCLI(t, "import", empty, out).wantOneLineError(t, 2, "empty.jsonl holds no events")
	runCLIWith(t, testenv.Context(t), "\n\n", "import", "-", out).wantOneLineError(t, 2, "stdin holds no events")
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("stat %s: %v, want nothing created", out, err)
	}
	outJSONL := filepath.Join(dir, "out.jsonl")
	runCLI(t, "import", good, outJSONL).wantOneLineError(t, 2, "out.jsonl", "JSONL file name")
	if _, err := os.Stat(outJSONL); !os.IsNotExist(err) {
		t.Fatalf("stat %s: %v, want nothing created", outJSONL, err)
	}

	spec := filepath.Join(dir, "overflow.yaml")
	os.WriteFile(spec, []byte("job: o\nvertices:\n  - {id: s, operator: sequence, args: {to: 3}, parallelism: 1}\nsettings:\n  heartbeat.timeout: 106752 days\n"), 0o644)
	runCLI(t, "run", spec, "--events", filepath.Join(dir, "log")).wantOneLineError(t, 2, "overflow.yaml:5", "heartbeat.timeout", "out of range")
}

// TestDump_SeqBelowOne: a JSONL event whose seq is below 1, written so or
// implied (a missing seq after the largest one), is refused by dump rather
// than left out; validate still reports it as a finding.
func TestDump_SeqBelowOne(t *testing.T) {
	lines := strings.SplitAfter(readLog(t, "healthy.jsonl"), "\n")
	dir := t.TempDir()
	for name, second := range map[string]string{
		"negative": strings.Replace(lines[1], `"seq":2,`, `"seq":-5,`, 1),
		"zero":     strings.Replace(lines[1], `"seq":2,`, `"seq":0,`, 1),
		"overflow": strings.Replace(lines[1], `"seq":2,`, `"seq":9223372036854775807,`, 1) + strings.Replace(lines[2], `"seq":3,`, "", 1),
	} {
		path := filepath.Join(dir, name+".jsonl")
		os.WriteFile(path, []byte(lines[0]+second), 0o644)
		r := runCLI(t, "dump", path)
		r.wantOneLineError(t, 2, name+".jsonl", "want a seq >= 1")
		if r.stdout != "" {
			t.Errorf("%s: stdout = %q, want nothing printed", name, r.stdout)
		}
		runCLI(t, "validate", path).wantCode(t, 1)
	}
}

// TestCompact_Quiet: --quiet prints no report.
func TestCompact_Quiet(t *testing.T) {
	dir := t.TempDir()
	writeSegments(t, dir, readEvents(t, "healthy.jsonl"), 5, 10, 15)
	if r := runCLI(t, "compact", dir, "--quiet").wantCode(t, 0); r.stdout != "" || r.stderr != "" {
		t.Fatalf("compact --quiet printed stdout %q, stderr %q; want nothing", r.stdout, r.stderr)
	}
	runCLI(t, "validate", dir).wantCode(t, 0)
}

// TestDump_FollowWaitsForLog: dump --follow started before its log exists
// says so once on stderr and prints the events once they are written.
func TestDump_FollowWaitsForLog(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "later")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	fctx, stop := context.WithCancel(ctx)
	defer stop()
	out, errb := newSyncBuffer(), newSyncBuffer()
	done := make(chan int, 1)
	go func() {
		done <- runMain(fctx, []string{"jobevent", "dump", dir, "--follow", "--poll-interval", "5ms", "--format", "json"},
			strings.NewReader(""), out, errb)
	}()
	waitFor(t, errb, "waiting for it to appear")
	writeSegments(t, dir, readEvents(t, "healthy.jsonl"))
	waitFor(t, out, `"kind":"job_finished"`)
	stop()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit code = %d after interrupt, want 0; stderr: %s", code, errb.String())
		}
	case <-ctx.Done():
		t.Fatal("dump --follow did not stop when interrupted")
	}
	if want := readLog(t, "healthy.jsonl"); out.String() != want {
		t.Fatalf("followed output differs from the log:\n%s", out.String())
	}
	if n := strings.Count(errb.String(), "\n"); n != 1 {
		t.Fatalf("stderr = %q, want one notice", errb.String())
	}
}

// TestMaster_StandbyWaitsForJob: master --resume --standby on a log no
// master has written says that it waits for a job.
func TestMaster_StandbyWaitsForJob(t *testing.T) {
	t.Setenv("JOBEVENT_TOKEN", "t")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	mctx, stop := context.WithCancel(ctx)
	defer stop()
	errb := newSyncBuffer()
	done := make(chan int, 1)
	log := filepath.Join(t.TempDir(), "nothing-here")
	go func() {
		done <- runMain(mctx, []string{"jobevent", "master", "--events", log, "--resume", "--standby", "--listen", "127.0.0.1:0"},
			strings.NewReader(""), io.Discard, errb)
	}()
	waitFor(t, errb, "no job in")
	waitFor(t, errb, "waiting for a master to submit one")
	stop()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("master --standby did not stop when interrupted")
	}
}

// TestRun_UnboundedSpec: valid jobs too large to run in bounds (two
// 32,768-wide vertices joined all-to-all, a sequence of 1,048,576 splits)
// are refused up front, naming the setting that raises the limit.
func TestRun_UnboundedSpec(t *testing.T) {
	dir := t.TempDir()
	for name, spec := range map[string]string{
		"wide.yaml": "job: wide\nvertices:\n  - {id: a, operator: sequence, args: {to: 70000}, parallelism: 32768}\n" +
			"  - {id: b, operator: count, parallelism: 32768}\nedges:\n  - {from: a, to: b, pattern: all_to_all}\n",
		"splits.yaml": "job: splits\nvertices:\n  - {id: a, operator: sequence, args: {to: 2000000, splits: 1048576}, parallelism: 2}\n",
	} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(spec), 0o644)
		log := filepath.Join(dir, "log-"+name)
		runCLI(t, "run", path, "--events", log).wantOneLineError(t, 2, name, "job-event.limits.max-")
		if _, err := os.Stat(log); !os.IsNotExist(err) {
			t.Fatalf("stat %s: %v, want no log written", log, err)
		}
	}
}

func TestReplay_PointsWithoutSweep(t *testing.T) {
	runCLI(t, "replay", logPath("failover.jsonl"), "--dry-run", "--points", "5").wantOneLineError(t, 2, "--points applies to --sweep only")
	runCLI(t, "replay", logPath("failover.jsonl"), "--dry-run", "--sweep", "--points", "5").wantCode(t, 0)
}

func TestWorker_MasterNotAnAddress(t *testing.T) {
	runCLI(t, "worker", "--events", t.TempDir(), "--dir", t.TempDir(), "--token", "t", "--master", "embedded").
		wantOneLineError(t, 2, `--master "embedded" is not an address`)
}
