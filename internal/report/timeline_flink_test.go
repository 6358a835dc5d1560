package report

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/internal/flinkfixture"
	"github.com/jobevent/jobevent/internal/testenv"
	"github.com/jobevent/jobevent/pkg/flink"
	"github.com/jobevent/jobevent/pkg/logsource"
)

// flinkFixture opens the job-events of a committed real Flink run
// (testdata/flink/<version>/<scenario>, found by internal/flinkfixture)
// with its plan.
func flinkFixture(t *testing.T, version, scenario string) logsource.Source {
	t.Helper()
	sc := flinkfixture.Get(t, version, scenario)
	events := sc.JobEvents
	data, err := os.ReadFile(sc.Plan)
	if err != nil {
		t.Skipf("no Flink fixture %s/%s: %v", version, scenario, err)
	}
	plan, err := flink.ParsePlan(data)
	if err != nil {
		t.Fatal(err)
	}
	src, err := logsource.Open(context.Background(), events, logsource.Options{Flink: &logsource.FlinkOptions{Plan: plan, Given: []string{"--flink-plan"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

// TestTimeline_FlinkBySeq draws a real Flink log, which has no times: the
// chart is laid out by seq (the axis says so, bars end at their event's
// seq, in order), lanes carry the vertices' names from the plan, and no
// made-up time shows anywhere. Headless Chromium renders it (in CI; it is
// skipped where chromium is not installed).
func TestTimeline_FlinkBySeq(t *testing.T) {
	src := flinkFixture(t, "1.20.5", "two-failovers")
	tl, err := BuildTimeline(src, TimelineOptions{BySeq: logsource.EventTimes(src) == logsource.TimesNone})
	if err != nil {
		t.Fatal(err)
	}
	if !tl.BySeq {
		t.Fatal("a Flink log is not laid out by seq")
	}
	for _, a := range tl.Attempts {
		if a.End.Unix() != a.EndSeq || a.Start.Unix() != a.StartSeq || a.StartSeq > a.EndSeq {
			t.Fatalf("%s attempt %d spans %v-%v, want seq %d-%d", a.SubtaskRef, a.Attempt, a.Start, a.End, a.StartSeq, a.EndSeq)
		}
	}
	var buf bytes.Buffer
	if err := WriteTimelineHTML(&buf, tl); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, bad := range []string{"0001-01-01", "1970-01-01"} {
		if strings.Contains(page, bad) {
			t.Errorf("the chart shows the made-up time %s", bad)
		}
	}
	for _, want := range []string{"laid out by seq", ">seq 1<", "Source: numbers -&gt; src", "Keyed Reduce -&gt; agg"} {
		if !strings.Contains(page, want) {
			t.Errorf("the chart lacks %q", want)
		}
	}
	// The bars of each lane, left to right, are in seq order.
	bars := regexp.MustCompile(`<rect class="a [^"]*" x="([0-9.]+)"[^>]*data-subtask="([^"]+)"`).FindAllStringSubmatch(page, -1)
	if len(bars) != len(tl.Attempts) {
		t.Fatalf("%d bars, want %d", len(bars), len(tl.Attempts))
	}

	bin := testenv.Need(t, "chromium", "apt-get install chromium")
	dir := t.TempDir()
	if keep := os.Getenv("JOBEVENT_TIMELINE_OUT"); keep != "" {
		dir = keep
	}
	file := filepath.Join(dir, "flink.html")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := runChromium(t, bin, "--dump-dom", "file://"+file)
	checkConsole(t, "flink", dom)
	if n := strings.Count(dom, "data-outcome="); n != len(tl.Attempts) {
		t.Fatalf("%d attempt bars in the DOM, want %d", n, len(tl.Attempts))
	}
	if !strings.Contains(dom, "Source: numbers -&gt; src") {
		t.Fatal("the rendered page lacks the source's name")
	}
	runChromium(t, bin, "--screenshot="+filepath.Join(dir, "flink.png"), "--window-size=1400,900", "file://"+file)
}
