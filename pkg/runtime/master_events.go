package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/format"
)

// CrashError is returned by a master that died on purpose after event Seq
// was durable (--crash-after-seq): nothing after Seq was written and
// nothing was cleaned up. Its ExitCode is 3.
type CrashError struct {
	Seq int64
}

// Error says after which event the master crashed.
func (e *CrashError) Error() string {
	return fmt.Sprintf("crashed on purpose after event %d was durable (--crash-after-seq)", e.Seq)
}

// ExitCode returns 3, the exit code of the deliberate crash.
func (e *CrashError) ExitCode() int { return 3 }

// JobError is returned when the job ended failed or canceled. Its
// ExitCode is 1.
type JobError struct {
	Job    string
	Status string
	Err    string
}

// Error reads like "job wordcount failed: sink/0 attempt 3: …".
func (e *JobError) Error() string {
	if e.Err == "" {
		return fmt.Sprintf("job %s %s", e.Job, e.Status)
	}
	return fmt.Sprintf("job %s %s: %s", e.Job, e.Status, e.Err)
}

// ExitCode returns 1: the job did not finish.
func (e *JobError) ExitCode() int { return 1 }

// FencedError is returned by a master that stopped because a newer epoch
// was claimed: another master took the job over.
type FencedError struct {
	Epoch int32
	// Newer is the newer epoch when the master saw its claim at a
	// heartbeat (0 when it learned of the fence otherwise).
	Newer int32
	Err   error
}

// Error says which epoch was fenced and why the master stops.
func (e *FencedError) Error() string {
	if e.Newer > 0 {
		return fmt.Sprintf("epoch %d fenced: epoch %d was claimed by a newer master, which holds the job now; this master stops", e.Epoch, e.Newer)
	}
	return fmt.Sprintf("epoch %d fenced: a newer master took the job over; this master stops: %v", e.Epoch, e.Err)
}

// Unwrap returns the log's error (blob.ErrFenced).
func (e *FencedError) Unwrap() error { return e.Err }

// emit writes one event of this epoch and folds it into the state. It
// returns a *CrashError once the event named by crashAfter is durable,
// and a *FencedError or the recording failure when the log refuses.
func (m *master) emit(e format.Event) error {
	if c := m.crashPoint(); c > 0 && m.state.LastSeq() >= c {
		return m.crash(m.state.LastSeq())
	}
	if err := m.flushErr(); err != nil {
		return m.logError(err)
	}
	e.Epoch, e.Job = m.epoch, m.job
	if e.Time.IsZero() {
		e.Time = m.clock.Now().UTC()
	}
	t0 := time.Now()
	seq, err := m.log.Append(e)
	m.stats.recording += time.Since(t0)
	if err != nil {
		return m.logError(err)
	}
	e.Seq = seq
	if err := m.state.Apply(&e); err != nil {
		m.logf("internal: event %d does not fold: %v", seq, err)
	}
	if c := m.crashPoint(); c > 0 && seq >= c && e.Kind != format.KindJobSubmitted {
		return m.crash(seq)
	}
	return nil
}

// crashPoint returns the seq after which the master dies on purpose (0:
// never). A log's job_submitted and the first master_started after it are
// one unit: a crash point on job_submitted takes effect after the
// master_started, so that every log starts with both (docs/format.md).
func (m *master) crashPoint() int64 {
	c := m.cfg.crashAfter
	if c > 0 && c == m.submittedAt {
		return c + 1
	}
	return c
}

// crash makes everything up to seq durable and returns the crash error.
func (m *master) crash(seq int64) error {
	if err := m.log.Flush(context.Background()); err != nil {
		return m.logError(err)
	}
	return &CrashError{Seq: seq}
}

// flush makes every event written so far durable.
func (m *master) flush(ctx context.Context) error {
	t0 := time.Now()
	defer func() { m.stats.recording += time.Since(t0) }()
	if err := m.log.Flush(ctx); err != nil {
		return m.logError(err)
	}
	return nil
}

// flushSoon starts a flush of everything written so far without waiting
// for it (a vertex finished). The master need not wait: the log as read
// is always a prefix of what was appended, so nothing later can be
// durable without it. A failure is returned by the next emit.
func (m *master) flushSoon() {
	m.flushes.Add(1)
	go func() {
		defer m.flushes.Done()
		if err := m.log.Flush(context.Background()); err != nil {
			m.asyncErr.CompareAndSwap(nil, &err)
		}
	}()
}

// flushErr returns the failure of an asynchronous flush, or of the log.
func (m *master) flushErr() error {
	if p := m.asyncErr.Load(); p != nil {
		return *p
	}
	return m.log.Err()
}

func (m *master) logError(err error) error {
	if errors.Is(err, blob.ErrFenced) {
		return &FencedError{Epoch: m.epoch, Err: err}
	}
	return fmt.Errorf("%w: event log write failed: %w", errRecording, err)
}

// submit writes the start of a new job: job_submitted, master_started, and
// the sources' vertex_initialized. A recovering master submits again when
// the log as read holds no job_submitted (the first segment was torn).
func (m *master) submit(ctx context.Context, recovering bool) error {
	m.submittedAt = m.state.LastSeq() + 1
	if err := m.emit(format.Event{Kind: format.KindJobSubmitted, Graph: m.spec.Graph()}); err != nil {
		return err
	}
	if err := m.emit(format.Event{Kind: format.KindMasterStarted, Master: m.cfg.addr, Recovering: recovering}); err != nil {
		return err
	}
	// The start of the job is its own segment: whatever happens to later
	// segments, the log keeps the job and its first epoch.
	if err := m.flush(ctx); err != nil {
		return err
	}
	for _, v := range m.vertices {
		if len(v.ins) == 0 {
			if err := m.initVertex(ctx, v, v.spec.Parallelism); err != nil {
				return err
			}
		}
	}
	return nil
}

// initVertex records a vertex's parallelism and makes its subtasks.
func (m *master) initVertex(ctx context.Context, v *vertexRun, p int32) error {
	if err := m.emit(format.Event{Kind: format.KindVertexInitialized, Vertex: v.spec.ID, Parallelism: p}); err != nil {
		return err
	}
	m.makeSubtasks(v, p)
	if v.source != nil {
		if err := m.startEnumerator(ctx, v, nil); err != nil {
			return err
		}
	}
	m.enqueue(v)
	return nil
}

func (m *master) makeSubtasks(v *vertexRun, p int32) {
	v.p = p
	v.vc.Parallelism = int(p)
	v.subs = make([]subRun, p)
	for i := range v.subs {
		v.subs[i] = subRun{lastStarted: -1}
	}
}

// startEnumerator creates the vertex's split enumerator: restored from
// state when given, else started fresh.
func (m *master) startEnumerator(ctx context.Context, v *vertexRun, state []byte) error {
	enum, err := v.source.NewEnumerator(int(v.p))
	if err != nil {
		return fmt.Errorf("vertex %s: enumerator: %w", v.spec.ID, err)
	}
	if snap, ok := enum.(BatchSnapshotter); ok && state != nil {
		if err := snap.Restore(state); err != nil {
			return fmt.Errorf("vertex %s: %w", v.spec.ID, err)
		}
	} else if err := enum.Start(ctx, v.vc); err != nil {
		return fmt.Errorf("vertex %s: %w", v.spec.ID, err)
	}
	v.enum, v.enumTouched = enum, true
	return nil
}

// autoParallelism decides the parallelism of an auto vertex from the bytes
// of its input partitions (docs/recovery.md): ⌈bytes / bytes-per-task⌉, at
// least 1, at most max_parallelism.
func (m *master) autoParallelism(v *vertexRun) int32 {
	var bytes int64
	for _, fin := range m.state.Finished() {
		for _, p := range fin.Partitions {
			if p.Consumer == v.spec.ID {
				bytes += p.Bytes
			}
		}
	}
	per := max(m.spec.Settings.BytesPerTask, 1)
	n := (bytes + per - 1) / per
	return int32(min(max(n, 1), int64(v.spec.MaxParallelism)))
}

// snapshotDue reports whether a source vertex's subtask finish calls for
// a snapshot: always when the vertex finished, otherwise once
// snapshot-min-pause has passed since the last one.
func (m *master) snapshotDue(v *vertexRun) bool {
	if v.spec.Coordinator != format.CoordinatorBatchSnapshot {
		return false
	}
	return v.done() || m.clock.Now().Sub(m.lastSnapshot) >= m.spec.Settings.SnapshotMinPause
}

// snapshot writes a snapshot event with the assignment state of the
// batch_snapshot coordinators that changed since the log last recorded
// them, as Flink snapshots only changed coordinators: the state of a
// coordinator at a snapshot event is the latest one recorded for it up to
// that event (docs/format.md). The event is written even when none
// changed: it marks the source subtasks finished before it as covered.
func (m *master) snapshot() error {
	coords := map[string][]byte{}
	some := false
	for _, v := range m.vertices {
		snap, ok := v.enum.(BatchSnapshotter)
		if !ok || v.spec.Coordinator != format.CoordinatorBatchSnapshot {
			continue
		}
		some = true
		if !v.enumTouched {
			continue // unchanged since the last snapshot event
		}
		v.enumTouched = false
		b, err := snap.Snapshot()
		if err != nil {
			return fmt.Errorf("snapshot of %s: %w", v.spec.ID, err)
		}
		if last, seq := m.state.Coordinator(v.spec.ID); seq == 0 || !bytes.Equal(last, b) {
			coords[v.spec.ID] = b
		}
	}
	if !some {
		return nil
	}
	m.lastSnapshot = m.clock.Now()
	return m.emit(format.Event{Kind: format.KindSnapshot, Coordinators: coords})
}

// finishJob commits the sinks, writes job_finished and cleans up.
func (m *master) finishJob(ctx context.Context) error {
	// The commit is the job's first effect outside it: make sure this
	// master still holds the job (the flush checks for a newer epoch).
	if err := m.flush(ctx); err != nil {
		return err
	}
	pauseAt(ctx, "commit")
	if err := m.commit(ctx); err != nil {
		return m.failJob(ctx, fmt.Errorf("commit output: %w", err))
	}
	if err := m.emit(format.Event{Kind: format.KindJobFinished, Status: format.StatusFinished}); err != nil {
		return err
	}
	if err := m.flush(ctx); err != nil {
		return err
	}
	return m.cleanupIfHeld(ctx, errStop)
}

// commit hands every committer the winning attempt of each subtask.
func (m *master) commit(ctx context.Context) error {
	for _, v := range m.vertices {
		c, ok := v.spec.op.(Committer)
		if !ok {
			continue
		}
		attempts := make([]SubtaskAttempt, len(v.subs))
		for i, s := range v.subs {
			attempts[i] = SubtaskAttempt{Subtask: i, Attempt: int(s.attempt)}
		}
		if err := c.Commit(ctx, v.vc, attempts); err != nil {
			return err
		}
	}
	return nil
}

// cleanup asks the workers to delete the job's partitions and the
// committers to delete their staging. Failures are warnings: the job's
// outcome is already durable.
func (m *master) cleanup(ctx context.Context) {
	for _, w := range m.sortedWorkers() {
		if w.link == nil {
			continue
		}
		if err := w.link.cleanup(ctx, m.job, m.epoch); err != nil {
			m.logf("warning: worker %s: delete partitions: %v", w.id, err)
		}
	}
	cleanupStaging(ctx, m.vertices, m.logf)
}

func cleanupStaging(ctx context.Context, vertices []*vertexRun, logf func(string, ...any)) {
	for _, v := range vertices {
		if c, ok := v.spec.op.(Committer); ok {
			if err := c.Cleanup(ctx, v.vc); err != nil {
				logf("warning: vertex %s: delete staging: %v", v.spec.ID, err)
			}
		}
	}
}

// failJob ends the job failed.
func (m *master) failJob(ctx context.Context, cause error) error {
	m.cancelAll(ctx)
	if err := m.emit(format.Event{Kind: format.KindJobFinished, Status: format.StatusFailed, Error: cause.Error()}); err != nil {
		return err
	}
	if err := m.flush(ctx); err != nil {
		return err
	}
	return m.cleanupIfHeld(ctx, &JobError{Job: m.job, Status: format.StatusFailed, Err: cause.Error()})
}

// cancelJob ends the job canceled (SIGTERM, or the caller's context).
func (m *master) cancelJob() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m.cancelAll(ctx)
	if err := m.emit(format.Event{Kind: format.KindJobFinished, Status: format.StatusCanceled}); err != nil {
		return err
	}
	if err := m.flush(ctx); err != nil {
		return err
	}
	return m.cleanupIfHeld(ctx, &JobError{Job: m.job, Status: format.StatusCanceled})
}

// cancelAll cancels every running attempt.
func (m *master) cancelAll(ctx context.Context) {
	for _, v := range m.vertices {
		for i := range v.subs {
			if v.subs[i].status == subRunning {
				m.cancelAttempt(ctx, v, int32(i))
				v.subs[i].status = subCreated
			}
		}
	}
}

// cancelAttempt tells the worker of a running attempt to stop it and
// frees its slot.
func (m *master) cancelAttempt(ctx context.Context, v *vertexRun, i int32) {
	s := &v.subs[i]
	if w := m.workers[s.worker]; w != nil {
		w.busy = max(w.busy-1, 0)
		if w.link != nil {
			ref := attemptRef{Vertex: v.spec.ID, Subtask: i, Attempt: s.attempt}
			if err := w.link.cancel(ctx, m.job, m.epoch, ref); err != nil {
				m.logf("warning: cancel %s on %s: %v", ref, w.id, err)
			}
		}
	}
	m.running--
}

// sortedRefs sorts subtask refs by vertex order, then subtask.
func (m *master) sortedRefs(refs []format.SubtaskRef) []format.SubtaskRef {
	sort.Slice(refs, func(a, b int) bool {
		va, vb := m.byID[refs[a].Vertex], m.byID[refs[b].Vertex]
		if va.idx != vb.idx {
			return va.idx < vb.idx
		}
		return refs[a].Subtask < refs[b].Subtask
	})
	return refs
}
