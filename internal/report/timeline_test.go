package report

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobevent/jobevent/internal/loggen"
	"github.com/jobevent/jobevent/internal/testenv"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

const logsDir = "../../testdata/logs"

// jsonlSource opens a JSONL log of testdata/logs.
func jsonlSource(t *testing.T, name string) replay.Source {
	t.Helper()
	f, err := os.Open(filepath.Join(logsDir, name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return format.NewJSONReader(f)
}

// generatedLog is a job with failures, partition losses and two
// failovers, stopped while it runs: every outcome appears.
func generatedLog() replay.Source {
	return loggen.Job(loggen.Options{Seed: 5, Vertices: 6, Sources: 2, MaxParallelism: 5, FailureRate: 0.12,
		PartitionLossRate: 0.05, FailoverAt: []int64{35, 62}, LoseWorkerOnFailover: true, StopAfter: 80})
}

func build(t *testing.T, src replay.Source) *Timeline {
	t.Helper()
	tl, err := BuildTimeline(src, TimelineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// element is one start element of a parsed document.
type element struct {
	name  string
	attrs map[string]string
}

// parseXML parses a document strictly as XML and returns its elements.
func parseXML(t *testing.T, doc []byte) []element {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(doc))
	dec.Strict = true
	var out []element
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("not well-formed: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			e := element{name: se.Name.Local, attrs: make(map[string]string)}
			for _, a := range se.Attr {
				e.attrs[a.Name.Local] = a.Value
			}
			out = append(out, e)
		}
	}
}

// count returns how many elements have attribute key (with value, if
// value is not empty).
func count(elems []element, key, value string) int {
	n := 0
	for _, e := range elems {
		if v, ok := e.attrs[key]; ok && (value == "" || v == value) {
			n++
		}
	}
	return n
}

func TestTimeline_SVG(t *testing.T) {
	tl := build(t, jsonlSource(t, "failover.jsonl"))
	var buf bytes.Buffer
	if err := WriteTimelineSVG(&buf, tl); err != nil {
		t.Fatal(err)
	}
	elems := parseXML(t, buf.Bytes())
	if n := count(elems, "data-lane", ""); n != 10 {
		t.Fatalf("lanes = %d, want 10 (3+3+2+2 subtasks)", n)
	}
	if n := count(elems, "data-outcome", ""); n != 11 {
		t.Fatalf("attempt bars = %d, want 11", n)
	}
	if n := count(elems, "data-outcome", "reset"); n != 1 {
		t.Fatalf("reset bars = %d, want 1 (source/2 attempt 0, reset by the recovery)", n)
	}
	if n := count(elems, "data-epoch", ""); n != 2 {
		t.Fatalf("epoch lines = %d, want 2", n)
	}
	reran, critical := 0, 0
	for _, e := range elems {
		if strings.Contains(e.attrs["class"], "reran") && e.attrs["data-lane"] != "" {
			reran++
			if e.attrs["data-lane"] != "source/2" {
				t.Fatalf("lane %s highlighted, want only source/2", e.attrs["data-lane"])
			}
		}
		if strings.Contains(e.attrs["class"], "critical") && e.attrs["data-subtask"] != "" {
			critical++
		}
	}
	if reran != 1 || critical != 5 {
		t.Fatalf("reran lanes = %d, critical bars = %d; want 1 and 5", reran, critical)
	}
	if !strings.Contains(buf.String(), "no master 41s") {
		t.Fatal("the 41 s without a master is not labeled")
	}
	if count(elems, "class", "exp-area") != 1 || count(elems, "class", "exp-dot") != 1 {
		t.Fatal("want one exposure area and one prediction dot")
	}
}

// TestTimeline_HTML: the page is well-formed, self-contained, and holds
// the chart and the tables.
func TestTimeline_HTML(t *testing.T) {
	tl := build(t, generatedLog())
	var buf bytes.Buffer
	if err := WriteTimelineHTML(&buf, tl); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	elems := parseXML(t, buf.Bytes())
	if n := count(elems, "data-lane", ""); n != tl.Lanes() || n == 0 {
		t.Fatalf("lanes = %d, want %d", n, tl.Lanes())
	}
	for _, o := range []replay.Outcome{replay.OutcomeFinished, replay.OutcomeFailed, replay.OutcomeReset,
		replay.OutcomeInterrupted, replay.OutcomeRunning} {
		if count(elems, "data-outcome", string(o)) == 0 {
			t.Errorf("no %s attempt drawn", o)
		}
	}
	for _, bad := range []string{"<script", "src=", "href=", "@import", "url(http", "//cdn"} {
		if strings.Contains(page, bad) {
			t.Fatalf("page contains %q: it must load nothing", bad)
		}
	}
	for _, want := range []string{"<h2>Vertices</h2>", "<h2>Failovers</h2>", "<h2>Critical path</h2>", "recovering"} {
		if !strings.Contains(page, want) {
			t.Fatalf("page lacks %q", want)
		}
	}
	if n := count(elems, "data-epoch", ""); n != 3 {
		t.Fatalf("epoch lines = %d, want 3", n)
	}
}

// TestTimeline_Degenerate: empty and tiny logs render without failing.
func TestTimeline_Degenerate(t *testing.T) {
	one := []format.Event{{Seq: 1, Epoch: 1, Kind: format.KindJobSubmitted, Job: "j",
		Graph: &format.Graph{Vertices: []format.Vertex{{ID: "a", MaxParallelism: 4}}}}}
	for name, src := range map[string]replay.Source{
		"empty":     &replay.SliceSource{},
		"submitted": &replay.SliceSource{Events: one},
	} {
		tl := build(t, src)
		for _, write := range []func(io.Writer, *Timeline) error{WriteTimelineSVG, WriteTimelineHTML} {
			var buf bytes.Buffer
			if err := write(&buf, tl); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			parseXML(t, buf.Bytes())
			if strings.Contains(buf.String(), "NaN") || strings.Contains(buf.String(), "Inf") {
				t.Fatalf("%s: coordinates are not numbers", name)
			}
		}
	}
}

// TestTimeline_SourceError: an error of the source is returned.
func TestTimeline_SourceError(t *testing.T) {
	boom := errors.New("boom")
	if _, err := BuildTimeline(errSource{boom}, TimelineOptions{}); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
}

type errSource struct{ err error }

func (s errSource) Next() (format.Event, error) { return format.Event{}, s.err }

func TestTimeScale(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	sc := newTimeScale(t0, at(50), 0, 1088, [][2]time.Time{{at(2), at(42)}, {at(45), at(45.1)}})
	// 10 s of work over 1000 px, the 40 s gap as a break; the short gap
	// stays linear.
	for _, c := range []struct {
		s, x float64
	}{{0, 0}, {2, 200}, {42, 288}, {45, 588}, {50, 1088}, {-1, 0}, {60, 1088}} {
		if got := sc.x(at(c.s)); got < c.x-0.01 || got > c.x+0.01 {
			t.Fatalf("x(%gs) = %g, want %g", c.s, got, c.x)
		}
	}
	for _, tk := range sc.ticks(t0, 10, offsetLabel) {
		if sc.nearGap(tk.x, 27) {
			t.Fatalf("tick %q at %g inside the gap's label", tk.label, tk.x)
		}
	}
	for _, c := range []struct {
		in   time.Duration
		want time.Duration
	}{{3 * time.Millisecond, 5 * time.Millisecond}, {time.Second, time.Second}, {1100 * time.Millisecond, 2 * time.Second},
		{40 * time.Second, time.Minute}, {90 * time.Minute, 2 * time.Hour}} {
		if got := niceStep(c.in); got != c.want {
			t.Fatalf("niceStep(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

// TestTimeline_Chromium loads the page in headless Chromium: it must
// render (a screenshot of the window's size) and hold every lane in its
// DOM, without console errors. It is skipped when chromium is not
// installed, except in CI (CI=true), where it fails. Set
// JOBEVENT_TIMELINE_OUT=DIR to keep the pages and screenshots.
func TestTimeline_Chromium(t *testing.T) {
	bin := testenv.Need(t, "chromium", "apt-get install chromium")
	dir := t.TempDir()
	if keep := os.Getenv("JOBEVENT_TIMELINE_OUT"); keep != "" {
		dir = keep
	}
	cases := map[string]replay.Source{"failover": jsonlSource(t, "failover.jsonl"), "generated": generatedLog()}
	for name, src := range cases {
		tl := build(t, src)
		page := filepath.Join(dir, name+".html")
		var buf bytes.Buffer
		if err := WriteTimelineHTML(&buf, tl); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		shot := filepath.Join(dir, name+".png")
		out := runChromium(t, bin, "--screenshot="+shot, "--window-size=1400,900", "file://"+page)
		checkConsole(t, name, out)
		f, err := os.Open(shot)
		if err != nil {
			t.Fatalf("%s: no screenshot: %v\n%s", name, err, out)
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil || cfg.Width != 1400 || cfg.Height != 900 {
			t.Fatalf("%s: screenshot %dx%d (%v), want a 1400x900 PNG", name, cfg.Width, cfg.Height, err)
		}
		dom := runChromium(t, bin, "--dump-dom", "file://"+page)
		checkConsole(t, name, dom)
		if n := strings.Count(dom, "data-lane="); n != tl.Lanes() {
			t.Fatalf("%s: %d lanes in the DOM, want %d", name, n, tl.Lanes())
		}
		if n := strings.Count(dom, "data-outcome="); n != len(tl.Attempts) {
			t.Fatalf("%s: %d attempt bars in the DOM, want %d", name, n, len(tl.Attempts))
		}
	}
}

// runChromium runs headless Chromium with a fresh profile, no network
// services, and console logging on stderr; it returns stdout and stderr.
func runChromium(t *testing.T, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0"}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
	}
	return stdout.String() + stderr.String()
}

// checkConsole fails on a console error or an uncaught exception in
// Chromium's log.
func checkConsole(t *testing.T, name, log string) {
	t.Helper()
	for _, bad := range []string{"Uncaught", "ERROR:CONSOLE", "Refused to", "net::ERR_"} {
		if strings.Contains(log, bad) {
			t.Fatalf("%s: chromium reports %q:\n%s", name, bad, log)
		}
	}
}

// BenchmarkTimelineHTML: build and render the timeline of a log of a
// 1,000-subtask job (1,000 lanes) with failures and a failover.
func BenchmarkTimelineHTML(b *testing.B) {
	var events []format.Event
	g := loggen.Job(loggen.BenchOptions(1, 1000, 20000))
	for {
		e, err := g.Next()
		if err != nil {
			break
		}
		events = append(events, e)
	}
	b.ResetTimer()
	var size int
	for i := 0; i < b.N; i++ {
		tl, err := BuildTimeline(&replay.SliceSource{Events: events}, TimelineOptions{Points: 2000})
		if err != nil {
			b.Fatal(err)
		}
		var buf bytes.Buffer
		if err := WriteTimelineHTML(&buf, tl); err != nil {
			b.Fatal(err)
		}
		size = buf.Len()
	}
	b.ReportMetric(float64(len(events)), "events")
	b.ReportMetric(float64(size), "bytes")
}
