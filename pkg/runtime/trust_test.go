package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jobevent/jobevent/pkg/format"
)

// TestMaster_VerifiesWorkers runs a master and, before its real workers,
// two registrants with the token: an impostor whose address cannot prove
// that it holds the token (refused, and never sent the token), and a
// rogue worker that registers properly and then forges reports (refused).
// The real workers then finish the job with the output of a clean run.
func TestMaster_VerifiesWorkers(t *testing.T) {
	t.Parallel()
	want, _ := cleanRun(t, "wordcount.yaml", 1)
	dir := jobDir(t)
	c := newProcessCluster(t, dir, "wordcount")
	addr, result := c.background(MasterOptions{Spec: fastJob(t, "wordcount.yaml")})
	master := "http://" + addr
	post := func(session, path string, body any) (int, string) {
		t.Helper()
		raw, _ := json.Marshal(body)
		req, _ := http.NewRequest(http.MethodPost, master+path, strings.NewReader(string(raw)))
		req.Header.Set("Authorization", "Bearer secret")
		if session != "" {
			req.Header.Set(sessionHeader, session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	// The impostor's address answers the hello without the token.
	var sawToken atomic.Bool
	impostor := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			sawToken.Store(true)
		}
		_, _ = w.Write([]byte(`{"proof":"00"}`))
	}))
	defer impostor.Close()
	reg := registration{Worker: "impostor", Addr: strings.TrimPrefix(impostor.URL, "http://"), Slots: 1, Job: "wordcount", Session: newKey()}
	if status, body := post("", "/v1/register", reg); status != http.StatusForbidden || !strings.Contains(body, "does not prove") {
		t.Fatalf("register an impostor = %d %q, want 403", status, body)
	}

	// The rogue holds the token: it is accepted, and given an attempt.
	deployed := make(chan deployment, 1)
	var rogueAddr string
	rogue := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/hello" {
			helloHandler("secret", "rogue", rogueAddr).ServeHTTP(w, r)
			return
		}
		var d deployment
		if r.URL.Path == "/v1/deploy" && json.NewDecoder(r.Body).Decode(&d) == nil {
			select {
			case deployed <- d:
			default:
			}
		}
		_, _ = w.Write([]byte(`{}`))
	}))
	defer rogue.Close()
	rogueAddr = strings.TrimPrefix(rogue.URL, "http://")
	key := newKey()
	reg = registration{Worker: "rogue", Addr: rogueAddr, Slots: 1, Job: "wordcount", Session: key}
	if status, body := post("", "/v1/register", reg); status != http.StatusOK {
		t.Fatalf("register the rogue = %d %q, want 200", status, body)
	}
	var d deployment
	select {
	case d = <-deployed:
	case <-time.After(30 * time.Second):
		t.Fatal("the master never deployed to the registered rogue")
	}
	report := func(worker string, ref attemptRef) *taskReport {
		return &taskReport{Job: "wordcount", Epoch: d.Epoch, Worker: worker, attemptRef: ref, OK: true, Partitions: []format.Partition{}}
	}
	never := d.ref()
	never.Attempt += 5
	other := d.ref()
	other.Subtask = (other.Subtask + 1) % d.Parallelism
	for _, tc := range []struct {
		name    string
		session string
		rep     *taskReport
	}{
		{"no session", "", report("rogue", d.ref())},
		{"an unknown session", newKey(), report("rogue", d.ref())},
		{"an attempt never given", key, report("rogue", never)},
		{"another subtask", key, report("rogue", other)},
		{"in another worker's name", key, report("w1", d.ref())},
	} {
		if status, body := post(tc.session, "/v1/report", tc.rep); status != http.StatusForbidden {
			t.Errorf("report with %s = %d %q, want 403", tc.name, status, body)
		}
	}
	split := splitRequest{Job: "wordcount", Epoch: d.Epoch, attemptRef: never}
	if status, body := post(key, "/v1/split", split); status != http.StatusForbidden {
		t.Errorf("split for an attempt never given = %d %q, want 403", status, body)
	}

	// The rogue goes silent; the real workers finish the job.
	c.finish(result, false, want)
	if sawToken.Load() {
		t.Fatal("the master sent its token to the impostor's address")
	}
}

// TestProcess_UntrustedWorker: a worker whose certificate the master's CA
// did not sign (though it trusts the master's) is refused at the TLS
// handshake: it ends with a RefusedError naming its certificate (exit 2)
// after a bounded number of attempts, and costs the job no rerun.
func TestProcess_UntrustedWorker(t *testing.T) {
	t.Parallel()
	want, _ := cleanRun(t, "wordcount.yaml", 1)
	dir := jobDir(t)
	c := newProcessCluster(t, dir, "wordcount")
	c.tls = testTLS(t, t.TempDir())
	other := testTLS(t, t.TempDir()) // another CA
	_, result := c.background(MasterOptions{Spec: fastJob(t, "wordcount.yaml")})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := RunWorker(ctx, WorkerOptions{Events: c.url, Dir: filepath.Join(dir, "work", "untrusted"), Name: "untrusted",
		Token: c.token, WorkDir: dir, Stderr: testWriter{t}, TLS: TLSFiles{Cert: other.Cert, Key: other.Key, CA: c.tls.CA}})
	var refused *RefusedError
	if !errors.As(err, &refused) || refused.ExitCode() != 2 || !strings.Contains(refused.Cause, "does not trust this worker's TLS certificate") {
		t.Fatalf("untrusted worker = %v, want a refusal naming its certificate", err)
	}
	c.finish(result, true, want)
}

// background starts a master with opts; it returns the address it
// listens on and a function that waits for it to end.
func (c *processCluster) background(opts MasterOptions) (addr string, result func() (*Summary, error)) {
	type ended struct {
		sum *Summary
		err error
	}
	listening := make(chan string, 1)
	res := make(chan ended, 1)
	opts.OnListen = func(a string) { listening <- a }
	go func() {
		sum, err := c.master(opts)
		res <- ended{sum, err}
	}()
	return <-listening, func() (*Summary, error) { r := <-res; return r.sum, r.err }
}

// finish starts workers w1 and w2, waits for the master and them to end,
// and checks that the job finished, with no rerun when noRerun, and wrote
// want.
func (c *processCluster) finish(result func() (*Summary, error), noRerun bool, want map[string]string) {
	t := c.t
	t.Helper()
	c.worker("w1")
	c.worker("w2")
	sum, err := result()
	if err != nil || sum.Status != "finished" || noRerun && sum.Reruns != 0 {
		t.Fatalf("master = %+v, %v; want finished (with no rerun: %v)", sum, err, noRerun)
	}
	c.wait()
	if !reflect.DeepEqual(readOutput(t, c.dir, "wordcount"), want) {
		t.Fatal("output differs from the embedded clean run")
	}
}
