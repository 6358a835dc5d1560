package runtime

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wireStatuses are the answers the handlers may give.
var wireStatuses = map[int]bool{200: true, 400: true, 401: true, 403: true, 404: true, 405: true, 409: true, 500: true}

// serveFuzz sends one fuzzed request to h and checks the answer: a known
// status, and an error on one line.
func serveFuzz(t *testing.T, h http.Handler, method, target string, body []byte, header map[string]string) {
	req, err := http.NewRequest(method, "http://peer"+target, bytes.NewReader(body))
	if err != nil || req.URL.Path == "" {
		t.Skip()
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if !wireStatuses[rec.Code] {
		t.Fatalf("%s %s: status %d: %q", method, target, rec.Code, rec.Body.String())
	}
	if rec.Code != 200 && strings.Count(strings.TrimSuffix(rec.Body.String(), "\n"), "\n") != 0 {
		t.Fatalf("%s %s: status %d with more than one line: %q", method, target, rec.Code, rec.Body.String())
	}
}

// FuzzWorkerHandler sends a worker's handler fuzzed requests, with and
// without the token, on every path: nothing panics, every answer is a
// known status with one line, and nothing outside the worker's directory
// is touched (a victim directory next to it survives; nothing new appears
// beside it).
func FuzzWorkerHandler(f *testing.F) {
	root := f.TempDir()
	victim := filepath.Join(root, "victim", "wordcount", "keep")
	if err := os.MkdirAll(filepath.Dir(victim), 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		f.Fatal(err)
	}
	spec := loadJob(f, "wordcount.yaml")
	specs := func(_ context.Context, job string) (*Spec, error) {
		if job != spec.Job {
			return nil, badRequestf("this worker serves job %s, not %q", spec.Job, job)
		}
		return spec, nil
	}
	store := newPartitionStore(filepath.Join(root, "w"), "")
	b := newPartitionBuilder(partID{Vertex: "source", Consumer: "count"}, 4)
	b.add(Record{Key: Str("k"), Value: Int(1)})
	core := newWorkerCore("w1", store, 1, nil, nil, specs, nil)
	h := workerHandler(core, "secret", "127.0.0.1:7000", nil)
	for _, seed := range []struct {
		method, target, body string
	}{
		{"POST", "/v1/cleanup", `{"job":"../victim","epoch":2147483647}`},
		{"POST", "/v1/cleanup", `{"job":"wordcount","epoch":1}`},
		{"POST", "/v1/cancel", `{"job":"wordcount","epoch":1,"attempt":{"vertex":"source","subtask":0,"attempt":0}}`},
		{"POST", "/v1/deploy", `{"job":"wordcount","epoch":1,"vertex":"source","subtask":0,"attempt":0,"parallelism":2,"outputs":[{"consumer":"count","groups":4}],"inputs":[{"from":"x","slices":[{"partition":{"vertex":"x","subtask":0,"attempt":0,"consumer":"source"},"worker":"w2","addr":"127.0.0.1:1","from":0,"to":4}]}]}`},
		{"POST", "/v1/hello", `{"nonce":"00112233445566778899aabbccddeeff","worker":"w1","addr":"127.0.0.1:7000"}`},
		{"GET", "/v1/partition?job=wordcount&vertex=source&subtask=0&attempt=0&consumer=count&from=0&to=4", ""},
		{"GET", "/v1/partition?job=..&vertex=..&subtask=0&attempt=0&consumer=..%2F..%2Fvictim&from=0&to=4", ""},
	} {
		f.Add(seed.method, seed.target, []byte(seed.body), true)
	}
	f.Fuzz(func(t *testing.T, method, target string, body []byte, token bool) {
		if _, err := os.Stat(filepath.Join(root, "w", "wordcount")); errors.Is(err, os.ErrNotExist) {
			if err := store.write("wordcount", b); err != nil {
				t.Fatal(err)
			}
		}
		header := map[string]string{}
		if token {
			header["Authorization"] = "Bearer secret"
		}
		serveFuzz(t, h, method, target, body, header)
		if _, err := os.Stat(victim); err != nil {
			t.Fatalf("%s %s %q: the victim next to the worker's directory: %v", method, target, body, err)
		}
		entries, err := os.ReadDir(root)
		if err != nil || len(entries) != 2 {
			t.Fatalf("%s %s %q: %d entries beside the worker's directory, want 2 (%v)", method, target, body, len(entries), err)
		}
	})
}

// FuzzMasterHandler sends a master's handler fuzzed requests with the
// token. No registrant can prove that it holds the token here (the
// master's client reaches no one), so no session is ever bound, and no
// report or split request is ever taken.
func FuzzMasterHandler(f *testing.F) {
	spec := loadJob(f, "wordcount.yaml")
	p := &peers{scheme: "http", http: &http.Client{Transport: unreachable{}}}
	srv := newMasterServer("secret", wallClock{}, p)
	m := newMaster(masterConfig{spec: spec, epoch: 1})
	close(m.done) // no loop: requests that reach the master get errMasterGone
	srv.attach(m)
	h := srv.handler()
	key := "00112233445566778899aabbccddeeff"
	for _, seed := range []struct{ target, body string }{
		{"/v1/register", `{"worker":"w1","addr":"127.0.0.1:7000","slots":2,"job":"wordcount","session":"` + key + `","partitions":[{"id":{"vertex":"source","subtask":0,"attempt":0,"consumer":"count"},"bytes":1,"records":1}]}`},
		{"/v1/heartbeat", `{"worker":"w1","epoch":1}`},
		{"/v1/split", `{"job":"wordcount","epoch":1,"vertex":"source","subtask":0,"attempt":0}`},
		{"/v1/report", `{"job":"wordcount","epoch":1,"worker":"w1","vertex":"source","subtask":0,"attempt":0,"ok":true,"partitions":[{"consumer":"count","bytes":1,"records":1}]}`},
		{"/v1/report", `{"job":"wordcount","epoch":1,"worker":"w1","vertex":"source","subtask":0,"attempt":0,"missing":{"vertex":"../x","subtask":0,"attempt":0,"consumer":"c"}}`},
	} {
		f.Add("POST", seed.target, key, []byte(seed.body))
	}
	f.Fuzz(func(t *testing.T, method, target, session string, body []byte) {
		serveFuzz(t, h, method, target, body, map[string]string{"Authorization": "Bearer secret", sessionHeader: session})
		srv.sessions.mu.Lock()
		bound := len(srv.sessions.byKey)
		srv.sessions.mu.Unlock()
		if bound != 0 {
			t.Fatalf("%s %s %q: a session was bound without a proof", method, target, body)
		}
	})
}

// unreachable is a transport that reaches no one.
type unreachable struct{}

func (unreachable) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("unreachable (test)")
}
