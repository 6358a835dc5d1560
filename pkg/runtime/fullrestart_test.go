package runtime

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/internal/testenv"
	"github.com/jobevent/jobevent/pkg/blob"
)

// TestRecovery_FullRestart corrupts the log of a crashed run: the resumed
// master cannot replay it, says so loudly, reruns everything in a new
// epoch, and leaves the log in place.
func TestRecovery_FullRestart(t *testing.T) {
	t.Parallel()
	want, _ := cleanRun(t, "wordcount.yaml", 9)
	dir := jobDir(t)
	opts := Options{Dir: dir, Seeded: true, Seed: 9, CrashAfterSeq: 25}
	sum, err := Run(testenv.Context(t), loadJob(t, "wordcount.yaml"), opts)
	var crash *CrashError
	if !errors.As(err, &crash) {
		t.Fatalf("crash run: %v", err)
	}
	ctx := testenv.Context(t)
	l, err := blob.Open(ctx, sum.Log)
	if err != nil {
		t.Fatal(err)
	}
	segs, err := l.Segments(ctx)
	l.Close()
	if err != nil || len(segs) == 0 {
		t.Fatalf("segments %v, %v: want some", segs, err)
	}
	u, _ := url.Parse(sum.Log)
	path := filepath.Join(u.Path, u.Query().Get("prefix"), segs[0].Key)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff // a bit flip: corruption, not a torn tail
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	opts.CrashAfterSeq, opts.Resume, opts.Stderr = 0, true, &stderr
	sum, err = Run(testenv.Context(t), loadJob(t, "wordcount.yaml"), opts)
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	if !sum.FullRestart || sum.FullRestartReason == "" || sum.Epoch != 2 {
		t.Fatalf("summary %+v, want a full restart in epoch 2 with its reason", sum)
	}
	if !strings.Contains(stderr.String(), "FULL RESTART") {
		t.Errorf("stderr = %q, want the full restart announced", stderr.String())
	}
	if !reflect.DeepEqual(readOutput(t, dir, "wordcount"), want) {
		t.Fatal("output differs from the clean run")
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the corrupt segment is gone: %v (the log must never be deleted)", err)
	}
}

// TestRecovery_Disabled: with execution.batch.job-recovery.enabled false, a
// resumed master logs the reset of every finished subtask and reruns all.
func TestRecovery_Disabled(t *testing.T) {
	t.Parallel()
	want, _ := cleanRun(t, "flink-failover.yaml", 2)
	dir := jobDir(t)
	off := func(s *Settings) { s.RecoveryEnabled = false }
	opts := Options{Dir: dir, Seeded: true, Seed: 2, CrashAfterSeq: 30, Settings: off}
	if _, err := Run(testenv.Context(t), loadJob(t, "flink-failover.yaml"), opts); err == nil {
		t.Fatal("no crash")
	}
	opts.CrashAfterSeq, opts.Resume = 0, true
	sum, err := Run(testenv.Context(t), loadJob(t, "flink-failover.yaml"), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !sum.FullRestart || sum.Kept != 0 {
		t.Fatalf("summary %+v, want a full restart keeping nothing", sum)
	}
	// The summary counts the reruns of the full restart, as its plan
	// (replay.PlanRecovery, recovery_disabled) decided them.
	if sum.Plan == nil || sum.Plan.Keep != 0 || sum.Plan.Rerun == 0 || sum.Reruns < sum.Plan.Rerun {
		t.Fatalf("reruns %d, plan %+v: want every started subtask counted as a rerun", sum.Reruns, sum.Plan)
	}
	events := readLog(t, sum.Log)
	if got := startedIn(events, 2); len(got) != sum.Subtasks {
		t.Fatalf("epoch 2 started %d attempts, want all %d subtasks", len(got), sum.Subtasks)
	}
	if !reflect.DeepEqual(readOutput(t, dir, sum.Job), want) {
		t.Fatal("output differs from the clean run")
	}
}
