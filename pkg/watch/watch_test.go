package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/logsource"
)

// testJob is the job id the fixtures are replayed under.
const testJob = "0123456789abcdef0123456789abcdef"

// fixtureDirs returns the job-events directories of the committed Flink
// fixtures, in either layout.
func fixtureDirs(t *testing.T) []string {
	var dirs []string
	for _, g := range []string{"../../testdata/flink/*/*/job-events", "../../testdata/flink/*/*/ha/*/*/job-events"} {
		m, _ := filepath.Glob(g)
		dirs = append(dirs, m...)
	}
	if len(dirs) == 0 {
		t.Fatal("no Flink fixtures under testdata/flink")
	}
	return dirs
}

// eventsOf reads a LOG as a command does, times dropped, as canonical JSONL.
func eventsOf(t *testing.T, url string) string {
	t.Helper()
	src, err := logsource.Open(context.Background(), url, logsource.Options{})
	if err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	defer src.Close()
	var buf bytes.Buffer
	for {
		e, err := src.Next()
		if err == io.EOF {
			return buf.String()
		}
		if err != nil {
			t.Fatalf("read %s: %v", url, err)
		}
		e.Time = time.Time{}
		buf.Write(format.AppendJSON(nil, &e))
		buf.WriteByte('\n')
	}
}

// planJSON is the dry run of a LOG as JSON.
func planJSON(t *testing.T, url string) (string, *metricsWant) {
	t.Helper()
	_, p, _, err := plan(context.Background(), url, 0)
	if err != nil {
		t.Fatalf("plan %s: %v", url, err)
	}
	data, _ := json.Marshal(p)
	return string(data), &metricsWant{keep: p.Summary.Keep, rerun: p.Summary.Rerun, run: p.Summary.Run}
}

type metricsWant struct{ keep, rerun, run int }

// scrape parses /metrics with expfmt.
func scrape(t *testing.T, w *Watcher) map[string]*dto {
	t.Helper()
	rec := httptest.NewRecorder()
	w.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v\n%s", err, rec.Body.String())
	}
	out := map[string]*dto{}
	for name, f := range fams {
		for _, m := range f.Metric {
			var labels []string
			for _, l := range m.Label {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			slices.Sort(labels)
			v := 0.0
			switch {
			case m.Gauge != nil:
				v = m.Gauge.GetValue()
			case m.Counter != nil:
				v = m.Counter.GetValue()
			}
			out[name+"{"+strings.Join(labels, ",")+"}"] = &dto{v}
		}
	}
	return out
}

type dto struct{ v float64 }

func newTestWatcher(t *testing.T, src, root string) *Watcher {
	t.Helper()
	w, err := New(context.Background(), Options{Sources: []string{src}, Archive: root, Interval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	if err := w.Claim(context.Background()); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestWatch_FixtureSteps replays each fixture's files into a directory step
// by step (half of events.0, the rest of it, events.1 ..., then the
// directory deleted) and checks, at each step, that the archive reads as
// the job-events do and that the metrics are their dry run.
func TestWatch_FixtureSteps(t *testing.T) {
	for _, fix := range fixtureDirs(t) {
		name := strings.TrimPrefix(fix, "../../testdata/flink/")
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "ha")
			jobDir := filepath.Join(src, "cluster-a", testJob, "job-events")
			root := filepath.Join(dir, "archive")
			if err := os.MkdirAll(jobDir, 0o755); err != nil {
				t.Fatal(err)
			}
			os.MkdirAll(root, 0o755)
			w := newTestWatcher(t, src, root)
			arch := root + "/cluster-a/" + testJob
			files, _ := filepath.Glob(filepath.Join(fix, "events.*"))
			slices.Sort(files)
			var steps [][2]any // file, bytes
			for _, f := range files {
				data, _ := os.ReadFile(f)
				steps = append(steps, [2]any{filepath.Base(f), data[:len(data)/2]}, [2]any{filepath.Base(f), data})
			}
			for i, st := range steps {
				if err := os.WriteFile(filepath.Join(jobDir, st[0].(string)), st[1].([]byte), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := w.Poll(context.Background()); err != nil {
					t.Fatalf("step %d: poll: %v", i, err)
				}
				want, got := eventsOf(t, jobDir), eventsOf(t, arch)
				if got != want {
					t.Fatalf("step %d (%s, %d bytes): archive events\n%s\nwant\n%s", i, st[0], len(st[1].([]byte)), got, want)
				}
				wantPlan, m := planJSON(t, jobDir)
				if gotPlan, _ := planJSON(t, arch); gotPlan != wantPlan {
					t.Fatalf("step %d: archive plan %s, want %s", i, gotPlan, wantPlan)
				}
				ms := scrape(t, w)
				for d, n := range map[string]int{"keep": m.keep, "rerun": m.rerun, "run": m.run} {
					k := "jobevent_flink_subtasks{decision=" + d + ",job=" + testJob + ",job_name=}"
					if ms[k] == nil || int(ms[k].v) != n {
						t.Fatalf("step %d: %s = %v, want %d", i, k, ms[k], n)
					}
				}
			}
			// The directory as Flink last wrote it, read as watch read it
			// (without the fixture's own HA directory), before Flink
			// deletes it.
			full := eventsOf(t, jobDir)
			os.RemoveAll(filepath.Join(src, "cluster-a"))
			if err := w.Poll(context.Background()); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(arch, logsource.ArchiveEnded)); err != nil {
				t.Fatalf("archive not completed after the directory went: %v", err)
			}
			if got := eventsOf(t, arch); got != full {
				t.Fatalf("archive after the end:\n%s\nwant the fixture's\n%s", got, full)
			}
			for _, f := range files {
				a, _ := os.ReadFile(f)
				b, err := os.ReadFile(filepath.Join(arch, "flink", testJob, "job-events", filepath.Base(f)))
				if err != nil || !bytes.Equal(a, b) {
					t.Fatalf("copy of %s differs from Flink's file (%v)", f, err)
				}
			}
			if ms := scrape(t, w); ms["jobevent_watch_jobs{state=ended}"] == nil || ms["jobevent_watch_jobs{state=ended}"].v != 1 {
				t.Fatalf("jobs ended = %v, want 1", ms["jobevent_watch_jobs{state=ended}"])
			}
		})
	}
}

// TestWatch_JSONLog: with JSONLog every alert is one JSON object a line.
func TestWatch_JSONLog(t *testing.T) {
	var buf bytes.Buffer
	w := &Watcher{opts: Options{Log: &buf, JSONLog: true, Now: time.Now}}
	w.logf("job %s: recording stopped", "j")
	var line struct{ Time, Message string }
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil || line.Message != "job j: recording stopped" || strings.Count(buf.String(), "\n") != 1 {
		t.Fatalf("log line %q: %v", buf.String(), err)
	}
}
