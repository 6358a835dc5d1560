package main

import (
	be "encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/internal/flinkfixture"
)

// flinkScenarios returns the real Flink logs: the committed ones
// (testdata/flink), or $JOBEVENT_FLINK_ROOT (a fresh harness run).
func flinkScenarios(t *testing.T) []flinkfixture.Scenario {
	t.Helper()
	return flinkfixture.Scenarios(t)
}

// copyFlinkLog copies the job-events directory of a scenario to a temp dir.
func copyFlinkLog(t *testing.T, scenario flinkfixture.Scenario) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "job-events")
	if err := os.MkdirAll(dst, 0o777); err != nil {
		t.Fatal(err)
	}
	for _, f := range flinkfixture.EventsFiles(scenario.JobEvents) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, filepath.Base(f)), data, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

type flinkTruth struct {
	LostTaskManagers []string `json:"lost_taskmanagers"`
	Vertices         []struct {
		ID   string `json:"vertex_id"`
		Name string `json:"name"`
	} `json:"vertices"`
	Subtasks []struct {
		Vertex   string `json:"vertex_id"`
		Subtask  int32  `json:"subtask"`
		RanAgain bool   `json:"ran_again"`
		Attempt  int32  `json:"attempt"`
	} `json:"subtasks"`
}

// readTruth reads a scenario's truth.json.
func readTruth(t *testing.T, sc flinkfixture.Scenario) flinkTruth {
	t.Helper()
	data, err := os.ReadFile(sc.Truth)
	if err != nil {
		t.Fatal(err)
	}
	var tr flinkTruth
	if err := json.Unmarshal(data, &tr); err != nil {
		t.Fatal(err)
	}
	return tr
}

// truthFlags are the flags a scenario's dry run takes: the plan, the
// sources without batch snapshots, and the stopped TaskManagers.
func truthFlags(sc flinkfixture.Scenario, tr flinkTruth) (side, lost []string) {
	side = []string{"--flink-plan", sc.Plan}
	for _, v := range tr.Vertices {
		if strings.Contains(v.Name, "no batch snapshot") {
			side = append(side, "--coordinator", v.ID+"=no_batch_snapshot")
		}
	}
	for _, tm := range tr.LostTaskManagers {
		lost = append(lost, "--lost-worker", tm)
	}
	return side, lost
}

// dryRunJSON is the part of replay --dry-run's JSON the truth checks.
type dryRunJSON struct {
	LastSeq  int64 `json:"last_seq"`
	Subtasks []struct {
		Vertex   string `json:"vertex"`
		Name     string `json:"name"`
		Subtask  int32  `json:"subtask"`
		Decision string `json:"decision"`
		Attempt  int32  `json:"attempt"`
	} `json:"subtasks"`
	Summary struct {
		Keep, Rerun, Run int
	} `json:"summary"`
}

// checkTruth compares a dry run's JSON with what Flink did, subtask by
// subtask: rerun or not, and the attempt. A scenario listed as known wrong
// (flinkfixture) skips when they differ and fails when they do not, unless
// it is unstable.
func checkTruth(t *testing.T, sc flinkfixture.Scenario, out string, tr flinkTruth) dryRunJSON {
	t.Helper()
	var plan dryRunJSON
	if err := json.Unmarshal([]byte(out), &plan); err != nil {
		t.Fatalf("JSON: %v\n%s", err, out)
	}
	got := map[string]string{}
	for _, s := range plan.Subtasks {
		if s.Name == "" {
			t.Errorf("%s/%d: no name though the plan gives it", s.Vertex, s.Subtask)
		}
		got[fmt.Sprintf("%s/%d", s.Vertex, s.Subtask)] = fmt.Sprintf("%t attempt %d", s.Decision != "keep", s.Attempt)
	}
	var diffs []string
	for _, s := range tr.Subtasks {
		key := fmt.Sprintf("%s/%d", s.Vertex, s.Subtask)
		if want := fmt.Sprintf("%t attempt %d", s.RanAgain, s.Attempt); got[key] != want {
			diffs = append(diffs, fmt.Sprintf("%s: predicted rerun=%s, Flink rerun=%s", key, got[key], want))
		}
		delete(got, key)
	}
	for key := range got {
		diffs = append(diffs, key+": predicted, not in the truth")
	}
	sort.Strings(diffs)
	switch reason, unstable := sc.KnownWrong(); {
	case len(diffs) > 0 && reason != "":
		t.Skipf("known wrong (%s):\n  %s", reason, strings.Join(diffs, "\n  "))
	case len(diffs) > 0:
		t.Errorf("the dry run differs from what Flink did:\n  %s", strings.Join(diffs, "\n  "))
	case reason != "" && !unstable:
		t.Errorf("listed as known wrong (%s) but the dry run equals what Flink did: take it off the list", reason)
	}
	return plan
}

// TestFlinkReplay_Truth: replay --dry-run --format json of every real
// Flink log says, subtask by subtask, what Flink did after the failover.
func TestFlinkReplay_Truth(t *testing.T) {
	for _, sc := range flinkScenarios(t) {
		t.Run(sc.Key(), func(t *testing.T) {
			tr := readTruth(t, sc)
			side, lost := truthFlags(sc, tr)
			args := append(append([]string{"replay", sc.JobEvents, "--dry-run", "--format", "json"}, side...), lost...)
			r := runCLI(t, args...).wantCode(t, 0)
			checkTruth(t, sc, r.stdout, tr)
			if sc.HACluster == "" && !strings.Contains(r.stderr, "coordinator kinds assumed") && len(tr.Vertices) > 0 && !strings.Contains(strings.Join(args, " "), "--coordinator") {
				t.Errorf("stderr lacks the assumed coordinator kinds warning:\n%s", r.stderr)
			}
		})
	}
}

// TestFlinkReplay_NoFlags: on every run kept in Flink's own HA layout,
// the dry run with no flag but --lost-worker (for the TaskManagers the
// harness stopped) equals what Flink did: the plan, the names and the
// source kinds come from the HA directory Flink left, and from the log's
// snapshots where no table knows a Source class (the harness's own source
// without batch snapshots). Nothing is assumed: --strict exits 0 with the
// same plan.
func TestFlinkReplay_NoFlags(t *testing.T) {
	runs := 0
	for _, sc := range flinkScenarios(t) {
		if sc.HACluster == "" {
			continue
		}
		runs++
		t.Run(sc.Key(), func(t *testing.T) {
			tr := readTruth(t, sc)
			_, lost := truthFlags(sc, tr)
			args := append([]string{"replay", sc.JobEvents, "--dry-run", "--format", "json"}, lost...)
			checkTruth(t, sc, runCLI(t, args...).wantCode(t, 0).stdout, tr)
			strict := runCLI(t, append(args, "--strict")...)
			if strict.code != 0 {
				t.Fatalf("--strict exits %d:\n%s", strict.code, strict.stderr)
			}
			checkTruth(t, sc, strict.stdout, tr)
		})
	}
	if runs == 0 {
		t.Fatal("no run in Flink's HA layout")
	}
}

// TestFlinkImported_SweepEqualsPlan imports every real Flink log into a
// jobevent log: the log carries Flink's rule, so the dry run of the copy,
// and the last point of its exposure sweep, plan as Flink did.
func TestFlinkImported_SweepEqualsPlan(t *testing.T) {
	for _, sc := range flinkScenarios(t) {
		t.Run(sc.Key(), func(t *testing.T) {
			tr := readTruth(t, sc)
			side, lost := truthFlags(sc, tr)
			log := filepath.Join(t.TempDir(), "copy")
			runCLI(t, append([]string{"import", sc.JobEvents, log, "--quiet"}, side...)...).wantCode(t, 0)
			r := runCLI(t, append([]string{"replay", log, "--dry-run", "--format", "json"}, lost...)...).wantCode(t, 0)
			plan := checkTruth(t, sc, r.stdout, tr)
			sw := runCLI(t, append([]string{"replay", log, "--dry-run", "--sweep", "--points", "0", "--format", "json"}, lost...)...).wantCode(t, 0)
			var sweep struct {
				Points []struct {
					Seq              int64
					Keep, Rerun, Run int
				} `json:"points"`
			}
			if err := json.Unmarshal([]byte(sw.stdout), &sweep); err != nil {
				t.Fatalf("sweep JSON: %v\n%s", err, sw.stdout)
			}
			if len(sweep.Points) == 0 {
				t.Fatal("the sweep has no points")
			}
			last := sweep.Points[len(sweep.Points)-1]
			if last.Seq != plan.LastSeq || last.Keep != plan.Summary.Keep || last.Rerun != plan.Summary.Rerun || last.Run != plan.Summary.Run {
				t.Errorf("the sweep's last point (seq %d: keep %d, rerun %d, run %d) is not the plan at seq %d (keep %d, rerun %d, run %d)",
					last.Seq, last.Keep, last.Rerun, last.Run, plan.LastSeq, plan.Summary.Keep, plan.Summary.Rerun, plan.Summary.Run)
			}
		})
	}
}

// firstScenario returns a scenario of the real Flink logs by name (the
// first version that has it).
func firstScenario(t *testing.T, name string) flinkfixture.Scenario {
	t.Helper()
	return flinkfixture.Find(t, name)
}

// TestFlink_DumpValidateTable: dump (table, JSON) and validate read a real
// Flink log; JSON has no made-up times.
func TestFlink_DumpValidateTable(t *testing.T) {
	// A copy without Flink's HA directory around it: the kinds are assumed.
	dir := copyFlinkLog(t, firstScenario(t, "rebalance-hash"))
	r := runCLI(t, "dump", dir, "--format", "json").wantCode(t, 0)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) < 5 {
		t.Fatalf("dump printed %d lines", len(lines))
	}
	for _, l := range lines {
		if !strings.Contains(l, `"time":null`) {
			t.Fatalf("line without \"time\":null: %s", l)
		}
	}
	if strings.Count(r.stderr, "coordinator kinds assumed") != 1 {
		t.Errorf("want the coordinator note once on stderr:\n%s", r.stderr)
	}
	r = runCLI(t, "dump", dir).wantCode(t, 0)
	if !strings.Contains(r.stdout, "subtask_finished") || strings.Contains(r.stdout, "0001-01-01") {
		t.Errorf("table:\n%s", r.stdout)
	}
	r = runCLI(t, "validate", dir).wantCode(t, 0)
	if !strings.Contains(r.stdout, "no findings") {
		t.Errorf("validate: %s", r.stdout)
	}
	r = runCLI(t, "replay", dir, "--dry-run").wantCode(t, 0)
	if !strings.Contains(r.stdout, "cbc357ccb763df2852fee8c4fc7d55f2") {
		t.Errorf("replay table:\n%s", r.stdout)
	}
}

// TestFlink_Refusals: replay without --dry-run on a Flink log, and the
// Flink flags on a jobevent log, are usage errors.
func TestFlink_Refusals(t *testing.T) {
	sc := firstScenario(t, "rebalance-hash")
	dir := sc.JobEvents
	runCLI(t, "replay", dir).wantOneLineError(t, 2, "Flink recovers its own job", "--dry-run")
	log := filepath.Join(logsDir, "healthy.jsonl")
	runCLI(t, "dump", log, "--coordinator", "a=none").wantOneLineError(t, 2, "--coordinator", "Flink job-events directory")
	runCLI(t, "replay", log, "--dry-run", "--flink-plan", sc.Plan).wantOneLineError(t, 2, "--flink-plan")
	runCLI(t, "validate", log, "--coordinator", "a=none").wantOneLineError(t, 2, "--coordinator")
}

// damage rewrites events.0 of a copied log.
func damage(t *testing.T, dir string, f func([]byte) []byte) {
	t.Helper()
	p := filepath.Join(dir, "events.0")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, f(data), 0o666); err != nil {
		t.Fatal(err)
	}
}

// secondRecord returns the offset of the second record of a file.
func secondRecord(data []byte) int {
	return 8 + int(be.BigEndian.Uint32(data[4:8]))
}

// TestFlink_Damaged: each kind of damage is classified as Flink's reader
// does: torn records and gaps are warnings (exit 0), unknown types and
// payloads that do not decode are corruption (exit 2, with what Flink does).
func TestFlink_Damaged(t *testing.T) {
	scen := firstScenario(t, "two-failovers")
	t.Run("torn", func(t *testing.T) {
		dir := copyFlinkLog(t, scen)
		var cut int
		damage(t, dir, func(b []byte) []byte { cut = secondRecord(b); return b[:cut+5] })
		r := runCLI(t, "dump", dir).wantCode(t, 0)
		if !strings.Contains(r.stderr, fmt.Sprintf("events.0: offset %d", cut)) {
			t.Errorf("stderr lacks the torn record's file and offset %d:\n%s", cut, r.stderr)
		}
	})
	t.Run("gap", func(t *testing.T) {
		dir := copyFlinkLog(t, scen)
		if err := os.Remove(filepath.Join(dir, "events.1")); err != nil {
			t.Fatal(err)
		}
		r := runCLI(t, "dump", dir).wantCode(t, 0)
		if !strings.Contains(r.stderr, "events.1: missing") || !strings.Contains(r.stderr, "ignores events.2") {
			t.Errorf("stderr lacks the gap:\n%s", r.stderr)
		}
		r = runCLI(t, "validate", dir, "--format", "github").wantCode(t, 0)
		if !strings.Contains(r.stdout, "::warning") || !strings.Contains(r.stdout, "flink-gap") {
			t.Errorf("validate github:\n%s", r.stdout)
		}
	})
	corrupt := map[string]func([]byte) []byte{
		"unknown-type":    func(b []byte) []byte { be.BigEndian.PutUint32(b[secondRecord(b):], 9); return b },
		"flipped-byte":    func(b []byte) []byte { b[secondRecord(b)+8+2] ^= 0xff; return b }, // inside the Java stream's magic
		"negative-length": func(b []byte) []byte { be.BigEndian.PutUint32(b[secondRecord(b)+4:], 0xffffff00); return b },
		"length-past-end": func(b []byte) []byte {
			be.BigEndian.PutUint32(b[secondRecord(b)+4:], 0x00100000) // past the end, under the 1 GiB Flink cannot allocate
			return b
		},
	}
	for name, f := range corrupt {
		t.Run(name, func(t *testing.T) {
			dir := copyFlinkLog(t, scen)
			damage(t, dir, f)
			r := runCLI(t, "dump", dir)
			if name == "length-past-end" {
				// Flink reads a payload past the end as a torn record.
				r.wantCode(t, 0)
				if !strings.Contains(r.stderr, "cut short") {
					t.Errorf("stderr:\n%s", r.stderr)
				}
				return
			}
			r.wantOneLineError(t, 2, "events.0 offset", "Flink itself would fail to replay this log")
			runCLI(t, "replay", dir, "--dry-run").wantOneLineError(t, 2, "Flink itself would fail")
			v := runCLI(t, "validate", dir).wantCode(t, 1)
			if !strings.Contains(v.stdout, "corrupt") {
				t.Errorf("validate:\n%s", v.stdout)
			}
		})
	}
}

// TestFlink_Import: a Flink log imported into a jobevent log dry-runs to
// the same plan.
func TestFlink_Import(t *testing.T) {
	dir := firstScenario(t, "min-pause-released-producer").JobEvents
	want := runCLI(t, "replay", dir, "--dry-run", "--format", "json").wantCode(t, 0).stdout
	dst := filepath.Join(t.TempDir(), "copy")
	runCLI(t, "import", dir, dst).wantCode(t, 0)
	got := runCLI(t, "replay", dst, "--dry-run", "--format", "json").wantCode(t, 0).stdout
	if got != want {
		t.Errorf("imported plan:\n%s\nwant:\n%s", got, want)
	}
	if r := runCLI(t, "stats", dir).wantCode(t, 0); !strings.Contains(r.stderr, "Flink records no times") {
		t.Errorf("stats of a Flink log does not say that its times are unknown:\n%s", r.stderr)
	}
	runCLI(t, "diff", dir, dst).wantCode(t, 0)
}

// TestFlink_LsAndFileURL: ls finds a Flink job under an HA storage
// directory beside a jobevent log, and a file:// URL with the job-events
// prefix reads the Flink log.
func TestFlink_LsAndFileURL(t *testing.T) {
	scen := firstScenario(t, "rebalance-hash")
	root := t.TempDir()
	const job = "0123456789abcdef0123456789abcdef"
	jobDir := filepath.Join(root, "default", job)
	if err := os.MkdirAll(jobDir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(copyFlinkLog(t, scen), filepath.Join(jobDir, "job-events")); err != nil {
		t.Fatal(err)
	}
	runCLI(t, "import", filepath.Join(logsDir, "healthy.jsonl"), filepath.Join(root, "jobs", "healthy")).wantCode(t, 0)
	r := runCLI(t, "ls", root, "--format", "json").wantCode(t, 0)
	var out struct {
		Logs []struct {
			Job    string `json:"job"`
			Status string `json:"status"`
			Events int64  `json:"events"`
		} `json:"logs"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	var flinkJobs int
	for _, l := range out.Logs {
		if l.Status == "flink" {
			flinkJobs++
			if l.Job != job || l.Events == 0 {
				t.Errorf("flink job listed as %+v", l)
			}
		}
	}
	if flinkJobs != 1 || len(out.Logs) != 2 {
		t.Fatalf("ls: %s", r.stdout)
	}
	u := "file://" + filepath.ToSlash(root) + "?prefix=default/" + job + "/job-events/"
	r = runCLI(t, "dump", u, "--format", "json", "--kind", "vertex_initialized").wantCode(t, 0)
	if !strings.Contains(r.stdout, `"job":"`+job+`"`) {
		t.Errorf("dump of %s:\n%s", u, r.stdout)
	}
}

// TestFlink_ValidateProfile: validate's Flink profile reports a user
// accumulator class (Flink deserializes it with the system class loader
// on replay) and does not report a coordinator snapshot of an operator
// that is not a chain head.
func TestFlink_ValidateProfile(t *testing.T) {
	src := filepath.Join("..", "..", "pkg", "flink", "testdata", "jobevents", "v1_20", "job-events", "events.0")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Skipf("no fixture: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "job-events")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "validate", filepath.Dir(src)).wantCode(t, 0)
	if !strings.Contains(r.stdout, "no findings") {
		t.Errorf("validate of the fixture:\n%s", r.stdout)
	}
	// The same length, so the record stays well framed.
	user := strings.Replace(string(data), "org.apache.flink.api.common.accumulators.LongCounter", "com.example.jobs.metrics.accumulator.BadRowsCounter1", 1)
	if err := os.WriteFile(filepath.Join(dir, "events.0"), []byte(user), 0o666); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, "validate", dir, "--format", "github").wantCode(t, 0)
	if !strings.Contains(r.stdout, "title=flink-user-accumulator") || !strings.Contains(r.stdout, "BadRowsCounter1") {
		t.Errorf("validate:\n%s", r.stdout)
	}
}

// TestFlink_CoordinatorFlag: --coordinator by name changes the plan (a
// source without batch snapshots); one that names no vertex is a warning.
func TestFlink_CoordinatorFlag(t *testing.T) {
	scen := firstScenario(t, "rebalance-hash")
	dir, plan := scen.JobEvents, scen.Plan
	base := runCLI(t, "replay", dir, "--dry-run", "--format", "json", "--flink-plan", plan).wantCode(t, 0)
	r := runCLI(t, "replay", dir, "--dry-run", "--format", "json", "--flink-plan", plan, "--coordinator", "Source: numbers -> src=no_batch_snapshot").wantCode(t, 0)
	if r.stdout == base.stdout {
		t.Errorf("--coordinator by name changed nothing:\n%s", r.stdout)
	}
	if strings.Contains(r.stderr, "names no vertex") {
		t.Errorf("a vertex named by the plan was not matched:\n%s", r.stderr)
	}
	r = runCLI(t, "replay", dir, "--dry-run", "--coordinator", "nosuch=none").wantCode(t, 0)
	if !strings.Contains(r.stderr, "--coordinator nosuch=none names no vertex") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	runCLI(t, "replay", dir, "--dry-run", "--coordinator", "x=maybe").wantOneLineError(t, 2, "bad --coordinator")
}

// TestFlink_NoWrites: the commands that write to a log refuse a Flink
// job-events directory and leave it as it was.
func TestFlink_NoWrites(t *testing.T) {
	dir := copyFlinkLog(t, firstScenario(t, "rebalance-hash"))
	before, _ := os.ReadDir(dir)
	runCLI(t, "cancel", dir).wantOneLineError(t, 2, "Flink job-events directory", "cancel would write")
	runCLI(t, "compact", dir).wantOneLineError(t, 2, "compact would write")
	runCLI(t, "run", filepath.Join("..", "..", "testdata", "jobs", "flink-failover.yaml"), "--events", dir).wantOneLineError(t, 2, "run would write")
	after, _ := os.ReadDir(dir)
	if len(after) != len(before) {
		t.Fatalf("the directory changed: %d entries, was %d", len(after), len(before))
	}
}
