package runtime

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jobevent/jobevent/internal/testenv"
)

// fastSettings shortens the heartbeats and timeouts of a testdata job.
const fastSettings = `
  heartbeat.interval: 30ms
  heartbeat.timeout: 1s
  execution.batch.job-recovery.previous-worker.recovery.timeout: 10s
  restart-strategy.fixed-delay.delay: 0s
`

// fastJob returns a testdata job whose settings section (its last block)
// gets fastSettings.
func fastJob(t *testing.T, name string) *Spec {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "jobs", name)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.TrimRight(string(raw), "\n")
	if !strings.Contains(text, "\nsettings:") {
		text += "\nsettings:"
	}
	spec, err := ParseSpec(name, []byte(text+fastSettings))
	if err != nil {
		t.Fatal(err)
	}
	if err := spec.ResolveInputs(filepath.Dir(path)); err != nil {
		t.Fatal(err)
	}
	return spec
}

// processDeadline bounds every master and worker a process test runs: a
// hang fails the test with a message instead of running into go test's
// timeout.
const processDeadline = 2 * time.Minute

// processCluster runs workers over HTTP in this process.
type processCluster struct {
	t      *testing.T
	dir    string
	url    string
	token  string
	tls    TLSFiles
	cancel []context.CancelFunc
	wg     sync.WaitGroup
	errs   chan error
}

func newProcessCluster(t *testing.T, dir, job string) *processCluster {
	return &processCluster{t: t, dir: dir, token: "secret",
		url:  "file://" + filepath.Join(dir, "jobevents") + "?prefix=" + job + "/",
		errs: make(chan error, 16)}
}

// worker starts worker name; the returned function kills it (its
// partitions stay on disk).
func (c *processCluster) worker(name string) (kill func()) {
	ctx, cancel := context.WithTimeout(context.Background(), processDeadline)
	c.cancel = append(c.cancel, cancel)
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		err := RunWorker(ctx, WorkerOptions{Events: c.url, Dir: filepath.Join(c.dir, "work", name), Name: name,
			Token: c.token, WorkDir: c.dir, Stderr: testWriter{c.t}, TLS: c.tls})
		if err != nil && !errors.Is(err, context.Canceled) {
			c.errs <- err
		}
	}()
	return cancel
}

func (c *processCluster) master(opts MasterOptions) (*Summary, error) {
	opts.Events, opts.Token, opts.Dir, opts.TLS = c.url, c.token, c.dir, c.tls
	opts.Stderr = testWriter{c.t}
	ctx, cancel := context.WithTimeout(context.Background(), processDeadline)
	defer cancel()
	sum, err := RunMaster(ctx, opts)
	if ctx.Err() != nil {
		c.t.Fatalf("master still running after %v: %v", processDeadline, err)
	}
	return sum, err
}

// wait waits for the workers to end (they do once the job is over).
func (c *processCluster) wait() {
	done := make(chan struct{})
	go func() { c.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		c.t.Error("workers still running 20s after the job ended")
		for _, cancel := range c.cancel {
			cancel()
		}
		<-done
	}
	close(c.errs)
	for err := range c.errs {
		c.t.Errorf("worker: %v", err)
	}
}

// resumeAfterCrash checks that the first master's err is its deliberate
// crash, resumes the job with a new master, and checks that it started
// exactly what the plan of the crashed log predicted and that the output
// of job is want.
func (c *processCluster) resumeAfterCrash(err error, job string, want map[string]string) {
	t := c.t
	t.Helper()
	var crash *CrashError
	if !errors.As(err, &crash) {
		t.Fatalf("first master: %v, want the crash", err)
	}
	plan := planOfLog(t, c.url)
	sum, err := c.master(MasterOptions{Resume: true})
	if err != nil {
		t.Fatalf("resumed master: %v", err)
	}
	c.wait()
	events := readLog(t, c.url)
	if got, want := startedIn(events, sum.Epoch), predicted(plan, nil, events, sum.Epoch); !reflect.DeepEqual(got, want) {
		t.Fatalf("epoch %d started %v, plan predicted %v", sum.Epoch, got, want)
	}
	if !reflect.DeepEqual(readOutput(t, c.dir, job), want) {
		t.Fatal("output differs from the embedded clean run")
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func TestProcess_CrashAndResume(t *testing.T) {
	t.Parallel()
	want, _ := cleanRun(t, "wordcount.yaml", 1)
	dir := jobDir(t)
	c := newProcessCluster(t, dir, "wordcount")
	c.worker("w1")
	c.worker("w2")
	_, err := c.master(MasterOptions{Spec: fastJob(t, "wordcount.yaml"), CrashAfterSeq: 20})
	c.resumeAfterCrash(err, "wordcount", want)
	for _, w := range []string{"w1", "w2"} {
		if _, err := os.Stat(filepath.Join(dir, "work", w, "wordcount")); !os.IsNotExist(err) {
			t.Errorf("worker %s kept the job's partitions (stat: %v)", w, err)
		}
	}
}

func TestProcess_Standby(t *testing.T) {
	t.Parallel()
	want, _ := cleanRun(t, "flink-failover.yaml", 1)
	dir := jobDir(t)
	c := newProcessCluster(t, dir, "flink-failover")
	c.worker("w1")
	c.worker("w2")
	spec := fastJob(t, "flink-failover.yaml")
	first := make(chan error, 1)
	go func() {
		_, err := c.master(MasterOptions{Spec: spec, CrashAfterSeq: 25})
		first <- err
	}()
	type result struct {
		sum *Summary
		err error
	}
	standbys := make(chan result, 2)
	for i := 0; i < 2; i++ {
		go func() {
			sum, err := c.master(MasterOptions{Spec: fastJob(t, "flink-failover.yaml"), Standby: true})
			standbys <- result{sum, err}
		}()
	}
	var crash *CrashError
	if err := <-first; !errors.As(err, &crash) {
		t.Fatalf("first master: %v, want the crash", err)
	}
	r1 := <-standbys
	r2 := <-standbys
	for _, r := range []result{r1, r2} {
		if r.err != nil {
			t.Fatalf("standby: %v", r.err)
		}
	}
	// One standby recovered the job; the other lost the claim, watched the
	// winner, and found the job finished.
	if r1.sum.AlreadyEnded == r2.sum.AlreadyEnded {
		t.Fatalf("standby summaries: already ended %v and %v, want exactly one recovery", r1.sum.AlreadyEnded, r2.sum.AlreadyEnded)
	}
	c.wait()
	if !reflect.DeepEqual(readOutput(t, dir, "flink-failover"), want) {
		t.Fatal("output differs from the embedded clean run")
	}
}

func TestProcess_Token(t *testing.T) {
	t.Parallel()
	core := newWorkerCore("w", newPartitionStore(t.TempDir(), ""), 1, nil, nil, nil, nil)
	srv := http.Server{Handler: workerHandler(core, "right", "127.0.0.1:1", nil)}
	ln, err := listen("")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Close()
	for _, tc := range []struct {
		token string
		want  int
	}{{"", 401}, {"wrong", 401}, {"right", 404}} {
		req, _ := http.NewRequest(http.MethodGet, "http://"+ln.Addr().String()+"/v1/partition?job=j&vertex=v&subtask=0&attempt=0&consumer=c&from=0&to=1", nil)
		if tc.token != "" {
			req.Header.Set("Authorization", "Bearer "+tc.token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("token %q: status %d, want %d", tc.token, resp.StatusCode, tc.want)
		}
	}
}

// TestWorker_SeesJobEndInLog starts a worker on a finished job whose master
// is gone for good: the worker cannot register, finds the job's end in the
// log at its first retry and stops, long before its backoff would have it
// look again.
func TestWorker_SeesJobEndInLog(t *testing.T) {
	t.Parallel()
	dir := jobDir(t)
	url := "file://" + filepath.Join(dir, "jobevents") + "?prefix=wordcount/"
	if _, err := Run(testenv.Context(t), loadJob(t, "wordcount.yaml"), Options{Dir: dir, Events: url}); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	err = RunWorker(ctx, WorkerOptions{Events: url, Dir: filepath.Join(dir, "work", "late"), Name: "late",
		Master: gone, Token: "secret", WorkDir: dir, Stderr: testWriter{t}})
	if err != nil {
		t.Fatalf("worker of a finished job = %v, want it to stop on its own", err)
	}
}
