package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/pkg/replay"
	"github.com/jobevent/jobevent/pkg/runtime/drill"
)

// drillSpec is the job the command tests drill: no relative inputs, so
// it runs from this directory.
const drillSpec = "../../testdata/jobs/shuffle.yaml"

// drillGoldenDir holds the golden outputs of drill.
const drillGoldenDir = "../../testdata/drill/golden"

// drillTemp points the drill's scratch directories at the test's own.
func drillTemp(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	return dir
}

func TestDrill_Table(t *testing.T) {
	drillTemp(t)
	r := runCLI(t, "drill", drillSpec, "--at", "10,21,32", "--faults", "master,slow-workers,double", "--no-timing").wantCode(t, 0)
	r.goldenAt(t, filepath.Join(drillGoldenDir, "shuffle-at-10-21-32.table"))
	if r.stderr != "" {
		t.Fatalf("stderr = %q, want nothing", r.stderr)
	}
}

func TestDrill_JSON(t *testing.T) {
	drillTemp(t)
	// Flags after the spec, as people type them.
	r := runCLI(t, "drill", drillSpec, "--at", "5,17,30,40", "--faults", "slow-workers", "--format", "json", "--seed", "3").wantCode(t, 0)
	var res drill.Result
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("stdout is not the JSON of a drill: %v\n%s", err, r.stdout)
	}
	if res.Job != "shuffle" || res.Seed != 3 || !res.Verdict.OK || len(res.Cases) != 4 || len(res.Points) != 4 {
		t.Fatalf("result = job %s seed %d, %d points, %d cases, verdict %s", res.Job, res.Seed, len(res.Points), len(res.Cases), res.Verdict)
	}
	for _, c := range res.Cases {
		if c.Fault != drill.FaultSlowWorkers || !c.Match || !c.OutputIdentical || c.RecoveryMs <= 0 {
			t.Fatalf("case %+v, want a passing slow-workers case with its recovery time", c)
		}
	}
	r = runCLI(t, "drill", drillSpec, "--at", "21", "--faults", "master", "--format", "json", "--no-timing").wantCode(t, 0)
	if strings.Contains(r.stdout, "recovery_ms") || strings.Contains(r.stdout, "clean_ms") {
		t.Fatalf("--no-timing JSON has timing fields:\n%s", r.stdout)
	}
}

func TestDrill_Report(t *testing.T) {
	dir := drillTemp(t)
	file := filepath.Join(dir, "drill.html")
	runCLI(t, "drill", drillSpec, "--at", "8,21", "--faults", "master,worker", "--report", file, "--format", "json").wantCode(t, 0)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	for _, want := range []string{"<!DOCTYPE html>", "<svg", "Failover drill of job shuffle", "all predictions matched"} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, bad := range []string{"<script", "https://", "src=", "@import"} {
		if strings.Contains(page, bad) {
			t.Errorf("report is not self-contained: it has %q", bad)
		}
	}
}

func TestDrill_FailsOnMismatch(t *testing.T) {
	drillTemp(t)
	keep := t.TempDir()
	broken := func(s *replay.State, a replay.Availability, o replay.PlanOptions) *replay.RecoveryPlan {
		p := replay.PlanRecovery(s, a, o)
		rows := append([]replay.SubtaskPlan(nil), p.Subtasks...)
		for i := range rows {
			if rows[i].Decision != replay.DecisionKeep {
				rows[i].Decision, rows[i].Reasons = replay.DecisionKeep, []string{}
				break
			}
		}
		c := *p
		c.Subtasks = rows
		return &c
	}
	r := runCLIChanged(t, func(a *application) { a.drillPlanner = broken }, "drill", drillSpec, "--at", "21", "--faults", "master", "--keep", keep, "--no-timing")
	r.wantOneLineError(t, 1, "drill: 1 of 1 cases failed; kept in "+keep)
	for _, want := range []string{"FAILED point 21 master", "started but not predicted", "verdict: 1 point, 1 fault: 1 of 1 cases FAILED (1 prediction mismatched)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(keep, "shuffle-21-master", "repro.sh")); err != nil {
		t.Fatalf("failing case not kept: %v", err)
	}
}

func TestDrill_UsageErrors(t *testing.T) {
	drillTemp(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"drill"}, "want 1 argument"},
		{[]string{"drill", drillSpec, "--faults", "master,meteor"}, `unknown fault "meteor"`},
		{[]string{"drill", drillSpec, "--points", "some"}, `bad --points "some"`},
		{[]string{"drill", drillSpec, "--at", "3,x"}, `bad --at "3,x"`},
		{[]string{"drill", drillSpec, "--parallel", "0"}, "--parallel and --workers must be at least 1"},
		{[]string{"drill", drillSpec, "--format", "csv"}, `bad --format "csv"`},
		{[]string{"drill", "no-such-spec.yaml"}, "no-such-spec.yaml"},
		{[]string{"drill", drillSpec, "--at", "900"}, "no crash point: [900] names no seq of the clean log (1 to 42)"},
	} {
		runCLI(t, tc.args...).wantOneLineError(t, 2, tc.want)
	}
}

// TestDrill_RecoveryDisabled drills a job whose spec switches recovery
// off: the dry run reads the setting from the log's job.yaml and predicts
// every full restart.
func TestDrill_RecoveryDisabled(t *testing.T) {
	drillTemp(t)
	r := runCLI(t, "drill", "../../testdata/jobs/shuffle-no-recovery.yaml", "--faults", "master", "--points", "5", "--format", "json").wantCode(t, 0)
	var res drill.Result
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("stdout is not the JSON of a drill: %v\n%s", err, r.stdout)
	}
	if !res.Verdict.OK || len(res.Cases) == 0 {
		t.Fatalf("verdict %s with %d cases, want every case passed", res.Verdict, len(res.Cases))
	}
}
