package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// noRecoverySpec writes testdata/jobs/shuffle-no-recovery.yaml into a new
// directory (its output lands there) and returns the spec path and the
// directory.
func noRecoverySpec(t *testing.T) (spec, dir string) {
	t.Helper()
	dir = t.TempDir()
	raw, err := os.ReadFile("../../testdata/jobs/shuffle-no-recovery.yaml")
	if err != nil {
		t.Fatal(err)
	}
	spec = filepath.Join(dir, "shuffle-no-recovery.yaml")
	if err := os.WriteFile(spec, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return spec, dir
}

// TestReplay_RecoveryDisabled: with recovery switched off in the spec,
// the dry run reads the setting from the log's job.yaml and predicts the
// full restart the resume does, and the resume's summary counts its
// reruns.
func TestReplay_RecoveryDisabled(t *testing.T) {
	spec, dir := noRecoverySpec(t)
	log, work := filepath.Join(dir, "log"), filepath.Join(dir, "work")
	runCLI(t, "run", spec, "--events", log, "--work-dir", work, "--seed", "1", "--crash-after-seq", "20").wantCode(t, 3)
	p := decodePlan(t, runCLI(t, "replay", log, "--dry-run", "--format", "json").wantCode(t, 0).stdout)
	if p.FullRestart != "recovery_disabled" || p.Summary.Keep != 0 || p.Summary.Rerun == 0 {
		t.Fatalf("plan: full restart %q, summary %+v; want recovery_disabled, nothing kept", p.FullRestart, p.Summary)
	}
	for _, s := range p.Subtasks {
		if s.Decision == "rerun" && (len(s.Reasons) == 0 || s.Reasons[0] != "recovery_disabled") {
			t.Errorf("%s/%d reasons %q, want recovery_disabled first", s.Vertex, s.Subtask, s.Reasons)
		}
	}
	table := runCLI(t, "replay", log, "--dry-run").wantCode(t, 0).stdout
	if !strings.Contains(table, "FULL RESTART: execution.batch.job-recovery.enabled is false") {
		t.Errorf("table does not say full restart:\n%s", table)
	}
	r := runCLI(t, "run", spec, "--events", log, "--work-dir", work, "--seed", "1", "--resume", "--format", "json").wantCode(t, 0)
	var sum struct {
		FullRestart bool `json:"full_restart"`
		Kept        int  `json:"kept"`
		Reruns      int  `json:"reruns"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil || !sum.FullRestart || sum.Kept != 0 || sum.Reruns != p.Summary.Rerun {
		t.Fatalf("summary %q (%v): want a full restart with reruns %d, as planned", r.stdout, err, p.Summary.Rerun)
	}
	// The job has ended: the dry run says nothing runs.
	table = runCLI(t, "replay", log, "--dry-run").wantCode(t, 0).stdout
	if !strings.Contains(table, "the job already ended (finished): a resumed master runs nothing") {
		t.Errorf("table of an ended job:\n%s", table)
	}
}

// TestReplay_WhatIfNeedsDryRun: without --dry-run, replay recovers for
// real, so every what-if flag is a usage error naming it; the flags of a
// real recovery are one with --dry-run.
func TestReplay_WhatIfNeedsDryRun(t *testing.T) {
	log := t.TempDir() // never reached: the flags are checked first
	for _, args := range [][]string{
		{"--at", "5"}, {"--lost-worker", "w1"}, {"--lost-partition", "source/1"}, {"--no-workers"},
		{"--available", "a.json"}, {"--verbose"}, {"--sweep"}, {"--points", "3"},
	} {
		r := runCLI(t, append([]string{"replay", log}, args...)...)
		r.wantOneLineError(t, 2, args[0]+" needs --dry-run", "add --dry-run")
	}
	for _, flag := range []string{"--work-dir", "--workers", "--slots"} {
		runCLI(t, "replay", logPath("running.jsonl"), "--dry-run", flag, "2").wantOneLineError(t, 2, flag, "real recovery")
	}
}

// TestReplay_JSONLIsReadOnly: a .jsonl log cannot be recovered in place;
// replay says how to import it.
func TestReplay_JSONLIsReadOnly(t *testing.T) {
	runCLI(t, "replay", logPath("running.jsonl")).
		wantOneLineError(t, 2, "running.jsonl is a .jsonl log, which is read-only", "jobevent import", "jobevent replay LOG")
}

// TestReplay_RecoversWithWorkDir: replay without --dry-run takes the
// --work-dir the job ran with, and finds its partitions there.
func TestReplay_RecoversWithWorkDir(t *testing.T) {
	spec, dir := wordcountSpec(t)
	log, work := filepath.Join(dir, "log"), filepath.Join(dir, "work")
	runCLI(t, "run", spec, "--events", log, "--work-dir", work, "--crash-after-seq", "25").wantCode(t, 3)
	want := decodePlan(t, runCLI(t, "replay", log, "--dry-run", "--format", "json").wantCode(t, 0).stdout)
	r := runCLI(t, "replay", log, "--work-dir", work, "--format", "json").wantCode(t, 0)
	var sum struct {
		Status string `json:"status"`
		Plan   struct {
			Keep int `json:"keep"`
		} `json:"plan"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil || sum.Status != "finished" || sum.Plan.Keep != want.Summary.Keep || want.Summary.Keep == 0 {
		t.Fatalf("summary %q (%v), want finished keeping the %d subtasks the dry run keeps", r.stdout, err, want.Summary.Keep)
	}
}

// TestReplay_WhatIfNamesNothing: what-if values that name nothing in the
// log are warnings naming the value; --at past the end is a warning and
// --at 0 a usage error.
func TestReplay_WhatIfNamesNothing(t *testing.T) {
	running := logPath("running.jsonl")
	dir := t.TempDir()
	avail := filepath.Join(dir, "avail.json")
	if err := os.WriteFile(avail, []byte(`[{"vertex":"nosuch","subtask":0,"attempt":0,"consumer":"count","worker":"w1"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--lost-worker", "w3"}, "--lost-worker w3 names nothing in the log: no finished subtask ran on worker w3"},
		{[]string{"--lost-partition", "source/9"}, "--lost-partition source/9 names nothing in the log: vertex source has parallelism 3"},
		{[]string{"--available", avail}, `--available entry nosuch/0 attempt 0 for count on w1 names nothing in the log: vertex "nosuch" is not in the job's graph`},
		{[]string{"--at", "999"}, "--at 999 is past the end of the log (seq 22): planning after the last event"},
	} {
		r := runCLI(t, append([]string{"replay", running, "--dry-run", "--format", "json"}, tc.args...)...).wantCode(t, 0)
		decodePlan(t, r.stdout)
		if !strings.Contains(r.stderr, "jobevent: warning: "+tc.want) {
			t.Errorf("%q: stderr = %q, want the warning %q", tc.args, r.stderr, tc.want)
		}
	}
	runCLI(t, "replay", running, "--dry-run", "--at", "0").wantOneLineError(t, 2, "bad --at 0")
}

// TestReplay_LostPartitionChangedNothing: a lost partition that is
// optional (every subtask reading it is kept) changes nothing, and the
// table says so and why.
func TestReplay_LostPartitionChangedNothing(t *testing.T) {
	running := logPath("running.jsonl")
	r := runCLI(t, "replay", running, "--dry-run", "--lost-partition", "source/1").wantCode(t, 0)
	if !strings.Contains(r.stdout, "--lost-partition source/1 changed nothing: its partitions are optional (every subtask that reads them had finished and is kept)") {
		t.Errorf("table does not say the lost partition changed nothing:\n%s", r.stdout)
	}
	r = runCLI(t, "replay", running, "--dry-run", "--lost-partition", "words/1").wantCode(t, 0)
	if strings.Contains(r.stdout, "changed nothing") || !strings.Contains(r.stdout, "│ words/1 │ rerun    │ 1       │ partition_lost") {
		t.Errorf("--lost-partition words/1 must rerun words/1:\n%s", r.stdout)
	}
}

// TestRun_Notices: --resume of a log that does not exist starts a new
// job, and a --crash-after-seq past the job's end does not crash: both
// say so on stderr.
func TestRun_Notices(t *testing.T) {
	spec, dir := wordcountSpec(t)
	log := filepath.Join(dir, "log")
	r := runCLI(t, "run", spec, "--events", log, "--work-dir", filepath.Join(dir, "work"), "--resume", "--crash-after-seq", "999").wantCode(t, 0)
	for _, want := range []string{"notice: no event log at", "--resume starts job wordcount as a new job",
		"the job ended (finished) at seq ", "before --crash-after-seq 999: the master did not crash"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr = %q, want %q", r.stderr, want)
		}
	}
}

// TestJSONL_SeqGapIsCorrupt: a JSONL log with a seq gap is corrupt for
// every reader but validate, as the bucket reader finds it once imported:
// one line naming the file and the missing seqs, exit 2.
func TestJSONL_SeqGapIsCorrupt(t *testing.T) {
	gap := logPath("gap.jsonl")
	for _, cmd := range [][]string{{"dump"}, {"replay", "--dry-run"}, {"stats"}, {"replay", "--dry-run", "--sweep"}} {
		runCLI(t, append(cmd, gap)...).wantOneLineError(t, 2, "gap.jsonl: seq gap: seq 9 missing before seq 10")
	}
	runCLI(t, "validate", gap).wantCode(t, 1) // a finding, as before
}
