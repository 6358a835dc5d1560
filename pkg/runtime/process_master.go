package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	stdlog "log"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/jobevent/jobevent/internal/human"
	"github.com/jobevent/jobevent/pkg/blob"
)

// MasterOptions configures RunMaster: a master process whose workers are
// separate processes reached over HTTP.
type MasterOptions struct {
	// Spec is the job; with Resume or Standby it may be nil (the log's
	// job.yaml is used).
	Spec *Spec
	// Events is the log URL (required).
	Events string
	// Listen is the address to serve workers on (default 127.0.0.1:0);
	// it is recorded in the epoch object, where workers find it.
	Listen string
	// Token authenticates every request (required).
	Token string
	// Resume recovers the job from the log; Standby waits while another
	// master's heartbeat is fresh, then claims the next epoch and
	// recovers (only one standby wins).
	Resume  bool
	Standby bool
	// CrashAfterSeq makes the master die right after that event is
	// durable: RunMaster returns a *CrashError at once.
	CrashAfterSeq int64
	// Dir resolves relative paths of the spec (default: the process's
	// working directory).
	Dir string
	// Clock is the time source (default: the wall clock).
	Clock Clock
	// Stderr receives warnings and loud messages.
	Stderr io.Writer
	// Settings adjusts the job's settings (tests shorten timeouts).
	Settings func(*Settings)
	// OnListen is called with the address once the master listens.
	OnListen func(addr string)
	// CompactOnFinish merges the log's segments (blob.Compact) once the
	// job has finished and its log is closed; a failure is a warning.
	CompactOnFinish bool
	// TLS turns on HTTPS with the workers (which need the same CA).
	TLS TLSFiles
	// Cancel, when closed, cancels the job; the end of ctx suspends it
	// (see Options.Cancel).
	Cancel <-chan struct{}
	// OverwriteOutput lets the job's sinks commit over another log's
	// output (see Options.OverwriteOutput).
	OverwriteOutput bool
}

// RunMaster runs a master process until the job ends. Workers started
// with RunWorker on the same log find it through the log's epoch objects.
func RunMaster(ctx context.Context, opts MasterOptions) (*Summary, error) {
	if opts.Events == "" {
		return nil, errors.New("master: --events is required")
	}
	if opts.Token == "" {
		return nil, errors.New("master: a token is required (--token or JOBEVENT_TOKEN)")
	}
	if opts.Spec == nil && !opts.Resume && !opts.Standby {
		return nil, errors.New("master: a job spec is required unless resuming")
	}
	if opts.Clock == nil {
		opts.Clock = wallClock{}
	}
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	if opts.Dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		opts.Dir = wd
	}
	p, err := newPeers(opts.TLS)
	if err != nil {
		return nil, fmt.Errorf("master: %w", err)
	}
	log, undo, err := createLog(ctx, opts.Events)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	ln, err := listen(opts.Listen)
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	srv := newMasterServer(opts.Token, opts.Clock, p)
	srv.refusals = newRefusalLog(logger(opts.Stderr, "master"))
	httpSrv := &http.Server{Handler: srv.handler(), ReadHeaderTimeout: 10 * time.Second, ErrorLog: stdlog.New(srv.refusals, "", 0)}
	served := p.listener(ln)
	if !opts.TLS.enabled() {
		served = srv.refusals.watchPlain(ln)
	}
	go func() { _ = httpSrv.Serve(served) }()
	defer httpSrv.Close()
	if opts.OnListen != nil {
		opts.OnListen(addr)
	}
	var st *epochStart
	if opts.Standby {
		st, err = standby(ctx, log, opts, addr)
	} else {
		st, err = beginEpoch(ctx, log, opts.Spec, opts.Resume, addr, opts.epochOptions(log))
	}
	if err != nil {
		undo()
		return nil, err
	}
	return runProcessEpoch(ctx, log, st, opts, addr, srv)
}

// epochOptions checks the job's inputs and outputs before its epoch
// begins (preflight), as the master sees them.
func (o *MasterOptions) epochOptions(log *blob.Log) epochOptions {
	return epochOptions{warn: o.Stderr, adjust: o.Settings, check: func(ctx context.Context, spec *Spec) error {
		buckets := newBucketOpener(o.Dir)
		defer buckets.Close()
		return preflight(ctx, spec, buckets, log.URL(), o.OverwriteOutput || spec.Submission.OverwriteOutput)
	}, submission: Submission{OverwriteOutput: o.OverwriteOutput}}
}

// runProcessEpoch runs the epoch st began with the workers that register
// over HTTP.
func runProcessEpoch(ctx context.Context, log *blob.Log, st *epochStart, opts MasterOptions, addr string, srv *masterServer) (*Summary, error) {
	spec := st.spec
	buckets := newBucketOpener(opts.Dir)
	defer buckets.Close()
	if st.finished != "" {
		return endedEpoch(ctx, log, st, buckets, "", opts.Stderr), nil
	}
	w := epochWriter(ctx, log, st, opts.Clock)
	// jobevent cancel is seen at a heartbeat, which closes logCancel.
	logCancel := newCancelSignal()
	m := newMaster(masterConfig{
		spec: spec, epoch: st.epoch, addr: addr, log: w, state: st.state,
		recovering: st.recovering, fullRestart: st.fullRestart, clock: opts.Clock,
		crashAfter: opts.CrashAfterSeq, stderr: opts.Stderr, buckets: buckets,
		heartbeat: watchingHeartbeat(log, st.epoch, logCancel.request), holds: holdsEpoch(log, st.epoch),
		cancel: opts.Cancel, logCancel: logCancel.ch, logURL: log.URL(), overwriteOutput: opts.OverwriteOutput || spec.Submission.OverwriteOutput,
	})
	srv.attach(m)
	stopWatch := srv.watchWorkers(ctx, spec.Settings)
	sum, err := m.run(ctx)
	stopWatch()
	return endEpoch(ctx, log, w, st, opts.CompactOnFinish, opts.Stderr, sum, err)
}

// standby waits while the newest epoch's master heartbeats, judged by the
// bucket's modification times only, then claims the next epoch. A standby
// that loses the claim goes back to waiting on the winner.
func standby(ctx context.Context, log *blob.Log, opts MasterOptions, addr string) (*epochStart, error) {
	logf := logger(opts.Stderr, "standby")
	spec := opts.Spec
	if spec == nil {
		// The job's own settings (heartbeat timeout) are in its job.yaml.
		var err error
		if spec, err = waitForSpec(ctx, log, opts.Clock, logf); err != nil {
			return nil, err
		}
	}
	settings := spec.Settings
	if opts.Settings != nil {
		opts.Settings(&settings)
	}
	var watched int32
	var since time.Time
	var beating bool // a heartbeat of the watched epoch was seen
	for {
		epochs, err := log.Epochs(ctx)
		if errors.Is(err, blob.ErrNotFound) {
			// fileblob's listing trips over an object replaced while
			// it lists (the heartbeat): look again at the next tick.
			epochs, err = nil, nil
		}
		if err != nil {
			return nil, err
		}
		if len(epochs) > 0 {
			newest := epochs[len(epochs)-1].Epoch
			if newest != watched {
				watched, since, beating = newest, opts.Clock.Now(), false
				logf("watching epoch %d (master %s)", newest, epochs[len(epochs)-1].Master)
			}
			age, err := log.HeartbeatAge(ctx, newest)
			stale := err == nil && age > settings.HeartbeatTimeout
			beating = beating || err == nil
			switch {
			case errors.Is(err, blob.ErrNotFound) && !beating:
				// No heartbeat yet: stale once we have waited a
				// whole timeout ourselves.
				stale = opts.Clock.Now().Sub(since) > settings.HeartbeatTimeout
			case errors.Is(err, blob.ErrNotFound):
				// Being rewritten right now: look again.
			case err != nil:
				return nil, err
			}
			if stale {
				logf("heartbeat of epoch %d is stale (age %s > %v): taking over", newest, human.Duration(age), settings.HeartbeatTimeout)
				st, err := beginEpochAt(ctx, log, nil, true, addr, opts.epochOptions(log), newest+1)
				if errors.Is(err, ErrEpochLost) {
					logf("%v", err)
					continue
				}
				return st, err
			}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-opts.Clock.After(settings.HeartbeatInterval):
		}
	}
}

// masterServer serves the master's side of the HTTP protocol and watches
// the workers' heartbeats.
type masterServer struct {
	token string
	clock Clock
	peers *peers

	// sessions and given bind requests to the workers the master
	// verified and to the attempts it deployed to them (trust.go).
	sessions *sessions
	given    *givenSet

	mu       sync.Mutex
	m        *master
	lastSeen map[string]time.Time
	ready    chan struct{}

	// refusals logs each refused worker once; noWorkers says when the
	// master has had no worker for a while.
	refusals  *refusalLog
	noWorkers noWorkersWatch
}

func newMasterServer(token string, clock Clock, p *peers) *masterServer {
	return &masterServer{token: token, clock: clock, peers: p, sessions: newSessions(), given: newGivenSet(), lastSeen: map[string]time.Time{}, ready: make(chan struct{}),
		refusals: newRefusalLog(nil), noWorkers: noWorkersWatch{since: clock.Now()}}
}

// attach routes requests to m from now on.
func (s *masterServer) attach(m *master) {
	s.mu.Lock()
	s.m = m
	s.mu.Unlock()
	close(s.ready)
}

// master waits until a master is attached (a standby or a recovering
// master is not ready before its epoch is claimed).
func (s *masterServer) master(ctx context.Context) (*master, error) {
	select {
	case <-s.ready:
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.m, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("master not ready: %w", ctx.Err())
	}
}

func (s *masterServer) seen(worker string) {
	s.mu.Lock()
	s.lastSeen[worker] = s.clock.Now()
	s.mu.Unlock()
}

func (s *masterServer) handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/v1/register", jsonHandler(s.register))
	mux.Handle("/v1/heartbeat", jsonHandler(func(ctx context.Context, hb *heartbeatRequest) (heartbeatReply, error) {
		m, err := s.master(ctx)
		if err != nil {
			return heartbeatReply{}, err
		}
		if from, ok := s.sessions.worker(peerOf(ctx)); !ok {
			// Not registered with this master (it may be a new one at
			// the same address): the worker registers again.
			return heartbeatReply{Epoch: m.epoch}, nil
		} else if from != hb.Worker {
			return heartbeatReply{}, forbiddenf("worker %s sends a heartbeat in the name of worker %s", from, hb.Worker)
		}
		s.mu.Lock()
		_, known := s.lastSeen[hb.Worker]
		if known {
			s.lastSeen[hb.Worker] = s.clock.Now()
		}
		s.mu.Unlock()
		return heartbeatReply{Known: known && hb.Epoch == m.epoch, Epoch: m.epoch}, nil
	}))
	mux.Handle("/v1/split", jsonHandler(func(ctx context.Context, req *splitRequest) (splitReply, error) {
		m, err := s.master(ctx)
		if err != nil {
			return splitReply{}, err
		}
		if err := s.given.check(s.verifiedWorker(ctx), req.Epoch, req.attemptRef); err != nil {
			return splitReply{}, err
		}
		return m.nextSplit(ctx, *req)
	}))
	mux.Handle("/v1/report", jsonHandler(func(ctx context.Context, rep *taskReport) (struct{}, error) {
		m, err := s.master(ctx)
		if err != nil {
			return struct{}{}, err
		}
		if err := s.sessions.as(ctx, rep.Worker); err != nil {
			return struct{}{}, err
		}
		if err := s.given.check(rep.Worker, rep.Epoch, rep.attemptRef); err != nil {
			return struct{}{}, err
		}
		s.seen(rep.Worker)
		return struct{}{}, m.report(ctx, rep)
	}))
	return cleanPath(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !authorized(r, s.token) {
			s.refusals.refused(requester(r), "missing or wrong token")
		}
		withAuth(s.token, withPeer(mux)).ServeHTTP(w, r)
	}))
}

// register verifies a registering worker (challenge) and binds its
// session before the master sees it: the master's link to the worker
// carries the token only once the worker has proven that it holds it.
func (s *masterServer) register(ctx context.Context, reg *registration) (registrationReply, error) {
	m, err := s.master(ctx)
	if err != nil {
		return registrationReply{}, err
	}
	if err := challenge(ctx, s.peers, s.token, reg); err != nil {
		s.refusals.refused(fmt.Sprintf("worker %q at %s", reg.Worker, hostOf(reg.Addr)), err.Error())
		return registrationReply{}, err
	}
	if err := s.sessions.bind(reg.Worker, reg.Session, peerOf(ctx)); err != nil {
		s.refusals.refused(fmt.Sprintf("worker %q", reg.Worker), err.Error())
		return registrationReply{}, err
	}
	s.seen(reg.Worker)
	link := &httpWorkerLink{c: s.peers.client(reg.Addr, s.token), worker: reg.Worker, given: s.given}
	return m.register(ctx, *reg, link)
}

// verifiedWorker names the verified worker a request comes from, "" when
// none.
func (s *masterServer) verifiedWorker(ctx context.Context) string {
	name, _ := s.sessions.worker(peerOf(ctx))
	return name
}

// watchWorkers reports to the master every worker silent for longer than
// heartbeat.timeout, until stop is called.
func (s *masterServer) watchWorkers(ctx context.Context, st Settings) (stop func()) {
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-wctx.Done():
				return
			case <-s.clock.After(st.HeartbeatInterval):
			}
			now := s.clock.Now()
			s.mu.Lock()
			var lost []string
			for id, t := range s.lastSeen {
				if now.Sub(t) > st.HeartbeatTimeout {
					lost = append(lost, id)
					delete(s.lastSeen, id)
				}
			}
			m := s.m
			say := s.noWorkers.check(now, len(s.lastSeen), st.HeartbeatTimeout, s.refusals.count())
			s.mu.Unlock()
			if say != "" {
				s.refusals.logf("%s", say)
			}
			for _, id := range lost {
				m.workerLost(id, fmt.Errorf("no heartbeat for %v", st.HeartbeatTimeout))
			}
		}
	}()
	return func() { cancel(); <-done }
}
