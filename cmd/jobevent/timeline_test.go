package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestTimeline_Files(t *testing.T) {
	dir := t.TempDir()
	html, svg := filepath.Join(dir, "t.html"), filepath.Join(dir, "t.svg")
	r := runCLI(t, "timeline", logPath("failover.jsonl"), "--html", html, "--svg", svg).wantCode(t, 0)
	want := "wrote " + html + " and " + svg + ": job wordcount, 11 attempts in 10 lanes, 2 epochs, 1 subtask rerun by failovers, 33 exposure points\n"
	if r.stdout != want {
		t.Fatalf("stdout = %q, want %q", r.stdout, want)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(page), "<!DOCTYPE html>") || strings.Count(string(page), "data-lane=") != 10 {
		t.Fatalf("page is not the timeline:\n%.300s", page)
	}
	img, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(img), "<?xml") || !strings.Contains(string(img), "<svg xmlns=") {
		t.Fatalf("svg file is not an SVG image:\n%.200s", img)
	}
}

func TestTimeline_JSONAndStdout(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "t.svg")
	r := runCLI(t, "timeline", "--format", "json", logPath("running.jsonl"), "--svg", svg, "--points", "5").wantCode(t, 0)
	var sum timelineSummary
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Job != "wordcount" || sum.Points > 5 || sum.Points < 2 || sum.Failovers != 0 || len(sum.Files) != 1 {
		t.Fatalf("summary = %+v", sum)
	}
	out := runCLI(t, "timeline", logPath("healthy.jsonl"), "--svg", "-").wantCode(t, 0)
	if !strings.HasPrefix(out.stdout, "<?xml") || !strings.HasSuffix(out.stdout, "</svg>\n") {
		t.Fatalf("--svg - wrote %.100q", out.stdout)
	}
}

func TestTimeline_Usage(t *testing.T) {
	runCLI(t, "timeline", logPath("healthy.jsonl")).wantOneLineError(t, 2, "want --html FILE or --svg FILE")
	runCLI(t, "timeline", logPath("healthy.jsonl"), "--html", "-", "--svg", "-").wantOneLineError(t, 2, "stdout")
	runCLI(t, "timeline", logPath("healthy.jsonl"), "--svg", "x.svg", "--points", "-1").wantOneLineError(t, 2, "bad --points")
	runCLI(t, "timeline", logPath("healthy.jsonl"), "--html", filepath.Join(t.TempDir(), "no", "such", "x.html")).
		wantOneLineError(t, 2, "timeline:")
}

// sweepView is the JSON of replay --dry-run --sweep.
type sweepView struct {
	Job         string           `json:"job"`
	Points      []sweepPointView `json:"points"`
	MostExposed *sweepPointView  `json:"most_exposed"`
}

// sweepPointView is one point of a sweep.
type sweepPointView struct {
	Seq          int64   `json:"seq"`
	Time         string  `json:"time"`
	Epoch        int32   `json:"epoch"`
	Kind         string  `json:"kind"`
	Keep         int     `json:"keep"`
	Rerun        int     `json:"rerun"`
	Run          int     `json:"run"`
	Discarded    int     `json:"discarded"`
	RerunBytes   int64   `json:"rerun_bytes"`
	RerunSeconds float64 `json:"rerun_seconds"`
}

// TestReplay_Sweep: every point of the sweep equals the plan of
// "replay --dry-run --at SEQ" on the same log.
func TestReplay_Sweep(t *testing.T) {
	for _, log := range []string{"failover.jsonl", "running.jsonl"} {
		r := runCLI(t, "replay", logPath(log), "--dry-run", "--sweep", "--points", "0", "--format", "json").wantCode(t, 0)
		var sw sweepView
		dec := json.NewDecoder(strings.NewReader(r.stdout))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&sw); err != nil {
			t.Fatal(err)
		}
		if sw.Job != "wordcount" || len(sw.Points) < 20 {
			t.Fatalf("%s: job %q, %d points", log, sw.Job, len(sw.Points))
		}
		if sw.MostExposed == nil || !slices.Contains(sw.Points, *sw.MostExposed) {
			t.Fatalf("%s: most_exposed %+v is none of the points", log, sw.MostExposed)
		}
		for _, p := range sw.Points {
			if p.RerunSeconds > sw.MostExposed.RerunSeconds {
				t.Fatalf("%s: seq %d redoes more (%gs) than the most exposed point (%gs)", log, p.Seq, p.RerunSeconds, sw.MostExposed.RerunSeconds)
			}
		}
		for _, p := range sw.Points {
			plan := decodePlan(t, runCLI(t, "replay", logPath(log), "--dry-run", "--at", itoa64(p.Seq), "--format", "json").wantCode(t, 0).stdout)
			if plan.Summary.Keep != p.Keep || plan.Summary.Rerun != p.Rerun || plan.Summary.Run != p.Run || plan.Epoch != p.Epoch {
				t.Fatalf("%s seq %d: sweep %+v, plan %+v", log, p.Seq, p, plan.Summary)
			}
		}
	}
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

func TestReplay_SweepTable(t *testing.T) {
	r := runCLI(t, "replay", logPath("failover.jsonl"), "--sweep", "--dry-run", "--points", "12").wantCode(t, 0)
	for _, want := range []string{
		"job wordcount: exposure sweep, 9 points (every 4 events, capped at --points 12)",
		"most exposed: after seq 8 (epoch 1, subtask_finished): rerun 3, redo 2.08s of work and 115.0 KiB of results",
		"│ 33  │ 10:00:45.132 │ 2     │ job_finished",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Fatalf("sweep table lacks %q:\n%s", want, r.stdout)
		}
	}
	lost := runCLI(t, "replay", logPath("running.jsonl"), "--dry-run", "--sweep", "--lost-worker", "w2", "--format", "json").wantCode(t, 0)
	all := runCLI(t, "replay", logPath("running.jsonl"), "--dry-run", "--sweep", "--format", "json").wantCode(t, 0)
	if lost.stdout == all.stdout {
		t.Fatal("--lost-worker w2 does not change the sweep")
	}
	runCLI(t, "replay", logPath("failover.jsonl"), "--sweep").wantOneLineError(t, 2, "--sweep needs --dry-run")
	runCLI(t, "replay", logPath("failover.jsonl"), "--dry-run", "--sweep", "--points", "-3").wantOneLineError(t, 2, "bad --points")
	runCLI(t, "replay", logPath("failover.jsonl"), "--dry-run", "--sweep", "--lost-partition", "nosuch/0").
		wantOneLineError(t, 2, "unknown vertex")
}

// TestTimeline_MostExposedAsSweep: the timeline's "most exposed" card and
// replay --dry-run --sweep name the same point of the same log
// (replay.MostExposed).
func TestTimeline_MostExposedAsSweep(t *testing.T) {
	for _, log := range []string{"failover.jsonl", "running.jsonl", "no-batch-snapshot.jsonl"} {
		sweep := runCLI(t, "replay", logPath(log), "--dry-run", "--sweep", "--points", "0").wantCode(t, 0).stdout
		page := runCLI(t, "timeline", logPath(log), "--html", "-", "--points", "0").wantCode(t, 0).stdout
		m := regexp.MustCompile(`most exposed: after seq (\d+) `).FindStringSubmatch(sweep)
		n := regexp.MustCompile(`most exposed: reruns after seq (\d+)`).FindStringSubmatch(page)
		if m == nil || n == nil {
			t.Fatalf("%s: no most exposed point: sweep %v, timeline %v", log, m, n)
		}
		if m[1] != n[1] {
			t.Errorf("%s: timeline's most exposed seq %s, sweep's %s", log, n[1], m[1])
		}
	}
}
