package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/internal/flinkfixture"
	"github.com/jobevent/jobevent/internal/serve"
	"github.com/jobevent/jobevent/internal/testenv"
)

// importedRoot imports every testdata log that imports into a bucket in a
// temporary directory, one prefix each (jobs/<name>/), and returns the
// directory.
func importedRoot(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	logs, err := filepath.Glob(filepath.Join(logsDir, "*.jsonl"))
	if err != nil || len(logs) == 0 {
		t.Fatalf("testdata logs: %v (%d)", err, len(logs))
	}
	imported := 0
	for _, f := range logs {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		if r := runCLI(t, "import", f, "file://"+dir+"?prefix=jobs/"+name+"/"); r.code == 0 {
			imported++
		}
	}
	if imported < 5 {
		t.Fatalf("imported %d of %d testdata logs", imported, len(logs))
	}
	return dir
}

// apiGet returns the status and body of GET path on srv.
func apiGet(t *testing.T, srv *httptest.Server, path string) (int, string) {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return resp.StatusCode, string(body)
}

func newTestServer(t *testing.T, roots ...string) *httptest.Server {
	t.Helper()
	s, err := serve.New(testenv.Context(t), roots, serve.Options{})
	if err != nil {
		t.Fatalf("serve.New: %v", err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(func() { srv.Close(); s.Close() })
	return srv
}

// heartbeatAge is the one value of an answer that moves with the clock.
var heartbeatAge = regexp.MustCompile(`"heartbeat_age_seconds": [0-9.e+-]+`)

// usageSuffix is what the CLI's line of a usage error adds: the usage.
var usageSuffix = regexp.MustCompile(` \(usage: .*\)$`)

// idLine is the key /api/v1/jobs adds to each entry of ls.
var idLine = regexp.MustCompile(`(?m)^      "id": .*\n`)

// sameAnswer checks that the API's answer to path is the CLI's JSON for
// args: the same bytes, or for a CLI that printed nothing and failed, a
// JSON error with its message.
func sameAnswer(t *testing.T, srv *httptest.Server, path string, args ...string) {
	t.Helper()
	cli := runCLI(t, args...)
	status, body := apiGet(t, srv, path)
	if cli.stdout == "" && cli.code != 0 {
		var e struct{ Error string }
		lines := strings.Split(strings.TrimSpace(cli.stderr), "\n")
		want := usageSuffix.ReplaceAllString(lines[len(lines)-1], "")
		if err := json.Unmarshal([]byte(body), &e); err != nil || status < 400 || e.Error != want {
			t.Errorf("GET %s = %d %q, want the error of jobevent %s: %q", path, status, body, strings.Join(args, " "), cli.stderr)
		}
		return
	}
	got, want := heartbeatAge.ReplaceAllString(body, "AGE"), heartbeatAge.ReplaceAllString(cli.stdout, "AGE")
	if status != http.StatusOK || got != want {
		t.Errorf("GET %s = %d\n%s\nwant the output of jobevent %s:\n%s", path, status, got, strings.Join(args, " "), want)
	}
}

// TestServe_RESTGoldens holds every /api/v1 answer, for every testdata
// log imported into a bucket and every committed Flink fixture, to the
// CLI's --format json for the same question, byte for byte.
func TestServe_RESTGoldens(t *testing.T) {
	for _, root := range []string{importedRoot(t), "../../testdata/flink"} {
		srv := newTestServer(t, root)
		status, body := apiGet(t, srv, "/api/v1/jobs")
		ls := runCLI(t, "ls", root, "--format", "json")
		if status != http.StatusOK || idLine.ReplaceAllString(body, "") != ls.stdout {
			t.Fatalf("GET /api/v1/jobs = %d\n%s\nwant ls with ids:\n%s", status, body, ls.stdout)
		}
		var jobs struct {
			Logs []struct{ ID, Log string }
		}
		if err := json.Unmarshal([]byte(body), &jobs); err != nil {
			t.Fatal(err)
		}
		if len(jobs.Logs) < 5 {
			t.Fatalf("%s: %d jobs listed", root, len(jobs.Logs))
		}
		for _, j := range jobs.Logs {
			t.Run(j.ID, func(t *testing.T) { sameAnswers(t, srv, j.ID, j.Log) })
		}
	}
}

func sameAnswers(t *testing.T, srv *httptest.Server, id, log string) {
	api := "/api/v1/jobs/" + id
	sameAnswer(t, srv, api, "status", log, "--format", "json")
	sameAnswer(t, srv, api+"/events", "dump", log, "--format", "json")
	sameAnswer(t, srv, api+"/events?kind=subtask_started,subtask_finished&since=3&until=30", "dump", log, "--format", "json",
		"--kind", "subtask_started,subtask_finished", "--since", "3", "--until", "30")
	sameAnswer(t, srv, api+"/events?vertex=words&subtask=1", "dump", log, "--format", "json", "--vertex", "words", "--subtask", "1")
	sameAnswer(t, srv, api+"/plan", "replay", log, "--dry-run", "--format", "json")
	sameAnswer(t, srv, api+"/plan?at=9", "replay", log, "--dry-run", "--at", "9", "--format", "json")
	if w := firstWorker(t, srv, api); w != "" {
		sameAnswer(t, srv, api+"/plan?lost_worker="+url.QueryEscape(w), "replay", log, "--dry-run", "--lost-worker", w, "--format", "json")
	}
	sameAnswer(t, srv, api+"/plan?no_workers=true", "replay", log, "--dry-run", "--no-workers", "--format", "json")
	sameAnswer(t, srv, api+"/plan?lost_partition=nosuch/0", "replay", log, "--dry-run", "--lost-partition", "nosuch/0", "--format", "json")
	// A Flink log's coordinator kinds as parameters, as --coordinator:
	// the plan of a Flink log, the CLI's usage error for any other.
	if v := firstVertex(t, srv, api); v != "" {
		for _, kind := range []string{"batch_snapshot", "no_batch_snapshot"} {
			c := v + "=" + kind
			sameAnswer(t, srv, api+"/plan?at=9&coordinator="+url.QueryEscape(c), "replay", log, "--dry-run", "--at", "9", "--coordinator", c, "--format", "json")
		}
		sameAnswer(t, srv, api+"/plan?coordinator="+url.QueryEscape(v+"=sometimes"), "replay", log, "--dry-run", "--coordinator", v+"=sometimes", "--format", "json")
		sameAnswer(t, srv, api+"/sweep?points=5&coordinator="+url.QueryEscape(v+"=none"), "replay", log, "--dry-run", "--sweep", "--points", "5", "--coordinator", v+"=none", "--format", "json")
	}
	sameAnswer(t, srv, api+"/sweep", "replay", log, "--dry-run", "--sweep", "--format", "json")
	sameAnswer(t, srv, api+"/sweep?points=5&at=20", "replay", log, "--dry-run", "--sweep", "--points", "5", "--at", "20", "--format", "json")
	sameAnswer(t, srv, api+"/stats", "stats", log, "--format", "json")
	sameAnswer(t, srv, api+"/validate", "validate", log, "--format", "json")
}

// firstVertex is the first vertex of the job's plan, "" for none.
func firstVertex(t *testing.T, srv *httptest.Server, api string) string {
	_, body := apiGet(t, srv, api+"/plan")
	var plan struct{ Vertices []struct{ Vertex string } }
	if json.Unmarshal([]byte(body), &plan) != nil || len(plan.Vertices) == 0 {
		return ""
	}
	return plan.Vertices[0].Vertex
}

// firstWorker is the first worker the job's events name, "" for none.
func firstWorker(t *testing.T, srv *httptest.Server, api string) string {
	_, body := apiGet(t, srv, api+"/events?kind=subtask_started")
	for _, line := range strings.Split(body, "\n") {
		var e struct{ Worker string }
		if json.Unmarshal([]byte(line), &e) == nil && e.Worker != "" {
			return e.Worker
		}
	}
	return ""
}

// TestServe_Errors: an id that names nothing is 404, a bad parameter 400,
// both as JSON with the CLI's message; no id reads outside the ROOTs.
func TestServe_Errors(t *testing.T) {
	root := importedRoot(t)
	if err := os.WriteFile(filepath.Join(filepath.Dir(root), "secret.jsonl"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := newTestServer(t, root)
	for _, tt := range []struct {
		path   string
		status int
		want   string
	}{
		{"/api/v1/jobs/jobs%2Fnosuch", 404, "no event log at"},
		{"/api/v1/jobs/..%2Fsecret.jsonl", 404, "no job"},
		{"/api/v1/jobs/jobs%2F..%2F..", 404, "no job"},
		{"/api/v1/jobs/%2Fetc", 404, "no job"},
		{"/api/v1/jobs/0:jobs%2Ffailover", 404, ""},
		{"/api/v1/jobs/jobs%2Ffailover/plan?at=x", 400, "bad at"},
		{"/api/v1/jobs/jobs%2Ffailover/plan?at=0", 400, "bad --at 0"},
		{"/api/v1/jobs/jobs%2Ffailover/plan?lost_partition=nosuch/0", 400, `unknown vertex "nosuch"`},
		{"/api/v1/jobs/jobs%2Ffailover/events?kind=nosuch", 400, `unknown --kind "nosuch"`},
		{"/api/v1/jobs/jobs%2Ffailover/events?epoch=0", 400, "bad --epoch 0"},
		{"/api/v1/jobs/jobs%2Ffailover/nosuch", 404, "no such API"},
	} {
		status, body := apiGet(t, srv, tt.path)
		var e struct{ Error string }
		if status != tt.status || json.Unmarshal([]byte(body), &e) != nil || !strings.Contains(e.Error, tt.want) {
			t.Errorf("GET %s = %d %s, want %d with %q", tt.path, status, body, tt.status, tt.want)
		}
	}
}

// TestServe_SeveralRoots: with several ROOTs an id starts with its
// ROOT's index, and each answers from its own ROOT.
func TestServe_SeveralRoots(t *testing.T) {
	srv := newTestServer(t, importedRoot(t), "../../testdata/flink")
	_, body := apiGet(t, srv, "/api/v1/jobs")
	abs, _ := filepath.Abs("../../testdata/flink")
	rel, err := filepath.Rel(abs, flinkfixture.Get(t, "1.20.5", "two-failovers").JobEvents)
	if err != nil {
		t.Fatal(err)
	}
	flinkID := "1:" + url.PathEscape(filepath.ToSlash(rel))
	for _, id := range []string{`"id": "0:jobs%2Ffailover"`, `"id": "` + flinkID + `"`} {
		if !strings.Contains(body, id) {
			t.Errorf("jobs lack %s:\n%s", id, body)
		}
	}
	if status, _ := apiGet(t, srv, "/api/v1/jobs/"+flinkID+"/plan"); status != 200 {
		t.Errorf("plan of a Flink fixture on the second root = %d", status)
	}
	for _, id := range []string{"jobs%2Ffailover", "2:jobs%2Ffailover", "01:jobs%2Ffailover", "-1:x"} {
		if status, _ := apiGet(t, srv, "/api/v1/jobs/"+id); status != 404 {
			t.Errorf("GET job %s = %d, want 404", id, status)
		}
	}
}

// TestServe_Token: with a token, a request without it gets 401 and
// nothing else; the bearer token opens the API; /?token= sets an
// HttpOnly SameSite=Strict cookie and redirects without the token.
func TestServe_Token(t *testing.T) {
	s, err := serve.New(testenv.Context(t), []string{importedRoot(t)}, serve.Options{Token: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	srv := httptest.NewServer(s)
	defer srv.Close()
	for _, path := range []string{"/", "/api/v1/jobs", "/api/v1/jobs/jobs%2Ffailover/plan", "/jobs/jobs%2Ffailover", "/?token=wrong", "/nosuch"} {
		status, body := apiGet(t, srv, path)
		if status != 401 || body != "" {
			t.Errorf("GET %s without the token = %d %q, want 401 and nothing else", path, status, body)
		}
	}
	req, _ := http.NewRequest("GET", srv.URL+"/api/v1/jobs", nil)
	req.Header.Set("Authorization", "Bearer s3cret")
	resp, err := srv.Client().Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /api/v1/jobs with the bearer token = %v %v", resp, err)
	}
	resp.Body.Close()
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err = noFollow.Get(srv.URL + "/jobs/jobs%2Ffailover?token=s3cret&at=5")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cookie := resp.Header.Get("Set-Cookie")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/jobs/jobs%2Ffailover?at=5" ||
		!strings.Contains(cookie, "HttpOnly") || !strings.Contains(cookie, "SameSite=Strict") {
		t.Fatalf("/?token= = %d, Location %q, Set-Cookie %q", resp.StatusCode, resp.Header.Get("Location"), cookie)
	}
	req, _ = http.NewRequest("GET", srv.URL+"/jobs/jobs%2Ffailover?at=5", nil)
	req.Header.Set("Cookie", strings.Split(cookie, ";")[0])
	if resp, err = srv.Client().Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("the page with the cookie = %v %v", resp, err)
	}
	resp.Body.Close()
}
