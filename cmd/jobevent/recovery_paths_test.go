package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// ownedLayout is signalLayout whose output directory (spec/out) already
// holds another log's committed output, so that only --overwrite-output
// lets the job run.
func ownedLayout(t *testing.T) (base, spec string) {
	t.Helper()
	base, spec = signalLayout(t)
	out := filepath.Join(base, "spec", "out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	marker := `{"log":"file:///elsewhere/log","job":"slowjob"}`
	if err := os.WriteFile(filepath.Join(out, ".jobevent-output"), []byte(marker), 0o644); err != nil {
		t.Fatal(err)
	}
	return base, spec
}

// dryRun runs `jobevent replay LOG --dry-run --format json` in dir (at seq
// at, when positive) and returns the plan it printed.
func dryRun(t *testing.T, ctx context.Context, dir, logURL string, at int64) *replay.RecoveryPlan {
	t.Helper()
	args := []string{"replay", logURL, "--dry-run", "--format", "json"}
	if at > 0 {
		args = append(args, "--at", strconv.FormatInt(at, 10))
	}
	r := runProc(t, ctx, dir, args...)
	r.wantCode(t, 0)
	var plan replay.RecoveryPlan
	if err := json.Unmarshal([]byte(r.stdout), &plan); err != nil {
		t.Fatalf("dry run output %q: %v", r.stdout, err)
	}
	if plan.Summary.Keep == 0 {
		t.Fatalf("the dry run keeps nothing: %s", r.stdout)
	}
	return &plan
}

// checkRecovered checks that epoch 2 of the log started exactly what plan
// predicted and that the output beside the spec is right.
func checkRecovered(t *testing.T, base, logURL string, plan *replay.RecoveryPlan) {
	t.Helper()
	c := &procCluster{t: t, dir: filepath.Join(base, "spec"), log: logURL}
	c.checkPrediction(plan, 2)
}

// resumeLine is the command that the one line of a suspended run names.
var resumeLine = regexp.MustCompile("resume it with `([^`]+)`")

// TestRecoveryPaths_OverwriteOutputAndWorkDir: a job submitted from one
// working directory with --overwrite-output and a relative --work-dir is
// killed (kill -9; SIGINT for the printed line), then recovered from
// another working directory by each path — `run --resume`, `replay LOG`,
// the line printed on suspend — without repeating a flag: none is refused,
// and each starts exactly what the dry run printed (which keeps the
// finished work whose partitions are in the recorded work dir).
func TestRecoveryPaths_OverwriteOutputAndWorkDir(t *testing.T) {
	for _, path := range []string{"run --resume", "replay LOG", "printed line"} {
		t.Run(strings.ReplaceAll(path, " ", "_"), func(t *testing.T) {
			base, _ := ownedLayout(t)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			logURL := "file://" + filepath.Join(base, "log")
			cwd1, cwd2 := filepath.Join(base, "cwd1"), filepath.Join(base, "cwd2")
			p := startProc(t, ctx, cwd1, "run", "../spec/slowjob.yaml", "--events", logURL, "--work-dir", "work", "--overwrite-output")
			waitForEvents(t, ctx, logURL, "the slow stage to run", slowRunning)
			sig := syscall.SIGKILL
			if path == "printed line" {
				sig = syscall.SIGINT
			}
			if err := p.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			first := p.wait(t)
			plan := dryRun(t, ctx, cwd2, logURL, 0)
			var r result
			switch path {
			case "run --resume":
				r = runProc(t, ctx, cwd2, "run", "../spec/slowjob.yaml", "--events", logURL, "--resume")
			case "replay LOG":
				r = runProc(t, ctx, cwd2, "replay", logURL)
			case "printed line":
				m := resumeLine.FindStringSubmatch(first.stderr)
				if m == nil {
					t.Fatalf("suspended run said %q, want a resume line", first.stderr)
				}
				args := strings.Fields(m[1])
				if args[0] != "jobevent" {
					t.Fatalf("resume line %q", m[1])
				}
				r = runProc(t, ctx, cwd2, args[1:]...)
			}
			r.wantCode(t, 0)
			if strings.Contains(r.stderr, "partitions of finished subtasks") {
				t.Errorf("the recovery found none of the recorded partitions:\n%s", r.stderr)
			}
			checkRecovered(t, base, logURL, plan)
		})
	}
}

// TestRecoveryPaths_Standby: a master submitted with --overwrite-output
// is killed (kill -9); a standby started from another working directory,
// without the flag, takes over and starts exactly what the dry run of the
// log at the kill predicted.
func TestRecoveryPaths_Standby(t *testing.T) {
	base, _ := ownedLayout(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	logURL := "file://" + filepath.Join(base, "log")
	for _, w := range []string{"w1", "w2"} {
		startProc(t, ctx, base, "worker", "--events", logURL, "--dir", filepath.Join(base, "work", w), "--name", w)
	}
	m := startProc(t, ctx, filepath.Join(base, "cwd1"), "master", "../spec/slowjob.yaml", "--events", logURL, "--overwrite-output")
	waitForEvents(t, ctx, logURL, "the first master's epoch", func(events []format.Event) bool { return len(events) >= 2 })
	standby := startProc(t, ctx, filepath.Join(base, "cwd2"), "master", "--standby", "--events", logURL)
	waitForEvents(t, ctx, logURL, "the slow stage to run", slowRunning)
	if err := m.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	m.wait(t)
	r := standby.wait(t)
	r.wantCode(t, 0)
	var last int64
	for _, e := range logEvents(t, logURL) {
		if e.Epoch == 1 {
			last = e.Seq
		}
	}
	plan := dryRun(t, ctx, filepath.Join(base, "cwd2"), logURL, last)
	checkRecovered(t, base, logURL, plan)
}
