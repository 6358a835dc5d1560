package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/internal/scenario"
)

// replayScenarios holds the recovery scenarios that pkg/replay runs
// through replay.Plan.
const replayScenarios = "../../testdata/replay"

// TestReplay_Scenarios runs every plan block of testdata/replay through
// the command it names, `jobevent replay LOG --dry-run --format json`
// with the block's flags, and compares the output with the block's
// expected plan. The one difference is a job the log ends: the command
// adds "ended" to the plan of the rule (replay.PlanRecovery).
func TestReplay_Scenarios(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(replayScenarios, "*.txt"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no scenarios under %s (%v)", replayScenarios, err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			f, err := scenario.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			log := f.Block("log")
			if log == nil {
				t.Fatalf("%s: no log block", path)
			}
			dir := t.TempDir()
			logFile := writeTemp(t, dir, "log.jsonl", log.Input)
			for _, b := range f.Blocks {
				if b.Cmd != "plan" {
					continue
				}
				args := append([]string{"replay", logFile, "--dry-run", "--format", "json"}, b.Args...)
				if b.Input != "" {
					args = append(args, writeTemp(t, dir, "available.json", b.Input))
				}
				r := runCLI(t, args...).wantCode(t, 0)
				if want := withEnded(b.Expected, log.Input); r.stdout != want {
					t.Errorf("%s: jobevent %s printed\n%s\nwant\n%s", f.Pos(b), strings.Join(args, " "), r.stdout, want)
				}
			}
		})
	}
}

// withEnded returns the plan JSON that the command prints for a log whose
// rule plan is plan: the same, plus "ended" when the log's last event is
// job_finished.
func withEnded(plan, log string) string {
	lines := strings.Split(strings.TrimSpace(log), "\n")
	var last struct {
		Kind   string `json:"kind"`
		Status string `json:"status"`
	}
	if json.Unmarshal([]byte(lines[len(lines)-1]), &last) != nil || last.Kind != "job_finished" {
		return plan
	}
	return strings.TrimSuffix(plan, "\n}\n") + ",\n  \"ended\": \"" + last.Status + "\"\n}\n"
}

// writeTemp writes data to dir/name and returns its path.
func writeTemp(t *testing.T, dir, name, data string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
