package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// planView is the JSON form of a recovery plan (docs/cli.md).
type planView struct {
	Job      string `json:"job"`
	LastSeq  int64  `json:"last_seq"`
	Epoch    int32  `json:"epoch"`
	Vertices []struct {
		Vertex      string `json:"vertex"`
		Parallelism *int32 `json:"parallelism"`
		Initialized bool   `json:"initialized"`
		Deferred    bool   `json:"deferred"`
	} `json:"vertices"`
	Subtasks []struct {
		Vertex   string   `json:"vertex"`
		Subtask  int32    `json:"subtask"`
		Decision string   `json:"decision"`
		Attempt  int32    `json:"attempt"`
		Reasons  []string `json:"reasons"`
	} `json:"subtasks"`
	Summary struct {
		Keep  int `json:"keep"`
		Rerun int `json:"rerun"`
		Run   int `json:"run"`
	} `json:"summary"`
	Ended       string `json:"ended"`
	FullRestart string `json:"full_restart"`
}

// decodePlan decodes the JSON plan of replay --dry-run --format json.
func decodePlan(t *testing.T, out string) planView {
	t.Helper()
	var p planView
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("plan %q: %v", out, err)
	}
	return p
}

// decisions renders the subtasks of a plan as "vertex/i" → "decision[reasons]".
func decisions(p planView) map[string]string {
	m := make(map[string]string)
	for _, s := range p.Subtasks {
		m[s.Vertex+"/"+strconv.Itoa(int(s.Subtask))] = s.Decision + "[" + strings.Join(s.Reasons, ",") + "]"
	}
	return m
}

func TestReplay_Golden(t *testing.T) {
	tests := []struct {
		golden string
		args   []string
	}{
		{"replay-running.table", []string{"replay", logPath("running.jsonl"), "--dry-run"}},
		{"replay-running.json", []string{"replay", logPath("running.jsonl"), "--dry-run", "--format", "json"}},
		{"replay-running-lost-w2.table", []string{"replay", logPath("running.jsonl"), "--dry-run", "--lost-worker", "w2"}},
		{"replay-running-lost-w2.json", []string{"replay", logPath("running.jsonl"), "--dry-run", "--lost-worker", "w2", "--format", "json"}},
		{"replay-running-verbose.table", []string{"replay", logPath("running.jsonl"), "--dry-run", "--verbose"}},
		{"replay-no-batch-snapshot.table", []string{"replay", logPath("no-batch-snapshot.jsonl"), "--dry-run"}},
		{"replay-no-batch-snapshot-lost-w1.json", []string{"replay", logPath("no-batch-snapshot.jsonl"), "--dry-run", "--lost-worker", "w1", "--format", "json"}},
		{"replay-failover-at-10.json", []string{"replay", logPath("failover.jsonl"), "--dry-run", "--at", "10", "--format", "json"}},
		{"replay-healthy.table", []string{"replay", logPath("healthy.jsonl"), "--dry-run"}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			r := runCLI(t, tt.args...).wantCode(t, 0)
			r.golden(t, tt.golden)
		})
	}
}

func TestReplay_Plans(t *testing.T) {
	running := logPath("running.jsonl")
	tests := []struct {
		name string
		args []string
		want map[string]string // subtask → the first reason of each subtask that reruns
		sum  [3]int            // keep, rerun, run
	}{
		{"running", []string{running}, map[string]string{"count/1": "running_at_failover"}, [3]int{7, 1, 0}},
		{"lost worker w2", []string{running, "--lost-worker", "w2"}, map[string]string{
			"source/1": "partition_lost",
			"words/1":  "partition_lost",
			"count/0":  "downstream_of_reset",
			"count/1":  "running_at_failover",
		}, [3]int{4, 4, 0}},
		{"lost partition", []string{running, "--lost-partition", "words/1"}, map[string]string{
			"words/1": "partition_lost",
			"count/0": "downstream_of_reset",
			"count/1": "running_at_failover",
		}, [3]int{5, 3, 0}},
		{"at seq 15", []string{running, "--at", "15"}, map[string]string{
			"words/0": "running_at_failover",
			"words/1": "running_at_failover",
			"words/2": "running_at_failover",
		}, [3]int{3, 3, 0}},
		{"deferred source lost", []string{logPath("no-batch-snapshot.jsonl"), "--lost-worker", "w1"}, map[string]string{
			"numbers/0": "coordinator_without_batch_snapshot",
			"numbers/1": "coordinator_without_batch_snapshot",
			"count/0":   "partition_lost",
			"count/1":   "running_at_failover",
		}, [3]int{0, 4, 0}},
		{"failover before the snapshot", []string{logPath("failover.jsonl"), "--at", "10"}, map[string]string{
			"source/2": "finished_after_last_snapshot",
		}, [3]int{2, 1, 0}},
		{"finished job", []string{logPath("failover.jsonl")}, map[string]string{}, [3]int{10, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"replay", "--dry-run", "--format", "json"}, tt.args...)
			p := decodePlan(t, runCLI(t, args...).wantCode(t, 0).stdout)
			got := make(map[string]string)
			for _, s := range p.Subtasks {
				ref := s.Vertex + "/" + strconv.Itoa(int(s.Subtask))
				switch {
				case s.Decision == "keep" && len(s.Reasons) == 0:
				case s.Decision == "rerun" && len(s.Reasons) > 0:
					got[ref] = s.Reasons[0]
				default:
					t.Errorf("%s: decision %s with reasons %q", ref, s.Decision, s.Reasons)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("reruns (first reason) = %v, want %v", got, tt.want)
			}
			if s := [3]int{p.Summary.Keep, p.Summary.Rerun, p.Summary.Run}; s != tt.sum {
				t.Errorf("summary keep/rerun/run = %v, want %v", s, tt.sum)
			}
		})
	}
}

func TestReplay_Available(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	running := logPath("running.jsonl")
	// Only words/0 and words/2 (on w1) and count/0 survive: the source is
	// optional (its consumers all finished), words/1 must rerun.
	avail := write("avail.json", `[
  {"vertex":"words","subtask":0,"attempt":0,"consumer":"count","worker":"w1"},
  {"vertex":"words","subtask":2,"attempt":0,"consumer":"count","worker":"w1"},
  {"vertex":"count","subtask":0,"attempt":0,"consumer":"sink","worker":"w1"}
]`)
	p := decodePlan(t, runCLI(t, "replay", running, "--dry-run", "--available", avail, "--format", "json").wantCode(t, 0).stdout)
	if d := decisions(p)["words/1"]; !strings.HasPrefix(d, "rerun") {
		t.Errorf("words/1 = %s with its partition not available, want rerun", d)
	}
	p = decodePlan(t, runCLI(t, "replay", running, "--dry-run", "--no-workers", "--format", "json").wantCode(t, 0).stdout)
	if p.Summary.Keep == 8 {
		t.Errorf("--no-workers kept everything: %+v", p.Summary)
	}
	empty := write("empty.json", `[]`)
	q := decodePlan(t, runCLI(t, "replay", running, "--dry-run", "--available", empty, "--format", "json").wantCode(t, 0).stdout)
	if !reflect.DeepEqual(decisions(p), decisions(q)) {
		t.Errorf("--available [] = %v, want the plan of --no-workers %v", decisions(q), decisions(p))
	}

	bad := write("bad.json", `[{"vertex":"words","subtask":"x"}]`)
	runCLI(t, "replay", running, "--dry-run", "--available", bad).wantOneLineError(t, 2, "--available", "bad.json")
	unknown := write("unknown.json", `[{"vertex":"words","sub":1}]`)
	runCLI(t, "replay", running, "--dry-run", "--available", unknown).wantOneLineError(t, 2, "--available")
	runCLI(t, "replay", running, "--dry-run", "--available", filepath.Join(dir, "missing.json")).wantOneLineError(t, 2, "missing.json")
}

func TestReplay_FlagsAfterArgs(t *testing.T) {
	before := runCLI(t, "replay", "--dry-run", "--format", "json", "--lost-worker", "w2", logPath("running.jsonl")).wantCode(t, 0)
	after := runCLI(t, "replay", logPath("running.jsonl"), "--dry-run", "--format", "json", "--lost-worker", "w2").wantCode(t, 0)
	if before.stdout != after.stdout {
		t.Fatalf("flags after the LOG argument give another plan:\n%s\nwant:\n%s", after.stdout, before.stdout)
	}
}

func TestReplay_Errors(t *testing.T) {
	runCLI(t, "replay", logPath("bad-syntax.jsonl"), "--dry-run").wantOneLineError(t, 2, "line 5")
	runCLI(t, "replay", filepath.Join(t.TempDir(), "none"), "--dry-run").wantOneLineError(t, 2, "no event log at")
}

// TestReplay_Unreadable: a bucket log that cannot be replayed is what the
// master restarts in full: the dry run says so (log_unreadable), with the
// damage named on stderr, and exits 2 as every reader of a corrupt log
// does.
func TestReplay_Unreadable(t *testing.T) {
	dir := t.TempDir()
	keys := writeSegments(t, dir, readEvents(t, "healthy.jsonl"), 10, 20)
	flipByte(t, filepath.Join(dir, filepath.FromSlash(keys[1])))
	r := runCLI(t, "replay", dir, "--dry-run", "--format", "json").wantCode(t, 2)
	p := decodePlan(t, r.stdout)
	if p.FullRestart != "log_unreadable" || p.Summary.Keep != 0 || p.Summary.Rerun != 3 {
		t.Errorf("plan: full restart %q, summary %+v; want log_unreadable, source's 3 subtasks rerun", p.FullRestart, p.Summary)
	}
	for _, s := range p.Subtasks {
		if s.Decision != "rerun" || s.Attempt != 0 || strings.Join(s.Reasons, ",") != "log_unreadable" {
			t.Errorf("%s/%d: %s attempt %d %q, want rerun attempt 0 [log_unreadable]", s.Vertex, s.Subtask, s.Decision, s.Attempt, s.Reasons)
		}
	}
	if !strings.Contains(r.stderr, keys[1]) || !strings.Contains(r.stderr, "log_unreadable") {
		t.Errorf("stderr = %q, want the corrupt segment named and the full restart", r.stderr)
	}
}

func TestReplay_WarningsNotInJSON(t *testing.T) {
	r := runCLI(t, "replay", logPath("zombie.jsonl"), "--dry-run", "--format", "json").wantCode(t, 0)
	decodePlan(t, r.stdout)
	if !strings.Contains(r.stderr, "jobevent: warning: ") || !strings.Contains(r.stderr, "fenced") {
		t.Errorf("stderr = %q, want the fenced rows as a warning", r.stderr)
	}
}
