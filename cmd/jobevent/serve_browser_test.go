package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/jobevent/jobevent/internal/serve"
	"github.com/jobevent/jobevent/internal/testenv"
	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/logsource"
)

// browser starts a headless Chromium (Debian's) and returns its context
// and the URLs of every request the pages made.
func browser(t *testing.T) (context.Context, func() []string) {
	t.Helper()
	exe := testenv.Need(t, "chromium", "apt-get install chromium")
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.Flag("disable-background-networking", true), chromedp.WindowSize(1400, 1000))
	actx, cancelAlloc := chromedp.NewExecAllocator(testenv.Context(t), opts...)
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithBrowserOption(chromedp.WithDialTimeout(time.Minute))) // a loaded machine starts it slowly
	t.Cleanup(func() { cancel(); cancelAlloc() })
	var mu sync.Mutex
	var urls []string
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			urls = append(urls, e.Request.URL)
			mu.Unlock()
		}
	})
	if err := chromedp.Run(ctx, network.Enable()); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	return ctx, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), urls...) }
}

// screenshot saves the page as NAME.png in $JOBEVENT_SCREENSHOTS, when set.
func screenshot(t *testing.T, ctx context.Context, name string) {
	dir := os.Getenv("JOBEVENT_SCREENSHOTS")
	if dir == "" {
		return
	}
	var png []byte
	if err := chromedp.Run(ctx, chromedp.FullScreenshot(&png, 100)); err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// growingLog writes the first n events of a testdata log to a bucket log
// at prefix jobs/live/ of root, as a running master would, and returns a
// function that appends the rest as one more segment.
func growingLog(t *testing.T, root, name string, n int) (appendRest func()) {
	ctx := testenv.Context(t)
	src, err := logsource.Open(ctx, logPath(name), logsource.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var events []format.Event
	for {
		e, err := src.Next()
		if err != nil {
			break
		}
		events = append(events, e)
	}
	src.Close()
	l, err := blob.Open(ctx, "file://"+root+"?prefix=jobs/live/")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if err := l.ClaimEpoch(ctx, blob.EpochInfo{Epoch: events[0].Epoch, Master: "127.0.0.1:7100", StartSeq: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.WriteSegment(ctx, events[:n]); err != nil {
		t.Fatal(err)
	}
	return func() {
		if _, err := l.WriteSegment(ctx, events[n:]); err != nil {
			t.Error(err)
		}
	}
}

// TestServe_Browser drives the pages in a real headless Chromium: the list
// shows every job; a job page its failovers and plan with names; the
// what-if form with a lost worker shows the plan of replay --dry-run
// --lost-worker; a growing log updates its page within 2 s; and no
// request leaves 127.0.0.1.
func TestServe_Browser(t *testing.T) {
	ctx, requests := browser(t)
	root := importedRoot(t)
	appendRest := growingLog(t, root, "healthy.jsonl", 12)
	s, err := serve.New(testenv.Context(t), []string{root}, serve.Options{Poll: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	srv := httptest.NewServer(s)
	defer func() { srv.CloseClientConnections(); srv.Close() }() // the page's stream

	_, body := apiGet(t, srv, "/api/v1/jobs")
	var jobs struct{ Logs []struct{ ID, Log string } }
	if err := json.Unmarshal([]byte(body), &jobs); err != nil {
		t.Fatal(err)
	}
	var ids []string
	runBrowser(t, ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible("#jobs"),
		chromedp.Evaluate(`[...document.querySelectorAll("tr.job")].map(r => r.dataset.id)`, &ids))
	screenshot(t, ctx, "list")
	if len(ids) != len(jobs.Logs) || len(ids) < 6 {
		t.Fatalf("the list shows %q, want the %d jobs of the API", ids, len(jobs.Logs))
	}
	for i, j := range jobs.Logs {
		if ids[i] != j.ID {
			t.Errorf("row %d = %s, want %s", i, ids[i], j.ID)
		}
	}

	// A job page: its failover, and the plan with the vertices named.
	var failovers int
	var planNames []string
	runBrowser(t, ctx, chromedp.Navigate(srv.URL+"/jobs/jobs%2Ffailover"), chromedp.WaitVisible("#plan-table"),
		chromedp.Evaluate(`document.querySelectorAll("tr.failover").length`, &failovers),
		chromedp.Evaluate(`[...document.querySelectorAll("tr.plan-row td:first-child")].map(td => td.textContent)`, &planNames))
	screenshot(t, ctx, "job")
	if failovers != 1 || len(planNames) == 0 || !strings.Contains(strings.Join(planNames, " "), "words") {
		t.Errorf("job page: %d failovers, plan names %q; want 1 failover and the vertices named", failovers, planNames)
	}

	// The what-if form: a failover after seq 9 that loses worker w1,
	// whose partitions the plan then cannot keep.
	const at, lost = "9", "w1"
	var rows [][]string
	var summary string
	runBrowser(t, ctx, chromedp.SetValue(`input[name="at"]`, at), chromedp.SetValue(`input[name="lost_worker"]`, lost),
		chromedp.Click("#whatif-submit"))
	// The submit navigates: until the answer's page is loaded, a script
	// may run in the page being left (and fail when it goes), so ask
	// again until the new page answers.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var loaded bool
		err := chromedp.Run(ctx, chromedp.Evaluate(`location.search.includes("at=`+at+`") && location.search.includes("lost_worker=`+lost+`") && document.readyState == "complete" && document.querySelector("#plan-summary") != null`, &loaded))
		if err == nil && loaded {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the what-if answer did not load within 30 s (last error: %v)", err)
		}
	}
	runBrowser(t, ctx, chromedp.Evaluate(`[...document.querySelectorAll("tr.plan-row")].map(r => [...r.cells].slice(1, 6).map(c => c.textContent))`, &rows),
		chromedp.Text("#plan-summary", &summary))
	screenshot(t, ctx, "whatif")
	log := jobURL(jobs.Logs, "jobs%2Ffailover")
	want, wantSummary := cliPlanRows(t, "replay", log, "--dry-run", "--at", at, "--lost-worker", lost, "--format", "json")
	if got, w := toJSON(rows), toJSON(want); got != w {
		t.Errorf("what-if at %s lost %s shows\n%s\nwant replay --dry-run --at %s --lost-worker %s:\n%s", at, lost, got, at, lost, w)
	}
	if !strings.Contains(summary, wantSummary) {
		t.Errorf("what-if summary %q, want %q", summary, wantSummary)
	}
	// The worker lost changes the plan: the what-if is not the plan at 9.
	if noLoss, _ := cliPlanRows(t, "replay", log, "--dry-run", "--at", at, "--format", "json"); toJSON(noLoss) == toJSON(want) {
		t.Errorf("the plan at %s is the same with and without %s lost: the what-if checks nothing", at, lost)
	}

	// A growing log: the page follows it.
	var seq string
	runBrowser(t, ctx, chromedp.Navigate(srv.URL+"/jobs/jobs%2Flive"), chromedp.WaitVisible("#last-seq"),
		chromedp.Text("#last-seq", &seq))
	if seq != "12" {
		t.Fatalf("live page shows last seq %q, want 12", seq)
	}
	time.Sleep(300 * time.Millisecond) // the stream is open
	appendRest()
	start := time.Now()
	wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := chromedp.Run(wctx, chromedp.Poll(`document.getElementById("last-seq").textContent == "29"`, nil)); err != nil {
		var now string
		_ = chromedp.Run(ctx, chromedp.Text("#last-seq", &now))
		t.Fatalf("2 s after the log grew, the page shows last seq %q, want 29: %v", now, err)
	}
	t.Logf("the page showed the new events %v after they were written", time.Since(start).Round(time.Millisecond))
	// The page reloads on job_finished, to redraw the timeline and plan.
	runBrowser(t, ctx, chromedp.Sleep(time.Second), chromedp.WaitVisible("#plan-table"),
		chromedp.Poll(`document.readyState == "complete" && document.getElementById("last-seq").textContent == "29"`, nil))
	screenshot(t, ctx, "live")

	for _, u := range requests() {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "data" && p.Hostname() != "127.0.0.1") {
			t.Errorf("a request left 127.0.0.1: %s", u)
		}
	}
}

func runBrowser(t *testing.T, ctx context.Context, actions ...chromedp.Action) {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Run(tctx, actions...); err != nil {
		t.Fatalf("chromium: %v", err)
	}
}

func jobURL(logs []struct{ ID, Log string }, id string) string {
	for _, l := range logs {
		if l.ID == id {
			return l.Log
		}
	}
	return ""
}

// cliPlanRows runs the CLI's replay --dry-run --format json and returns
// its subtasks as a page's plan rows show them (id, subtask, decision,
// attempt, reasons) and its summary as the page words it.
func cliPlanRows(t *testing.T, args ...string) (rows [][]string, summary string) {
	t.Helper()
	cli := runCLI(t, args...)
	var plan struct {
		Subtasks []struct {
			Vertex   string
			Subtask  int
			Decision string
			Attempt  int
			Reasons  []string
		}
		Summary struct{ Keep, Rerun, Run int }
	}
	if err := json.Unmarshal([]byte(cli.stdout), &plan); err != nil {
		t.Fatalf("jobevent %s: %v: %s", strings.Join(args, " "), err, cli.stderr)
	}
	for _, st := range plan.Subtasks {
		rows = append(rows, []string{st.Vertex, itoa(st.Subtask), st.Decision, itoa(st.Attempt), strings.Join(st.Reasons, ", ")})
	}
	return rows, fmt.Sprintf("keep %d, rerun %d, run %d", plan.Summary.Keep, plan.Summary.Rerun, plan.Summary.Run)
}

func toJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
