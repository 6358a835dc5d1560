package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Errors a worker returns to a master.
var (
	// ErrStaleEpoch is returned to a master whose epoch is older than
	// one the worker already serves: a fenced master.
	ErrStaleEpoch = errors.New("jobevent/runtime: master epoch is stale")
	// ErrNoSlot is returned when a worker has no free slot.
	ErrNoSlot = errors.New("jobevent/runtime: no free slot")
)

// specLoader returns the spec of a job, for a worker that runs its tasks.
type specLoader func(ctx context.Context, job string) (*Spec, error)

// workerCore runs attempts for one master at a time and serves the
// partitions it holds. It is the part of a worker that does not depend on
// the transport. It is safe for concurrent use.
type workerCore struct {
	id     string
	slots  int
	store  *partitionStore
	runner *taskRunner
	specs  specLoader
	logf   func(format string, args ...any)

	mu      sync.Mutex
	epoch   int32 // highest master epoch seen
	master  masterLink
	pending masterLink // the master being registered with, epoch unknown yet
	running map[attemptRef]*runningTask
	wg      sync.WaitGroup
	closed  bool
}

type runningTask struct {
	job    string
	epoch  int32
	cancel context.CancelFunc
}

func newWorkerCore(id string, store *partitionStore, slots int, buckets *bucketOpener, fetch fetcher, specs specLoader, logw io.Writer) *workerCore {
	return &workerCore{
		id: id, slots: max(slots, 1), store: store, specs: specs,
		runner:  &taskRunner{worker: id, store: store, fetch: fetch, buckets: buckets},
		logf:    logger(logw, "worker "+id),
		running: map[attemptRef]*runningTask{},
	}
}

// attach makes link the worker's master for epoch. Attempts deployed by an
// older epoch are canceled: their master is gone.
func (w *workerCore) attach(epoch int32, link masterLink) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if epoch < w.epoch {
		return fmt.Errorf("attach to epoch %d: worker serves epoch %d: %w", epoch, w.epoch, ErrStaleEpoch)
	}
	if epoch > w.epoch {
		for ref, t := range w.running {
			if t.epoch < epoch {
				t.cancel()
				delete(w.running, ref)
			}
		}
	}
	w.epoch, w.master = epoch, link
	return nil
}

// expect names the master the worker is registering with: a deployment
// from a newer epoch than the worker knows attaches to it. (Over HTTP the
// master may deploy before its reply to the registration arrives.)
func (w *workerCore) expect(link masterLink) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = link
}

// detach forgets the master of epoch (it is unreachable) and cancels the
// attempts it deployed.
func (w *workerCore) detach(epoch int32) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.epoch != epoch {
		return
	}
	w.master = nil
	for ref, t := range w.running {
		if t.epoch <= epoch {
			t.cancel()
			delete(w.running, ref)
		}
	}
}

func (w *workerCore) deploy(ctx context.Context, d *deployment) error {
	spec, err := w.specs(ctx, d.Job)
	if err != nil {
		return fmt.Errorf("deploy %s: %w", d.ref(), err)
	}
	if d.Epoch > w.currentEpoch() {
		w.mu.Lock()
		pending := w.pending
		w.mu.Unlock()
		if pending != nil {
			if err := w.attach(d.Epoch, pending); err != nil {
				return err
			}
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.closed:
		return fmt.Errorf("deploy %s: worker %s is shutting down", d.ref(), w.id)
	case d.Epoch < w.epoch:
		return fmt.Errorf("deploy %s from epoch %d (worker serves %d): %w", d.ref(), d.Epoch, w.epoch, ErrStaleEpoch)
	case d.Epoch > w.epoch || w.master == nil:
		return fmt.Errorf("deploy %s from epoch %d: worker %s is not registered with it", d.ref(), d.Epoch, w.id)
	case len(w.running) >= w.slots:
		return fmt.Errorf("deploy %s: %w on worker %s", d.ref(), ErrNoSlot, w.id)
	}
	if old, ok := w.running[d.ref()]; ok {
		old.cancel()
	}
	tctx, cancel := context.WithCancel(context.Background())
	t := &runningTask{job: d.Job, epoch: d.Epoch, cancel: cancel}
	w.running[d.ref()] = t
	master := w.master
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer cancel()
		rep := w.runner.run(tctx, spec, d, master)
		w.mu.Lock()
		current := w.running[d.ref()] == t
		if current {
			delete(w.running, d.ref())
		}
		w.mu.Unlock()
		if !current || tctx.Err() != nil {
			return // canceled: the master no longer waits for it
		}
		if err := master.report(context.Background(), rep); err != nil {
			w.logf("report %s to epoch %d: %v", d.ref(), d.Epoch, err)
		}
	}()
	return nil
}

func (w *workerCore) currentEpoch() int32 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.epoch
}

func (w *workerCore) cancel(_ context.Context, job string, epoch int32, a attemptRef) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if epoch < w.epoch {
		return ErrStaleEpoch
	}
	if t, ok := w.running[a]; ok && t.job == job {
		t.cancel()
		delete(w.running, a)
	}
	return nil
}

// cleanup cancels the job's attempts and deletes its partitions: the job
// is over. A job the worker does not serve is refused.
func (w *workerCore) cleanup(ctx context.Context, job string, epoch int32) error {
	if _, err := w.specs(ctx, job); err != nil {
		return fmt.Errorf("cleanup: %w", err)
	}
	w.mu.Lock()
	if epoch < w.epoch {
		w.mu.Unlock()
		return ErrStaleEpoch
	}
	for ref, t := range w.running {
		if t.job == job {
			t.cancel()
			delete(w.running, ref)
		}
	}
	w.mu.Unlock()
	return w.store.removeJob(job)
}

// held returns the partitions of job the worker holds.
func (w *workerCore) held(job string) ([]heldPartition, error) {
	return w.store.list(job)
}

// serve returns key groups [from, to) of a partition the worker holds.
func (w *workerCore) serve(job string, id partID, from, to int) ([]byte, int64, error) {
	return w.store.read(job, id, from, to)
}

// shutdown cancels every attempt and waits for them to end; partitions
// stay on disk.
func (w *workerCore) shutdown() {
	w.mu.Lock()
	w.closed = true
	for ref, t := range w.running {
		t.cancel()
		delete(w.running, ref)
	}
	w.mu.Unlock()
	w.wg.Wait()
}

// logger returns a printf to w prefixed "jobevent: <who>: ", or a no-op.
func logger(w io.Writer, who string) func(format string, args ...any) {
	if w == nil {
		return func(string, ...any) {}
	}
	var mu sync.Mutex
	return func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, "jobevent: %s: %s\n", who, fmt.Sprintf(format, args...))
	}
}
