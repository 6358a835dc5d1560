package serve

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/internal/answer"
	"github.com/jobevent/jobevent/internal/testenv"
	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/logsource"
	"github.com/jobevent/jobevent/pkg/replay"
)

// importedLogs imports every testdata log that imports into a bucket in a
// temporary directory, one prefix each, and returns the directory.
func importedLogs(t *testing.T) string {
	t.Helper()
	ctx := testenv.Context(t)
	dir := t.TempDir()
	files, _ := filepath.Glob("../../testdata/logs/*.jsonl")
	n := 0
	for _, f := range files {
		src, err := logsource.Open(ctx, f, logsource.Options{Raw: true})
		if err != nil {
			continue
		}
		l, err := blob.Create(ctx, "file://"+dir+"?prefix=jobs/"+strings.TrimSuffix(filepath.Base(f), ".jsonl")+"/")
		if err == nil {
			if _, err = blob.Import(ctx, l, src, blob.ImportOptions{}); err == nil {
				n++
			}
			l.Close()
		}
		src.Close()
	}
	if n < 5 {
		t.Fatalf("imported %d of %d testdata logs", n, len(files))
	}
	return dir
}

// pageAge is the heartbeat's age on a page, which moves with the clock.
var pageAge = regexp.MustCompile(`\([^()]* ago\)`)

var ageRE = regexp.MustCompile(`"heartbeat_age_seconds": [0-9.e+-]+`)

// cliPlan is replay --dry-run --at at --format json of the log, "" when
// it is an error.
func cliPlan(t *testing.T, arg string, q answer.PlanQuery) string {
	t.Helper()
	ctx := testenv.Context(t)
	src, err := logsource.Open(ctx, arg, logsource.Options{Until: q.At})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	a, err := answer.Plan(ctx, src, q)
	if err != nil {
		return ""
	}
	var buf bytes.Buffer
	if err := a.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func plannedJSON(t *testing.T, p *planned) string {
	var buf bytes.Buffer
	if err := p.writeJSON(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestView_OneRead: a job page reads its log once, and what it shows of
// that read (the status, the plan of the what-if and the plans of the
// failovers) is the CLI's answer to the same question, for every testdata
// log and Flink fixture.
func TestView_OneRead(t *testing.T) {
	ctx := testenv.Context(t)
	failoverPlans, whatIfPlans := 0, 0
	for _, root := range []string{importedLogs(t), "../../testdata/flink"} {
		s, err := New(ctx, []string{root}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		jobs, err := s.listJobs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range jobs.Logs {
			j, _ := s.resolveEncoded(e.ID)
			for _, q := range []answer.PlanQuery{{}, {At: 9}, {At: 1}, {At: 1 << 40},
				{Available: replay.AvailabilityOptions{LostWorkers: []string{"w1"}}},
				{At: 12, Available: replay.AvailabilityOptions{NoWorkers: true}}} {
				s.plans, s.timelines = newLRU[*planned](256), newLRU[*drawing](4)
				before := s.opens.Load()
				v, err := s.view(ctx, j, timeout{d: 1 << 62}, q)
				if err != nil {
					t.Fatalf("%s: view: %v", e.ID, err)
				}
				if n := s.opens.Load() - before; v.timelineErr == nil && n != 1 {
					t.Errorf("%s %+v: %d reads of the log, want 1", e.ID, q, n)
				}
				want, _, err := answer.JobStatus(ctx, j.arg, answer.StatusOptions{HeartbeatTimeout: 1 << 62,
					Open: func(arg string) (logsource.Source, error) { return logsource.Open(ctx, arg, logsource.Options{}) }})
				if err != nil {
					t.Fatal(err)
				}
				var got, wantB bytes.Buffer
				answer.WriteJSON(&got, v.status)
				answer.WriteJSON(&wantB, want)
				if g, w := ageRE.ReplaceAllString(got.String(), ""), ageRE.ReplaceAllString(wantB.String(), ""); g != w {
					t.Errorf("%s: page status\n%s\nwant status's\n%s", e.ID, g, w)
				}
				if v.whatIf != nil {
					whatIfPlans++
					if g, w := plannedJSON(t, v.whatIf), cliPlan(t, j.arg, q); g != w {
						t.Errorf("%s %+v: page plan\n%s\nwant replay --dry-run's\n%s", e.ID, q, g, w)
					}
				}
				for at, p := range v.atEpoch {
					failoverPlans++
					if g, w := plannedJSON(t, p), cliPlan(t, j.arg, answer.PlanQuery{At: at}); g != w {
						t.Errorf("%s: failover after %d: page plan\n%s\nwant replay --dry-run --at's\n%s", e.ID, at, g, w)
					}
				}
				if v.timelineErr == nil {
					for _, f := range v.drawn.failovers {
						if v.atEpoch[f.LastSeq] == nil {
							t.Errorf("%s: failover after %d not planned in the read", e.ID, f.LastSeq)
						}
					}
				}
			}
		}
	}
	if failoverPlans == 0 || whatIfPlans < 20 {
		t.Errorf("%d failover plans, %d what-if plans made in the read: the test checks too little", failoverPlans, whatIfPlans)
	}
}

// TestView_Cached: a second page of a log that has not grown reads it
// once again (for the status), draws no new timeline and shows the same.
func TestView_Cached(t *testing.T) {
	ctx := testenv.Context(t)
	root := importedLogs(t)
	s, err := New(ctx, []string{root}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	get := func(path string) string {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s = %d", path, rec.Code)
		}
		return rec.Body.String()
	}
	jobs, _ := s.listJobs(ctx)
	id := jobs.Logs[0].ID
	first := get("/jobs/" + id)
	j, _ := s.resolveEncoded(id)
	before := s.opens.Load()
	if second := get("/jobs/" + id); pageAge.ReplaceAllString(second, "") != pageAge.ReplaceAllString(first, "") {
		t.Errorf("second page differs from the first:\n%s\n----\n%s", first, second)
	}
	if n := s.opens.Load() - before; n != 1 {
		t.Errorf("second page: %d reads, want 1", n)
	}
	if _, ok := s.timelines.get(planKey(ctx, j.arg, mustOpen(t, j.arg), answer.PlanQuery{}, nil)); !ok {
		t.Errorf("timeline of %s not cached", id)
	}
}

func mustOpen(t *testing.T, arg string) logsource.Source {
	src, err := logsource.Open(testenv.Context(t), arg, logsource.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

// TestView_ManyLanes: a timeline of more lanes than a page draws keeps
// its epochs and exposure curve and says so.
func TestView_ManyLanes(t *testing.T) {
	ctx := testenv.Context(t)
	s, err := New(ctx, []string{importedLogs(t)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	get := func() string {
		s.timelines = newLRU[*drawing](4)
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/jobs/jobs%2Ffailover", nil))
		return rec.Body.String()
	}
	all := get()
	defer func(n int) { maxLanes = n }(maxLanes)
	maxLanes = 3
	bare := get()
	if !strings.Contains(bare, `id="lanes-left-out">10 subtask lanes`) || strings.Contains(all, "lanes-left-out") {
		t.Errorf("the note on lanes left out: %v with 3 lanes a page, %v with 5000; want it with 3 only",
			strings.Contains(bare, "lanes-left-out"), strings.Contains(all, "lanes-left-out"))
	}
	if strings.Contains(bare, "words/0") || !strings.Contains(all, "words/0") || !strings.Contains(bare, "exposure") {
		t.Errorf("with 3 lanes a page the chart should lose its lanes and keep the exposure curve")
	}
}
