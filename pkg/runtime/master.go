package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jobevent/jobevent/pkg/replay"
)

// Reasons of the subtasks_reset events a running master writes (the
// recovering master's is format.ReasonRecovery).
const (
	ReasonFailure           = "failure"
	ReasonPartitionNotFound = "partition_not_found"
)

// subStatus is the runtime status of one subtask.
type subStatus uint8

const (
	subCreated  subStatus = iota // to deploy once its vertex's inputs are finished
	subRunning                   // an attempt is deployed
	subFinished                  // its attempt finished and is kept
)

// subRun is the runtime status of one subtask.
type subRun struct {
	status      subStatus
	attempt     int32 // running or finished attempt
	lastStarted int32 // highest attempt ever started; -1 when none
	worker      string
	readyAt     time.Time // created: not deployed before (restart delay)
	queued      bool
}

// vertexRun is the runtime status of one vertex.
type vertexRun struct {
	spec     *VertexSpec
	idx      int
	ins      []*edgeRun
	outs     []*edgeRun
	p        int32 // 0 while not initialized
	subs     []subRun
	finished int
	source   Source
	enum     SplitEnumerator
	// enumTouched reports whether enum's state may have changed since
	// the last snapshot event (started, restored, handed out or took
	// back splits): only those coordinators are snapshotted.
	enumTouched bool
	vc          *VertexContext
}

func (v *vertexRun) done() bool { return v.p > 0 && v.finished == int(v.p) }

// edgeRun is an edge of the running job.
type edgeRun struct {
	from, to *vertexRun
	pattern  string
}

// groups returns the key groups of the edge's partitions: it depends on
// the graph and the producer's parallelism only, so a recovering master
// computes what the previous one did.
func (e *edgeRun) groups() int {
	return edgeGroups(e.pattern, int(e.from.p), int(e.to.spec.Parallelism), int(e.to.spec.MaxParallelism))
}

// workerRef is a worker registered with the master.
type workerRef struct {
	id    string
	addr  string
	slots int
	busy  int
	link  workerLink
}

// subKey names a subtask by vertex index.
type subKey struct {
	v int
	i int32
}

// masterConfig is what a master needs to run one epoch of a job.
type masterConfig struct {
	spec       *Spec
	epoch      int32
	addr       string
	log        EventLog
	state      *replay.State // folded log when recovering; nil for a new job
	recovering bool
	// fullRestart asks for every subtask to run again: the log could
	// not be replayed (state has the graph only), or recovery is off.
	fullRestart bool
	clock       Clock
	seeded      bool
	seed        int64
	crashAfter  int64
	stderr      io.Writer
	buckets     *bucketOpener
	heartbeat   func(ctx context.Context) error
	// holds checks that no newer epoch has been claimed; nil: the log
	// has no epochs (a NullLog run), so the master always holds the job.
	holds func(ctx context.Context) error
	// expectWorkers is how many workers the master waits for at the start
	// of recovery before it may stop waiting early (0: no minimum).
	expectWorkers int
	// cancel (the caller's) and logCancel (`jobevent cancel`, seen at a
	// heartbeat) cancel the job when closed; nil never does. The end of
	// the run's context suspends it instead.
	cancel, logCancel <-chan struct{}
	// logURL names the job's log for its sinks' output marker;
	// overwriteOutput lets them commit over another log's output.
	logURL          string
	overwriteOutput bool
	// workDir is the embedded workers' work dir, for messages ("" for
	// worker processes).
	workDir string
}

// master schedules one epoch of a job. All its state is owned by the
// goroutine running run; workers reach it through inbox.
type master struct {
	cfg   masterConfig
	spec  *Spec
	job   string
	epoch int32
	log   EventLog
	state *replay.State
	clock Clock
	rng   *rand.Rand
	logf  func(format string, args ...any)

	vertices []*vertexRun
	byID     map[string]*vertexRun
	workers  map[string]*workerRef
	partLoc  map[partID]*workerRef
	held     map[string][]heldPartition // what each worker reported at registration
	deferred map[string]bool

	submittedAt  int64    // seq of this master's job_submitted, if it wrote one
	queue        []subKey // created subtasks whose inputs are finished, from qhead
	qhead        int
	delayed      []subKey // queued subtasks waiting out their restart delay
	running      int
	failovers    int
	lostWorkers  int // workers given up: they count as registered for expectWorkers
	lastSnapshot time.Time
	started      time.Time

	inbox chan any
	done  chan struct{} // closed when run returns: nobody reads inbox any more
	stats runStats

	flushes  sync.WaitGroup        // asynchronous flushes in flight
	asyncErr atomic.Pointer[error] // the first failure of one
}

// runStats counts what a run did, for the summary.
type runStats struct {
	deployed int
	reruns   int
	kept     int
	plan     *replay.RecoveryPlan
	// recording is the time the master waited on the event log.
	recording time.Duration
}

func newMaster(cfg masterConfig) *master {
	m := &master{
		cfg: cfg, spec: cfg.spec, job: cfg.spec.Job, epoch: cfg.epoch, log: cfg.log,
		clock: cfg.clock, logf: logger(cfg.stderr, "master"),
		byID: map[string]*vertexRun{}, workers: map[string]*workerRef{},
		partLoc: map[partID]*workerRef{}, held: map[string][]heldPartition{}, deferred: map[string]bool{},
		inbox: make(chan any, 64), done: make(chan struct{}),
	}
	if m.clock == nil {
		m.clock = wallClock{}
	}
	if cfg.seeded {
		m.rng = rand.New(rand.NewSource(cfg.seed))
	}
	m.state = cfg.state
	if m.state == nil {
		m.state = replay.NewState()
	}
	for i := range m.spec.Vertices {
		vs := &m.spec.Vertices[i]
		v := &vertexRun{spec: vs, idx: i, vc: &VertexContext{Job: m.job, Vertex: vs.ID, buckets: cfg.buckets,
			logURL: cfg.logURL, overwriteOutput: cfg.overwriteOutput}}
		v.source, _ = vs.op.(Source)
		m.vertices = append(m.vertices, v)
		m.byID[vs.ID] = v
	}
	for _, e := range m.spec.Edges {
		er := &edgeRun{from: m.byID[e.From], to: m.byID[e.To], pattern: e.Pattern}
		er.from.outs = append(er.from.outs, er)
		er.to.ins = append(er.to.ins, er)
	}
	return m
}

// inputsDone reports whether every producer of v has finished.
func (v *vertexRun) inputsDone() bool {
	for _, e := range v.ins {
		if !e.from.done() {
			return false
		}
	}
	return true
}

// Messages of the master's inbox.
type (
	msgRegister struct {
		reg   registration
		link  workerLink
		reply chan registerResult
	}
	registerResult struct {
		reply registrationReply
		err   error
	}
	msgReport struct {
		rep *taskReport
	}
	msgSplit struct {
		req   splitRequest
		reply chan splitResult
	}
	splitResult struct {
		reply splitReply
		err   error
	}
	msgWorkerLost struct {
		worker string
		err    error
	}
)

// register, report and nextSplit are the master's side of the protocol,
// called by transports from any goroutine.
func (m *master) register(ctx context.Context, reg registration, link workerLink) (registrationReply, error) {
	ch := make(chan registerResult, 1)
	select {
	case m.inbox <- msgRegister{reg: reg, link: link, reply: ch}:
	case <-ctx.Done():
		return registrationReply{}, ctx.Err()
	case <-m.done:
		return registrationReply{}, errMasterGone
	}
	select {
	case r := <-ch:
		return r.reply, r.err
	case <-ctx.Done():
		return registrationReply{}, ctx.Err()
	case <-m.done:
		return registrationReply{}, errMasterGone
	}
}

func (m *master) report(ctx context.Context, rep *taskReport) error {
	select {
	case m.inbox <- msgReport{rep: rep}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-m.done:
		return errMasterGone
	}
}

func (m *master) nextSplit(ctx context.Context, req splitRequest) (splitReply, error) {
	ch := make(chan splitResult, 1)
	select {
	case m.inbox <- msgSplit{req: req, reply: ch}:
	case <-ctx.Done():
		return splitReply{}, ctx.Err()
	case <-m.done:
		return splitReply{}, errMasterGone
	}
	select {
	case r := <-ch:
		return r.reply, r.err
	case <-ctx.Done():
		return splitReply{}, ctx.Err()
	case <-m.done:
		return splitReply{}, errMasterGone
	}
}

func (m *master) workerLost(id string, err error) {
	m.post(msgWorkerLost{worker: id, err: err})
}

// post delivers msg to the loop without blocking the caller.
func (m *master) post(msg any) {
	select {
	case m.inbox <- msg:
	default:
		go func() {
			select {
			case m.inbox <- msg:
			case <-m.done:
			}
		}()
	}
}

// errMasterGone is returned to callers of a master whose loop has ended.
var errMasterGone = errors.New("jobevent/runtime: the master has stopped")

// errStop ends the master loop without an error of its own: the job
// ended and its terminal event is written.
var errStop = errors.New("stop")

// run runs the epoch until the job ends, the context is canceled, the
// master is fenced or crashes on purpose.
func (m *master) run(ctx context.Context) (*Summary, error) {
	defer close(m.done)
	m.started = m.clock.Now()
	m.lastSnapshot = m.started
	// Heartbeat from the start: a recovering master may wait a while for
	// its workers, and a standby must not take it for dead meanwhile. A
	// heartbeat that finds the epoch fenced ends ctx with the fence as its
	// cause, wherever the master waits (settle turns it into the result).
	ctx, fence := context.WithCancelCause(ctx)
	defer fence(nil)
	hbStop := m.startHeartbeat(ctx, fence)
	defer hbStop()
	var err error
	if m.cfg.recovering && m.state.Graph() != nil {
		err = m.recoverJob(ctx)
	} else {
		err = m.submit(ctx, m.cfg.recovering)
	}
	if err != nil {
		return m.end(ctx, m.settle(ctx, err))
	}
	for {
		if err := m.schedule(ctx); err != nil {
			return m.end(ctx, m.settle(ctx, err))
		}
		if m.allDone() {
			return m.end(ctx, m.settle(ctx, m.finishJob(ctx)))
		}
		var wake <-chan time.Time
		if d, ok := m.nextWake(); ok {
			wake = m.clock.After(d)
		}
		select {
		case msg := <-m.inbox:
			err = m.handle(ctx, msg)
		case <-wake:
		case <-m.cfg.cancel:
			err = m.cancelJob()
		case <-m.cfg.logCancel:
			err = m.cancelJob()
		case <-ctx.Done():
			err = m.suspendOrCancel(ctx)
		}
		if err != nil {
			return m.end(ctx, m.settle(ctx, err))
		}
	}
}

// end turns the loop's final error into run's result.
func (m *master) end(ctx context.Context, err error) (*Summary, error) {
	var crash *CrashError
	if !errors.As(err, &crash) {
		m.flushes.Wait()
	}
	if errors.Is(err, errStop) {
		err = nil
	}
	return m.summary(), err
}

// startHeartbeat rewrites the epoch's heartbeat object every
// HeartbeatInterval until the returned stop is called. A heartbeat that
// returns a *FencedError stops the beats and calls fence with it.
func (m *master) startHeartbeat(ctx context.Context, fence context.CancelCauseFunc) (stop func()) {
	if m.cfg.heartbeat == nil {
		return func() {}
	}
	hctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			err := m.cfg.heartbeat(hctx)
			var fenced *FencedError
			if errors.As(err, &fenced) {
				fence(fenced)
				return
			}
			if err != nil && hctx.Err() == nil {
				m.logf("heartbeat of epoch %d: %v", m.epoch, err)
			}
			select {
			case <-hctx.Done():
				return
			case <-m.clock.After(m.spec.Settings.HeartbeatInterval):
			}
		}
	}()
	return func() { cancel(); <-done }
}

// handle dispatches one inbox message.
func (m *master) handle(ctx context.Context, msg any) error {
	switch x := msg.(type) {
	case msgRegister:
		reply, err := m.addWorker(x.reg, x.link)
		x.reply <- registerResult{reply: reply, err: err}
	case msgReport:
		return m.handleReport(ctx, x.rep)
	case msgSplit:
		reply, err := m.handleSplit(ctx, x.req)
		x.reply <- splitResult{reply: reply, err: err}
	case msgWorkerLost:
		return m.loseWorker(ctx, x.worker, x.err)
	}
	return nil
}

// addWorker registers a worker (again) and takes note of the partitions
// it holds that belong to finished attempts.
func (m *master) addWorker(reg registration, link workerLink) (registrationReply, error) {
	if reg.Job != "" && reg.Job != m.job {
		return registrationReply{}, fmt.Errorf("worker %s serves job %s, this master runs %s", reg.Worker, reg.Job, m.job)
	}
	w := m.workers[reg.Worker]
	if w == nil {
		w = &workerRef{id: reg.Worker}
		m.workers[reg.Worker] = w
	}
	w.addr, w.slots, w.link = reg.Addr, max(reg.Slots, 1), link
	m.held[reg.Worker] = reg.Partitions
	for _, h := range reg.Partitions {
		if m.isCurrent(h.ID) {
			m.partLoc[h.ID] = w
		}
	}
	return registrationReply{Job: m.job, Epoch: m.epoch}, nil
}

// isCurrent reports whether a partition belongs to the finished attempt
// of its producer.
func (m *master) isCurrent(id partID) bool {
	v := m.byID[id.Vertex]
	if v == nil || id.Subtask < 0 || id.Subtask >= v.p {
		return false
	}
	s := &v.subs[id.Subtask]
	return s.status == subFinished && s.attempt == id.Attempt
}

// sortedWorkers returns the workers in id order.
func (m *master) sortedWorkers() []*workerRef {
	out := make([]*workerRef, 0, len(m.workers))
	for _, w := range m.workers {
		out = append(out, w)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// allDone reports whether every vertex is initialized and finished.
func (m *master) allDone() bool {
	for _, v := range m.vertices {
		if !v.done() {
			return false
		}
	}
	return true
}
