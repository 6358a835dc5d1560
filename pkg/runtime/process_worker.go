package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/jobevent/jobevent/internal/human"
	"github.com/jobevent/jobevent/pkg/blob"
)

// WorkerOptions configures RunWorker: a worker process serving the job of
// one log.
type WorkerOptions struct {
	// Events is the job's log (required): the worker reads job.yaml from
	// it and finds the current master in its epoch objects.
	Events string
	// Dir holds the partitions (required): <Dir>/<job>/<vertex>-<subtask>-<attempt>-<consumer>.
	// They survive the worker and the master; a restarted worker reports
	// them again.
	Dir string
	// Master pins the master's address instead of finding it in the log.
	Master string
	// Slots is the number of attempts run at once (default 2).
	Slots int
	// Token authenticates every request (required).
	Token string
	// Listen is the address serving partitions and deployments (default
	// 127.0.0.1:0).
	Listen string
	// Name identifies the worker in the log (default: the host name and a
	// hash of Dir, stable across restarts).
	Name string
	// WorkDir resolves relative paths of the spec (default: the process's
	// working directory).
	WorkDir string
	// Clock is the time source (default: the wall clock).
	Clock Clock
	// Stderr receives what the worker has to say.
	Stderr io.Writer
	// OnListen is called with the address once the worker listens.
	OnListen func(addr string)
	// TLS turns on HTTPS with the master and the other workers (which
	// need the same CA).
	TLS TLSFiles
}

// RunWorker runs a worker until its job ends (the master tells it to
// delete the job's partitions, or the log shows job_finished) or ctx is
// done. While its master is unreachable it keeps its partitions and looks
// for the master of a newer epoch, with backoff.
func RunWorker(ctx context.Context, opts WorkerOptions) error {
	if err := opts.check(); err != nil {
		return err
	}
	p, err := newPeers(opts.TLS)
	if err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	log, err := waitForLog(ctx, opts.Events, opts.Clock, logger(opts.Stderr, "worker "+opts.Name))
	if err != nil {
		return err
	}
	defer log.Close()
	spec, err := waitForSpec(ctx, log, opts.Clock, logger(opts.Stderr, "worker "+opts.Name))
	if err != nil {
		return err
	}
	ln, err := listen(opts.Listen)
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	buckets := newBucketOpener(opts.WorkDir)
	defer buckets.Close()
	fetch := &httpFetcher{token: opts.Token, peers: p}
	specs := func(_ context.Context, job string) (*Spec, error) {
		if job != spec.Job {
			return nil, badRequestf("this worker serves job %s, not %q", spec.Job, job)
		}
		return spec, nil
	}
	core := newWorkerCore(opts.Name, newPartitionStore(opts.Dir, ""), opts.Slots, buckets, fetch, specs, opts.Stderr)
	defer core.shutdown()
	done := make(chan struct{})
	var once sync.Once
	srv := &http.Server{Handler: workerHandler(core, opts.Token, addr, func(string) { once.Do(func() { close(done) }) }),
		ReadHeaderTimeout: 10 * time.Second, ErrorLog: serverLog(opts.Stderr, "worker "+opts.Name)}
	go func() { _ = srv.Serve(p.listener(ln)) }()
	defer func() {
		// Let the request in flight (the master's cleanup) get its answer.
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if opts.OnListen != nil {
		opts.OnListen(addr)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-done:
			cancel()
		case <-wctx.Done():
		}
	}()
	s := &workerSession{opts: opts, log: log, spec: spec, core: core, addr: addr, peers: p, key: newKey(), logf: logger(opts.Stderr, "worker "+opts.Name)}
	err = s.loop(wctx)
	select {
	case <-done:
		s.logf("job %s ended: partitions deleted", spec.Job)
		return nil
	default:
	}
	if errors.Is(err, errJobEnded) {
		_ = core.store.removeJob(spec.Job)
		s.logf("job %s ended: partitions deleted", spec.Job)
		return nil
	}
	return err
}

func (o *WorkerOptions) check() error {
	switch {
	case o.Events == "":
		return errors.New("worker: --events is required")
	case o.Dir == "":
		return errors.New("worker: --dir is required")
	case o.Token == "":
		return errors.New("worker: a token is required (--token or JOBEVENT_TOKEN)")
	case o.Master != "" && !dialable(o.Master):
		return fmt.Errorf("worker: --master %q is not an address: want HOST:PORT", o.Master)
	}
	abs, err := filepath.Abs(o.Dir)
	if err != nil {
		return err
	}
	o.Dir = abs
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	if o.Name == "" {
		host, _ := os.Hostname()
		sum := sha256.Sum256([]byte(o.Dir))
		o.Name = nameOfHost(host) + "-" + hex.EncodeToString(sum[:4])
	}
	if !nameRE.MatchString(o.Name) {
		return fmt.Errorf("worker: --name %q: want 1 to 128 letters, digits, '_', '.' or '-', starting with a letter or a digit", o.Name)
	}
	if o.Slots <= 0 {
		o.Slots = 2
	}
	if o.Clock == nil {
		o.Clock = wallClock{}
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	if o.WorkDir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		o.WorkDir = wd
	}
	return nil
}

// nameOfHost makes a host name fit the wire rule of worker names: at most
// 100 characters, others than letters, digits, '_', '.' and '-' replaced
// by '-'; "worker" when nothing is left.
func nameOfHost(host string) string {
	b := []byte(host)
	if len(b) > 100 {
		b = b[:100]
	}
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			b[i] = '-'
		}
	}
	if len(b) == 0 || !nameRE.Match(b[:1]) {
		return "worker" + string(b)
	}
	return string(b)
}

// waitForLog opens the log, waiting for it to appear: a worker may start
// before its master.
func waitForLog(ctx context.Context, url string, clock Clock, logf func(string, ...any)) (*blob.Log, error) {
	backoff := 100 * time.Millisecond
	for said := false; ; said = true {
		log, err := blob.Open(ctx, url)
		if err == nil {
			return log, nil
		}
		if !errors.Is(err, blob.ErrNoLog) {
			return nil, err
		}
		if !said {
			logf("waiting for the event log: %v", err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-clock.After(backoff):
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

// waitForSpec returns the job's spec, waiting for job.yaml to appear; it
// says once that it waits (a standby or a worker started on a log no
// master has written yet, or on a mistyped one).
func waitForSpec(ctx context.Context, log *blob.Log, clock Clock, logf func(string, ...any)) (*Spec, error) {
	backoff := 100 * time.Millisecond
	for said := false; ; said = true {
		raw, err := log.ReadSpec(ctx)
		if err == nil {
			return ParseSpec("job.yaml", raw)
		}
		if !errors.Is(err, blob.ErrNotFound) {
			return nil, err
		}
		if !said {
			logf("no job in %s yet (no job.yaml): waiting for a master to submit one", log.URL())
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-clock.After(backoff):
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

// errJobEnded ends a worker whose job the log shows ended.
var errJobEnded = errors.New("jobevent/runtime: the job ended")

// workerSession connects a worker to the current master, again and again.
type workerSession struct {
	opts  WorkerOptions
	log   *blob.Log
	spec  *Spec
	core  *workerCore
	addr  string
	peers *peers
	key   string // the session key of every registration (trust.go)
	logf  func(string, ...any)
}

// loop registers with the current master and heartbeats it; when it is
// unreachable, it finds the master of a newer epoch, with backoff.
func (s *workerSession) loop(ctx context.Context) error {
	settings := s.spec.Settings
	backoff := 100 * time.Millisecond
	tries, refused := 0, 0
	var undialable string // the undialable master last said
	for {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		epoch, err := s.session(ctx, settings)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var ue *undialableError
		switch {
		case errors.As(err, &ue):
			// An embedded master: wait for one that listens, saying so
			// once per epoch.
			if msg := ue.Error(); msg != undialable {
				s.logf("%s", msg)
				undialable = msg
			}
		case err != nil:
			// A refusal that retrying cannot fix (a wrong token, TLS on
			// one side only) ends the worker after a few attempts.
			if why := refusal(err); why != "" && epoch == 0 {
				if refused++; refused >= maxRefusals {
					return &RefusedError{Cause: why, Attempts: refused, Err: err}
				}
			} else if refused = 0; tries%10 == 0 {
				s.logf("no master: %v (retrying)", err)
			}
			if epoch > 0 {
				s.core.detach(epoch)
				backoff = 100 * time.Millisecond
			}
		}
		tries++
		// A master that finished the job while this worker could not
		// reach it will not tell it so: the log does.
		if ended, err := jobEnded(ctx, s.log); err == nil && ended {
			return errJobEnded
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.opts.Clock.After(backoff):
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

// session finds the master, registers, and heartbeats until the master
// is unreachable or forgets the worker. It returns the epoch it served.
func (s *workerSession) session(ctx context.Context, settings Settings) (int32, error) {
	addr := s.opts.Master
	if addr == "" {
		epochs, err := s.log.Epochs(ctx)
		if err != nil {
			return 0, err
		}
		if len(epochs) == 0 {
			return 0, errors.New("no epoch claimed yet")
		}
		newest := epochs[len(epochs)-1]
		if addr = newest.Master; !dialable(addr) {
			return 0, &undialableError{epoch: newest.Epoch, addr: addr}
		}
	}
	c := s.peers.client(addr, s.opts.Token)
	c.session = s.key
	link := &httpMasterLink{c: c}
	held, err := s.core.held(s.spec.Job)
	if err != nil {
		return 0, err
	}
	s.core.expect(link)
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	reply, err := link.register(rctx, registration{Worker: s.core.id, Addr: s.addr, Slots: s.core.slots, Job: s.spec.Job, Partitions: held, Session: s.key})
	cancel()
	if err != nil {
		return 0, fmt.Errorf("register with %s: %w", addr, err)
	}
	if err := s.core.attach(reply.Epoch, link); err != nil {
		return 0, err
	}
	s.logf("registered with master %s (epoch %d), reporting %s", addr, reply.Epoch, human.Count(len(held), "partition"))
	for {
		select {
		case <-ctx.Done():
			return reply.Epoch, ctx.Err()
		case <-s.opts.Clock.After(settings.HeartbeatInterval):
		}
		hctx, cancel := context.WithTimeout(ctx, max(settings.HeartbeatTimeout, time.Second))
		hb, err := link.heartbeat(hctx, heartbeatRequest{Worker: s.core.id, Epoch: reply.Epoch})
		cancel()
		if err != nil {
			return reply.Epoch, fmt.Errorf("heartbeat to %s: %w", addr, err)
		}
		if !hb.Known || hb.Epoch != reply.Epoch {
			return reply.Epoch, fmt.Errorf("master %s no longer knows this worker", addr)
		}
	}
}

// jobEnded reports whether the log ends in job_finished. It reads the
// listing and the newest segment, not the whole log.
func jobEnded(ctx context.Context, log *blob.Log) (bool, error) {
	return log.Ended(ctx)
}

// dialable reports whether addr is a HOST:PORT a worker may dial. The
// master of an embedded run ("jobevent run") records "embedded", which is
// not: it takes no workers, and a worker must never resolve it as a host
// name.
func dialable(addr string) bool {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	n, err := strconv.Atoi(port)
	return err == nil && n > 0 && n <= 65535
}

// undialableError is a newest epoch whose master has no address a worker
// can dial.
type undialableError struct {
	epoch int32
	addr  string
}

func (e *undialableError) Error() string {
	if e.addr == embeddedAddr {
		return fmt.Sprintf("the master of epoch %d is embedded in a \"jobevent run\" process and takes no workers: waiting for a master that listens (jobevent master --resume, or a standby)", e.epoch)
	}
	return fmt.Sprintf("the master of epoch %d records %q, which is not an address: waiting for a master of a newer epoch", e.epoch, e.addr)
}
