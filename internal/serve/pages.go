package serve

import (
	"bytes"
	"cmp"
	"context"
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jobevent/jobevent/internal/answer"
	"github.com/jobevent/jobevent/internal/human"
	"github.com/jobevent/jobevent/internal/report"
	"github.com/jobevent/jobevent/pkg/replay"
)

//go:embed templates/*.html
var templateFS embed.FS

var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"seconds": human.Seconds,
	"bytes":   report.HumanBytes,
}).ParseFS(templateFS, "templates/*.html"))

// listRow is one job of the list page.
type listRow struct {
	ID, Job, Log, Status string
	Epochs, Failovers    int
	Events               int64
	Exposure             string // subtasks a failover now would rerun; "-" for an ended job
	Age                  string // of the newest segment, by the bucket's clock
	ageSeconds           float64
	Problem              string
}

// listPage is the data of the list page.
type listPage struct {
	Rows        []listRow
	Total       int
	Query, Sort string
	Buckets     []string
}

// ended reports whether a log's status says its job can no longer fail over.
func ended(status string) bool {
	switch status {
	case "finished", "failed", "canceled", "empty":
		return true
	}
	return false
}

func (s *Server) pageList(w http.ResponseWriter, r *http.Request) {
	jobs, err := s.listJobs(r.Context())
	if err != nil {
		pageError(w, err, "ls")
		return
	}
	q, sortBy := r.URL.Query().Get("q"), r.URL.Query().Get("sort")
	page := &listPage{Total: len(jobs.Logs), Query: q, Sort: sortBy, Buckets: jobs.Buckets}
	if len(page.Buckets) == 0 {
		page.Buckets = []string{jobs.Bucket}
	}
	now := time.Now()
	var exposed []exposure
	for _, e := range jobs.Logs {
		if q != "" && !matchesQuery(e.ID+" "+e.Job+" "+e.Status+" "+e.Prefix, q) {
			continue
		}
		row := listRow{ID: e.ID, Job: e.Job, Log: e.URL, Status: e.Status, Epochs: e.Epochs,
			Failovers: max(e.Epochs-1, 0), Events: e.Events, Exposure: "-", Age: "-", Problem: e.Problem}
		if !e.LastModified.IsZero() {
			row.ageSeconds = now.Sub(e.LastModified).Seconds()
			row.Age = human.Seconds(max(row.ageSeconds, 0)) + " ago"
		}
		page.Rows = append(page.Rows, row)
		if !ended(e.Status) && e.Events > 0 {
			exposed = append(exposed, exposure{row: len(page.Rows) - 1, entry: e})
		}
	}
	s.exposures(r.Context(), page.Rows, exposed)
	sortRows(page.Rows, sortBy)
	render(w, "list.html", page)
}

// exposure is a row of the list whose exposure now is wanted.
type exposure struct {
	row   int
	entry jobEntry
}

// exposures fills in the exposure now of the rows: from the cache when
// the log's listing (events, last seq, segments, bytes, time) has not
// changed since, else from a plan, on as many logs at once as there are
// cores.
func (s *Server) exposures(ctx context.Context, rows []listRow, want []exposure) {
	var wg sync.WaitGroup
	work := make(chan exposure)
	for range min(goruntime.GOMAXPROCS(0), len(want)) {
		wg.Go(func() {
			for x := range work {
				rows[x.row].Exposure = s.exposureNow(ctx, x.entry)
			}
		})
	}
	for _, x := range want {
		work <- x
	}
	close(work)
	wg.Wait()
}

// exposureNow is what a failover after the last event would rerun.
func (s *Server) exposureNow(ctx context.Context, e jobEntry) string {
	key := fmt.Sprintf("%q %d %d %d %d %s", e.URL, e.Events, e.LastSeq, e.Segments, e.Bytes, e.LastModified.Format(time.RFC3339Nano))
	if x, ok := s.exposed.get(key); ok {
		return x
	}
	j, ok := s.resolveEncoded(e.ID)
	if !ok {
		return "?"
	}
	a, err := s.plan(ctx, j, answer.PlanQuery{}, nil)
	if err != nil {
		return "?"
	}
	x := strconv.Itoa(a.plan.Summary.Rerun) + " rerun"
	s.exposed.put(key, x)
	return x
}

// resolveEncoded resolves an id as listed (percent-encoded).
func (s *Server) resolveEncoded(id string) (*job, bool) {
	if i := strings.IndexByte(id, ':'); i >= 0 && len(s.roots) > 1 {
		rel, err := url.PathUnescape(id[i+1:])
		if err != nil {
			return nil, false
		}
		return s.resolve(id[:i+1] + rel)
	}
	rel, err := url.PathUnescape(id)
	if err != nil {
		return nil, false
	}
	return s.resolve(rel)
}

func matchesQuery(text, q string) bool {
	text = strings.ToLower(text)
	for _, w := range strings.Fields(strings.ToLower(q)) {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

// sortRows sorts the list by a column: id (default), job, status,
// epochs, failovers, events or age; "-" first reverses it.
func sortRows(rows []listRow, by string) {
	desc := strings.HasPrefix(by, "-")
	by = strings.TrimPrefix(by, "-")
	key := map[string]func(a, b listRow) int{
		"job":       func(a, b listRow) int { return cmp.Compare(a.Job, b.Job) },
		"status":    func(a, b listRow) int { return cmp.Compare(a.Status, b.Status) },
		"epochs":    func(a, b listRow) int { return cmp.Compare(a.Epochs, b.Epochs) },
		"failovers": func(a, b listRow) int { return cmp.Compare(a.Failovers, b.Failovers) },
		"events":    func(a, b listRow) int { return cmp.Compare(a.Events, b.Events) },
		"age":       func(a, b listRow) int { return cmp.Compare(a.ageSeconds, b.ageSeconds) },
	}[by]
	slices.SortStableFunc(rows, func(a, b listRow) int {
		c := 0
		if key != nil {
			c = key(a, b)
		}
		if c == 0 {
			c = cmp.Compare(a.ID, b.ID)
		}
		if desc {
			return -c
		}
		return c
	})
}

// failoverRow is one failover of a job page: what the recovery of its
// epoch kept and reran, and why (the plan at the last seq of the master
// that died).
type failoverRow struct {
	replay.FailoverCost
	Keep, Run  int
	Reruns     []planRow
	MoreReruns int // reruns past maxWhyRows, not shown
}

// planRow is a row of a plan table, the vertex named.
type planRow struct {
	replay.SubtaskPlan
	Name string
}

// jobPage is the data of a job page.
type jobPage struct {
	ID, Log    string
	Status     *answer.Status
	Timeline   template.HTML
	BySeq      bool
	Failovers  []failoverRow
	Plan       *replay.RecoveryPlan
	Rows       []planRow
	Names      map[string]string
	WhatIf     whatIf
	Problem    string
	PlanAPI    string
	LastSeq    int64
	PlanErr    string
	StreamPath string
	Flink      bool // a Flink log: the what-if takes coordinator kinds
	MoreRows   int  // the plan's rows past maxPlanRows, not shown
	// LanesLeftOut is the lanes the timeline does not draw (maxLanes).
	LanesLeftOut int
}

// maxPlanRows and maxWhyRows bound the rows of a page's plan table and of
// a failover's reasons: a job of a million subtasks would make a page
// no browser shows. The JSON link has the whole plan.
const (
	maxPlanRows = 1000
	maxWhyRows  = 20
)

// whatIf is the what-if form's values.
type whatIf struct {
	At           string
	Lost         string // comma-separated workers
	Coordinators string // comma-separated VERTEX=KIND, of a Flink log
	NoWorkers    bool
}

func (s *Server) pageJob(w http.ResponseWriter, r *http.Request) {
	j, ok := s.resolve(r.PathValue("id"))
	if !ok {
		http.Error(w, "no job "+strconv.Quote(r.PathValue("id")), http.StatusNotFound)
		return
	}
	ctx := r.Context()
	d, err := s.heartbeatTimeout(r)
	if err != nil {
		pageError(w, err, "status")
		return
	}
	v := r.URL.Query()
	wi := whatIf{At: v.Get("at"), Lost: strings.Join(v["lost_worker"], ","), Coordinators: strings.Join(v["coordinator"], ","),
		NoWorkers: v.Get("no_workers") == "on" || v.Get("no_workers") == "true"}
	r.URL.RawQuery = whatIfQuery(v).Encode()
	q, qerr := planQuery(r)
	fo, ferr := flinkQuery(r.URL.Query()["coordinator"])
	qerr = cmp.Or(qerr, ferr)
	inRead := q
	if qerr != nil || fo != nil {
		// The what-if is not made in the page's read: a bad one is an
		// error line, one with coordinators reads the log as they say.
		inRead = answer.PlanQuery{}
	}
	view, err := s.view(ctx, j, d, inRead)
	if err != nil {
		pageError(w, err, "status")
		return
	}
	st := view.status
	p := &jobPage{ID: j.id, Log: j.arg, Status: st, LastSeq: st.LastSeq, WhatIf: wi,
		StreamPath: "/api/v1/jobs/" + j.id + "/stream?since=" + strconv.FormatInt(st.LastSeq+1, 10),
		PlanAPI:    "/api/v1/jobs/" + j.id + "/plan?" + r.URL.RawQuery}
	if view.timelineErr != nil {
		p.Problem = answer.ErrorLine(view.timelineErr, "timeline")
	} else {
		p.BySeq, p.Timeline, p.LanesLeftOut = view.drawn.bySeq, view.drawn.svg, view.drawn.lanes
		p.Failovers = s.failovers(ctx, j, view, view.drawn.failovers)
	}
	p.Flink = view.flink
	a, err := view.whatIf, qerr
	if err == nil && (a == nil || fo != nil) {
		a, err = s.plan(ctx, j, q, fo)
	}
	if err != nil {
		p.PlanErr = answer.ErrorLine(err, "replay")
	} else {
		p.Plan, p.Names = a.plan, a.names
		p.Rows = planRows(a.plan.Subtasks, p.Names, false)
		if len(p.Rows) > maxPlanRows {
			p.Rows, p.MoreRows = p.Rows[:maxPlanRows], len(p.Rows)-maxPlanRows
		}
	}
	render(w, "job.html", p)
}

// whatIfQuery turns the form's values into the plan's query parameters:
// the lost workers and coordinators fields are comma-separated lists.
func whatIfQuery(v url.Values) url.Values {
	out := url.Values{}
	if at := strings.TrimSpace(first(v["at"])); at != "" {
		out["at"] = []string{at}
	}
	for _, name := range []string{"lost_worker", "coordinator"} {
		for _, l := range v[name] {
			for _, w := range strings.Split(l, ",") {
				if w = strings.TrimSpace(w); w != "" {
					out[name] = append(out[name], w)
				}
			}
		}
	}
	if nw := first(v["no_workers"]); nw == "on" || nw == "true" {
		out["no_workers"] = []string{"true"}
	}
	return out
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// planRows are the subtask rows of a plan with their vertices' names;
// reranOnly keeps the reruns.
func planRows(subtasks []replay.SubtaskPlan, names map[string]string, reranOnly bool) []planRow {
	var rows []planRow
	for _, st := range subtasks {
		if reranOnly && st.Decision != replay.DecisionRerun {
			continue
		}
		rows = append(rows, planRow{SubtaskPlan: st, Name: cmp.Or(names[st.Vertex], st.Vertex)})
	}
	return rows
}

// maxFailoverPlans bounds the plans a job page makes of its failovers.
const maxFailoverPlans = 20

// failovers says, for each failover, what its recovery kept and reran and
// why: the plan as if the master died after the last seq of its epoch.
func (s *Server) failovers(ctx context.Context, j *job, v *jobView, costs []replay.FailoverCost) []failoverRow {
	var rows []failoverRow
	for i, f := range costs {
		row := failoverRow{FailoverCost: f}
		if i < maxFailoverPlans && f.LastSeq > 0 {
			if a, err := s.failoverPlan(ctx, j, v, f.LastSeq); err == nil {
				row.Keep, row.Run = a.plan.Summary.Keep, a.plan.Summary.Run
				row.Reruns = planRows(a.plan.Subtasks, a.names, true)
				if len(row.Reruns) > maxWhyRows {
					row.Reruns, row.MoreReruns = row.Reruns[:maxWhyRows], len(row.Reruns)-maxWhyRows
				}
			}
		}
		rows = append(rows, row)
	}
	return rows
}

func render(w http.ResponseWriter, name string, data any) {
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, name, data); err != nil {
		http.Error(w, "render: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline' 'self'; style-src 'unsafe-inline'; img-src 'self' data:")
	w.Write(buf.Bytes())
}

// pageError renders err as a page, with the API's status.
func pageError(w http.ResponseWriter, err error, command string) {
	fail(w, err, command)
}
