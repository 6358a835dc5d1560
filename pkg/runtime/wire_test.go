package runtime

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// call sends method path with body (JSON) and the token to base; it
// returns the status and the answer's body.
func call(t *testing.T, client *http.Client, base, token, method, path, body string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

// TestWorker_Traversal sends a live worker, with the token, requests whose
// names leave its --dir (or name another job): each is answered 400 with
// one line, the victim directory next to --dir survives, and the worker
// keeps running and serving.
func TestWorker_Traversal(t *testing.T) {
	t.Parallel()
	dir := jobDir(t)
	url := crashedEmbedded(t, dir)
	root := filepath.Join(dir, "work")
	victim := filepath.Join(root, "victim")
	if err := os.MkdirAll(filepath.Join(victim, "wordcount"), 0o755); err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(victim, "wordcount", "keep")
	if err := os.WriteFile(keep, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), processDeadline)
	defer cancel()
	addr := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- RunWorker(ctx, WorkerOptions{Events: url, Dir: filepath.Join(root, "w1"), Name: "w1", Token: "secret",
			WorkDir: dir, Stderr: testWriter{t}, OnListen: func(a string) { addr <- a }})
	}()
	base := "http://" + <-addr
	partition := "/v1/partition?job=wordcount&vertex=v&subtask=0&attempt=0&consumer=c&from=0&to=1"
	for _, tc := range []struct{ method, path, body string }{
		{"POST", "/v1/cleanup", `{"job":"../victim","epoch":2147483647}`},
		{"POST", "/v1/cleanup", `{"job":"../victim/wordcount","epoch":1}`},
		{"POST", "/v1/cleanup", `{"job":"/tmp","epoch":1}`},
		{"POST", "/v1/cleanup", `{"job":"..","epoch":1}`},
		{"POST", "/v1/cleanup", `{"job":"","epoch":1}`},
		{"POST", "/v1/cleanup", `{"job":"victim","epoch":2147483647}`}, // a job this worker does not serve
		{"POST", "/v1/cleanup", `{"job":"wordcount","epoch":0}`},
		{"POST", "/v1/cleanup", `{"job":"wordcount","epoch":-1}`},
		{"GET", "/v1/partition?job=../victim&vertex=v&subtask=0&attempt=0&consumer=c&from=0&to=1", ""},
		{"GET", "/v1/partition?job=wordcount&vertex=../../victim/wordcount/keep&subtask=0&attempt=0&consumer=c&from=0&to=1", ""},
		{"GET", "/v1/partition?job=wordcount&vertex=v&subtask=0&attempt=0&consumer=../../../victim/wordcount/keep&from=0&to=1", ""},
		{"GET", "/v1/partition?job=wordcount&vertex=v&subtask=-1&attempt=0&consumer=c&from=0&to=1", ""},
		{"GET", "/v1/partition?job=wordcount&vertex=v&subtask=x&attempt=0&consumer=c&from=0&to=1", ""},
		{"GET", "/v1/partition?job=wordcount&vertex=v&subtask=0&attempt=0&consumer=c&from=2&to=1", ""},
		{"POST", "/v1/cancel", `{"job":"../victim","epoch":1,"attempt":{"vertex":"v","subtask":0,"attempt":0}}`},
		{"POST", "/v1/deploy", `{"job":"wordcount","epoch":1,"vertex":"../v","subtask":0,"attempt":0,"parallelism":1}`},
		{"POST", "/v1/deploy", `{"job":"wordcount","epoch":1,"vertex":"v","subtask":0,"attempt":0,"parallelism":1,"outputs":[{"consumer":"../../victim","groups":1}]}`},
		{"POST", "/v1/deploy", `{"job":"wordcount","epoch":1,"vertex":"v","subtask":3,"attempt":0,"parallelism":2}`},
	} {
		status, body := call(t, http.DefaultClient, base, "secret", tc.method, tc.path, tc.body)
		if status != http.StatusBadRequest || strings.Count(strings.TrimSpace(body), "\n") != 0 {
			t.Errorf("%s %s %s = %d %q, want 400 with one line", tc.method, tc.path, tc.body, status, body)
		}
	}
	if _, err := os.Stat(keep); err != nil {
		t.Fatalf("the victim next to --dir is gone: %v", err)
	}
	select {
	case err := <-done:
		t.Fatalf("the worker stopped after the requests: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	if status, body := call(t, http.DefaultClient, base, "secret", "GET", partition, ""); status != http.StatusNotFound {
		t.Fatalf("a well-formed fetch after the requests = %d %q, want 404 from a worker still serving", status, body)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("worker = %v, want it stopped by its context only", err)
	}
}

// TestRooted refuses every path element that is not one local name.
func TestRooted(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"", ".", "..", "../x", "a/b", "/abs", "a/../.."} {
		if p, err := rooted("/root", "job", bad); err == nil {
			t.Errorf("rooted(/root, job, %q) = %q, want an error", bad, p)
		}
	}
	if p, err := rooted("/root", "job", "v-0-0-c"); err != nil || p != "/root/job/v-0-0-c" {
		t.Fatalf("rooted = %q, %v", p, err)
	}
	store := newPartitionStore(t.TempDir(), "")
	for _, job := range []string{"../x", "..", "", "a/b", ".hidden"} {
		if err := store.removeJob(job); !errors.Is(err, errBadRequest) {
			t.Errorf("removeJob(%q) = %v, want errBadRequest", job, err)
		}
	}
	if _, _, err := store.read("job", partID{Vertex: "v", Consumer: "../c"}, 0, 1); !errors.Is(err, errBadRequest) {
		t.Fatalf("read of a consumer ../c = %v, want errBadRequest", err)
	}
}

// TestCheck_OneLine: every refusal of the wire rules is one line, and
// names and bytes from the request are quoted.
func TestCheck_OneLine(t *testing.T) {
	t.Parallel()
	rep := &taskReport{Job: "j\n\x1b[31m", Epoch: 0, Worker: "", attemptRef: attemptRef{Vertex: "v", Subtask: -1}}
	err := rep.check()
	if err == nil || strings.ContainsAny(err.Error(), "\n\x1b") {
		t.Fatalf("check = %q, want one line with the bytes quoted", err)
	}
	if !bytes.Contains([]byte(err.Error()), []byte(`"j\n\x1b[31m"`)) {
		t.Fatalf("check = %q, want the job name quoted", err)
	}
}

// TestNameOfHost makes any host name a worker name of the wire rule.
func TestNameOfHost(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]string{
		"node-1.example.com":     "node-1.example.com",
		"":                       "worker",
		"-x":                     "worker-x",
		"a b/c":                  "a-b-c",
		strings.Repeat("h", 300): strings.Repeat("h", 100),
	} {
		got := nameOfHost(host)
		if got != want || !nameRE.MatchString(got+"-0a1b2c3d") {
			t.Errorf("nameOfHost(%q) = %q, want %q", host, got, want)
		}
	}
}
