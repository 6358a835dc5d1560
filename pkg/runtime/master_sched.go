package runtime

import (
	"context"
	"fmt"
	"time"

	"github.com/jobevent/jobevent/internal/human"
	"github.com/jobevent/jobevent/pkg/format"
)

// schedule deploys ready subtasks to free slots. With a seed it runs one
// attempt at a time, picking the subtask and the worker with the seeded
// generator, so that a run and its log are reproducible (the generator is
// drawn from only when an attempt is deployed).
func (m *master) schedule(ctx context.Context) error {
	for {
		if m.rng != nil && m.running > 0 {
			return nil
		}
		if m.cfg.expectWorkers > 0 && len(m.workers)+m.lostWorkers < m.cfg.expectWorkers {
			return nil // embedded: wait until every worker registered
		}
		free := m.freeWorkers()
		if len(free) == 0 {
			return nil
		}
		k, ok := m.pickReady()
		if !ok {
			return nil
		}
		w := free[0]
		if m.rng != nil {
			w = free[m.rng.Intn(len(free))]
		} else {
			for _, x := range free[1:] {
				if x.slots-x.busy > w.slots-w.busy {
					w = x
				}
			}
		}
		if err := m.deploy(ctx, m.vertices[k.v], k.i, w); err != nil {
			return err
		}
	}
}

func (m *master) subAt(k subKey) *subRun { return &m.vertices[k.v].subs[k.i] }

// enqueue queues the created subtasks of v, if its inputs are done.
func (m *master) enqueue(v *vertexRun) {
	if v.p == 0 || !v.inputsDone() {
		return
	}
	for i := range v.subs {
		s := &v.subs[i]
		if s.status == subCreated && !s.queued {
			s.queued = true
			m.queue = append(m.queue, subKey{v: v.idx, i: int32(i)})
		}
	}
}

// deployable reports whether a queued entry may still be deployed some
// time (it may still wait out its restart delay); others leave the queue.
func (m *master) deployable(k subKey) bool {
	return m.subAt(k).status == subCreated && m.vertices[k.v].inputsDone()
}

// pickReady removes and returns a queued subtask that can be deployed
// now: the first in queue order, or a seeded random one. Entries waiting
// out their restart delay move to the delayed list until they are due.
func (m *master) pickReady() (subKey, bool) {
	now := m.clock.Now()
	due := m.delayed[:0]
	for _, k := range m.delayed {
		switch {
		case !m.deployable(k):
			m.subAt(k).queued = false
		case m.subAt(k).readyAt.After(now):
			due = append(due, k)
		default:
			m.queue = append(m.queue, k)
		}
	}
	m.delayed = due
	if m.rng != nil {
		return m.pickSeeded(now)
	}
	for m.qhead < len(m.queue) {
		k := m.queue[m.qhead]
		m.qhead++
		if m.qhead > 1024 && m.qhead > len(m.queue)/2 {
			m.queue, m.qhead = append([]subKey(nil), m.queue[m.qhead:]...), 0
		}
		switch {
		case !m.deployable(k):
			m.subAt(k).queued = false
		case m.subAt(k).readyAt.After(now):
			m.delayed = append(m.delayed, k)
		default:
			m.subAt(k).queued = false
			return k, true
		}
	}
	return subKey{}, false
}

// pickSeeded picks one ready entry with the seeded generator.
func (m *master) pickSeeded(now time.Time) (subKey, bool) {
	kept := m.queue[:m.qhead]
	var ready []int
	for _, k := range m.queue[m.qhead:] {
		switch {
		case !m.deployable(k):
			m.subAt(k).queued = false
		case m.subAt(k).readyAt.After(now):
			m.delayed = append(m.delayed, k)
		default:
			ready = append(ready, len(kept))
			kept = append(kept, k)
		}
	}
	m.queue = kept
	if len(ready) == 0 {
		return subKey{}, false
	}
	pos := ready[m.rng.Intn(len(ready))]
	k := m.queue[pos]
	m.queue = append(m.queue[:pos], m.queue[pos+1:]...)
	m.subAt(k).queued = false
	return k, true
}

// freeWorkers returns the workers with a free slot, in id order.
func (m *master) freeWorkers() []*workerRef {
	var free []*workerRef
	for _, w := range m.sortedWorkers() {
		if w.link != nil && w.busy < w.slots {
			free = append(free, w)
		}
	}
	return free
}

// nextWake returns how long until the earliest delayed subtask's restart
// delay ends, when one is waiting.
func (m *master) nextWake() (time.Duration, bool) {
	now := m.clock.Now()
	var earliest time.Time
	for _, k := range m.delayed {
		s := m.subAt(k)
		if s.status == subCreated && (earliest.IsZero() || s.readyAt.Before(earliest)) {
			earliest = s.readyAt
		}
	}
	if earliest.IsZero() {
		return 0, false
	}
	return max(earliest.Sub(now), 0), true
}

// deploy starts the next attempt of v/i on w.
func (m *master) deploy(ctx context.Context, v *vertexRun, i int32, w *workerRef) error {
	s := &v.subs[i]
	attempt := s.lastStarted + 1
	d := &deployment{
		Job: m.job, Epoch: m.epoch, Vertex: v.spec.ID, Subtask: i, Attempt: attempt,
		Parallelism: v.p, Inputs: m.inputsOf(v, int(i)),
	}
	for _, e := range v.outs {
		d.Outputs = append(d.Outputs, outputEdge{Consumer: e.to.spec.ID, Groups: e.groups()})
	}
	if err := m.emit(format.Event{Kind: format.KindSubtaskStarted, Vertex: v.spec.ID, Subtask: i, Attempt: attempt, Worker: w.id}); err != nil {
		return err
	}
	s.status, s.attempt, s.lastStarted, s.worker = subRunning, attempt, attempt, w.id
	w.busy++
	m.running++
	m.stats.deployed++
	if err := w.link.deploy(ctx, d); err != nil {
		// The attempt fails with the worker, in its one failover.
		return m.loseWorker(ctx, w.id, fmt.Errorf("deploy %s: %w", d.ref(), err))
	}
	return nil
}

// inputsOf lists what subtask j of v reads: per in-edge, the slices of
// the producers' finished partitions and the workers holding them.
func (m *master) inputsOf(v *vertexRun, j int) []inputEdge {
	var out []inputEdge
	for _, e := range v.ins {
		in := inputEdge{From: e.from.spec.ID}
		for _, sl := range edgeInputs(e.pattern, int(e.from.p), int(v.p), j, e.groups()) {
			ps := &e.from.subs[sl.Producer]
			id := partID{Vertex: e.from.spec.ID, Subtask: int32(sl.Producer), Attempt: ps.attempt, Consumer: v.spec.ID}
			f := inputFetch{Partition: id, Worker: ps.worker, From: sl.From, To: sl.To}
			if w := m.partLoc[id]; w != nil {
				f.Worker, f.Addr = w.id, w.addr
			} else if w := m.workers[ps.worker]; w != nil {
				f.Addr = w.addr
			}
			in.Slices = append(in.Slices, f)
		}
		out = append(out, in)
	}
	return out
}

// handleReport applies a worker's report of an attempt that ended.
func (m *master) handleReport(ctx context.Context, rep *taskReport) error {
	v := m.byID[rep.Vertex]
	if rep.Epoch != m.epoch || v == nil || rep.Subtask < 0 || rep.Subtask >= v.p {
		return nil
	}
	s := &v.subs[rep.Subtask]
	if s.status != subRunning || s.attempt != rep.Attempt || s.worker != rep.Worker {
		return nil // a stale attempt: canceled or superseded
	}
	if w := m.workers[s.worker]; w != nil {
		w.busy = max(w.busy-1, 0)
	}
	m.running--
	if rep.OK {
		return m.finished(ctx, v, rep.Subtask, rep)
	}
	return m.failed(ctx, v, rep.Subtask, rep)
}

// finished records a finished attempt; a finished vertex is flushed, its
// consumers initialized and queued.
func (m *master) finished(ctx context.Context, v *vertexRun, i int32, rep *taskReport) error {
	parts := rep.Partitions
	if parts == nil {
		parts = []format.Partition{}
	}
	e := format.Event{
		Kind: format.KindSubtaskFinished, Vertex: v.spec.ID, Subtask: i, Attempt: rep.Attempt, Worker: rep.Worker,
		RecordsIn: rep.RecordsIn, RecordsOut: rep.RecordsOut, BytesIn: rep.BytesIn, BytesOut: rep.BytesOut,
		Partitions: parts,
	}
	if err := m.emit(e); err != nil {
		return err
	}
	s := &v.subs[i]
	s.status = subFinished
	v.finished++
	if w := m.workers[rep.Worker]; w != nil {
		for _, p := range parts {
			m.partLoc[partID{Vertex: v.spec.ID, Subtask: i, Attempt: rep.Attempt, Consumer: p.Consumer}] = w
		}
	}
	if v.source != nil && m.snapshotDue(v) {
		if err := m.snapshot(); err != nil {
			return err
		}
	}
	if !v.done() {
		return nil
	}
	if m.rng != nil {
		// Seeded: where segments end must not depend on timing either.
		if err := m.flush(ctx); err != nil {
			return err
		}
	} else {
		m.flushSoon()
	}
	return m.vertexDone(ctx, v)
}

// vertexDone initializes and queues the consumers whose inputs are now all
// finished.
func (m *master) vertexDone(ctx context.Context, v *vertexRun) error {
	for _, e := range v.outs {
		c := e.to
		if !c.inputsDone() {
			continue
		}
		if c.p == 0 {
			p := c.spec.Parallelism
			if p == 0 {
				p = m.autoParallelism(c)
			}
			if err := m.initVertex(ctx, c, p); err != nil {
				return err
			}
		}
		m.enqueue(c)
	}
	return nil
}

// failed records a failed attempt and applies the restart strategy: the
// failed subtask is reset (and, for partition-not-found, the producer of
// the missing partition with everything downstream of it), or the job
// fails when the strategy allows no more failovers.
func (m *master) failed(ctx context.Context, v *vertexRun, i int32, rep *taskReport) error {
	s := &v.subs[i]
	s.status = subCreated
	msg := rep.Error
	if msg == "" {
		msg = "failed"
	}
	if err := m.emit(format.Event{Kind: format.KindSubtaskFailed, Vertex: v.spec.ID, Subtask: i, Attempt: rep.Attempt, Worker: rep.Worker, Error: msg}); err != nil {
		return err
	}
	if p := rep.Missing; p != nil && rep.Unreachable && m.isCurrent(*p) {
		// The holder did not answer: it is given up now, and this
		// failure is part of its one failover, rather than one failover
		// per partition of it found missing.
		if w := m.partLoc[*p]; w != nil && m.workers[w.id] == w {
			return m.loseWorkerWith(ctx, w.id, fmt.Errorf("unreachable from %s/%d: %s", v.spec.ID, i, msg),
				[]format.SubtaskRef{{Vertex: v.spec.ID, Subtask: i}})
		}
	}
	m.failovers++
	st := m.spec.Settings
	if st.RestartStrategy == RestartNone || m.failovers > st.RestartAttempts {
		return m.failJob(ctx, fmt.Errorf("%s/%d attempt %d: %s (restart strategy %s: %s allowed)",
			v.spec.ID, i, rep.Attempt, msg, st.RestartStrategy, human.Count(st.RestartAttempts, "failover")))
	}
	refs := []format.SubtaskRef{{Vertex: v.spec.ID, Subtask: i}}
	reason := ReasonFailure
	if p := rep.Missing; p != nil {
		reason = ReasonPartitionNotFound
		if m.isCurrent(*p) {
			delete(m.partLoc, *p)
			refs = mergeRefs(refs, []format.SubtaskRef{{Vertex: p.Vertex, Subtask: p.Subtask}})
		}
	}
	return m.reset(ctx, m.sortedRefs(m.resetClosure(refs)), reason, st.RestartDelay)
}

// reset writes subtasks_reset for refs and makes them created again: a
// running attempt is canceled, a finished one forgotten, a source
// subtask's splits go back to its enumerator.
func (m *master) reset(ctx context.Context, refs []format.SubtaskRef, reason string, delay time.Duration) error {
	if len(refs) == 0 {
		return nil
	}
	if err := m.emit(format.Event{Kind: format.KindSubtasksReset, Subtasks: refs, Reason: reason}); err != nil {
		return err
	}
	readyAt := m.clock.Now().Add(delay)
	for _, r := range refs {
		v := m.byID[r.Vertex]
		if v == nil || r.Subtask < 0 || r.Subtask >= v.p {
			continue
		}
		s := &v.subs[r.Subtask]
		switch s.status {
		case subRunning:
			m.cancelAttempt(ctx, v, r.Subtask)
		case subFinished:
			v.finished--
		}
		if s.lastStarted >= 0 {
			m.stats.reruns++
		}
		s.status, s.readyAt = subCreated, readyAt
		if v.enum != nil {
			v.enum.AddSplitsBack(int(r.Subtask))
			v.enumTouched = true
		}
	}
	for _, v := range m.vertices {
		m.enqueue(v)
	}
	return nil
}

// mergeRefs returns the union of two ref lists.
func mergeRefs(a, b []format.SubtaskRef) []format.SubtaskRef {
	seen := map[format.SubtaskRef]bool{}
	var out []format.SubtaskRef
	for _, r := range append(append([]format.SubtaskRef(nil), a...), b...) {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}

// handleSplit hands the next split to a running source attempt.
func (m *master) handleSplit(_ context.Context, req splitRequest) (splitReply, error) {
	v := m.byID[req.Vertex]
	if req.Epoch != m.epoch || v == nil || v.enum == nil || req.Subtask < 0 || req.Subtask >= v.p {
		return splitReply{}, fmt.Errorf("split request for %s from epoch %d: not a running source attempt of epoch %d", req.attemptRef, req.Epoch, m.epoch)
	}
	s := &v.subs[req.Subtask]
	if s.status != subRunning || s.attempt != req.Attempt {
		return splitReply{}, fmt.Errorf("split request for %s: attempt is not running", req.attemptRef)
	}
	v.enumTouched = true
	split, ok, err := v.enum.NextSplit(int(req.Subtask))
	if err != nil {
		return splitReply{}, fmt.Errorf("vertex %s: next split: %w", v.spec.ID, err)
	}
	return splitReply{Split: split, OK: ok}, nil
}

// ReasonWorkerLost is the reason of the one subtasks_reset a master writes
// when it gives a worker up.
const ReasonWorkerLost = "worker_lost"

// loseWorker gives up a worker as one failure, one failover of the
// restart strategy whatever the worker ran or held, as Flink restarts the
// affected regions once: each attempt running there fails
// (subtask_failed), every partition it held is dropped at once, and one
// subtasks_reset resets those attempts closed as the recovery rule
// (docs/recovery.md) closes a recovery's resets (resetClosure): the producers of the dropped partitions that are
// still to be read, the producers of what their reruns read that is gone
// too, and what is downstream of each (what a partition-not-found would
// reset, once per partition and one failover each, if they were left to
// be found missing).
func (m *master) loseWorker(ctx context.Context, id string, cause error) error {
	return m.loseWorkerWith(ctx, id, cause, nil)
}

// loseWorkerWith is loseWorker that also resets extra, subtasks whose
// failure revealed the loss (already recorded subtask_failed).
func (m *master) loseWorkerWith(ctx context.Context, id string, cause error, extra []format.SubtaskRef) error {
	w := m.workers[id]
	if w == nil {
		return nil
	}
	delete(m.workers, id)
	m.lostWorkers++
	m.logf("worker %s lost: %v", id, cause)
	for p, holder := range m.partLoc {
		if holder == w {
			delete(m.partLoc, p)
		}
	}
	msg := fmt.Sprintf("worker %s lost: %v", id, cause)
	refs := append([]format.SubtaskRef(nil), extra...)
	for _, v := range m.vertices {
		for i := range v.subs {
			s := &v.subs[i]
			if s.status != subRunning || s.worker != id {
				continue
			}
			m.running--
			s.status = subCreated
			if err := m.emit(format.Event{Kind: format.KindSubtaskFailed, Vertex: v.spec.ID, Subtask: int32(i), Attempt: s.attempt, Worker: id, Error: msg}); err != nil {
				return err
			}
			refs = append(refs, format.SubtaskRef{Vertex: v.spec.ID, Subtask: int32(i)})
		}
	}
	refs = m.resetClosure(refs)
	if len(refs) == 0 {
		return nil // it ran nothing, and held nothing still to be read
	}
	m.failovers++
	st := m.spec.Settings
	if st.RestartStrategy == RestartNone || m.failovers > st.RestartAttempts {
		return m.failJob(ctx, fmt.Errorf("%s (restart strategy %s: %s allowed)", msg, st.RestartStrategy, human.Count(st.RestartAttempts, "failover")))
	}
	return m.reset(ctx, m.sortedRefs(refs), ReasonWorkerLost, st.RestartDelay)
}

// resetClosure returns what resetting seed resets, closed to a fixed point
// as the recovery rule (docs/recovery.md) closes a recovery's resets: over the
// downstream consumers and the deferred vertices (replay's ExpandReset),
// and over the finished producers of every partition that is not
// available (no worker known to hold it) while a subtask that reads it is
// to run: not finished, or in the set. Without the second half, each such
// rerun would fail on its missing input, one failover at a time.
func (m *master) resetClosure(seed []format.SubtaskRef) []format.SubtaskRef {
	refs := seed
	if len(refs) > 0 {
		refs = m.state.ExpandReset(refs, m.deferred)
	}
	in := map[format.SubtaskRef]bool{}
	for _, r := range refs {
		in[r] = true
	}
	for {
		var more []format.SubtaskRef
		for _, v := range m.vertices {
			for i := range v.subs {
				s := &v.subs[i]
				ref := format.SubtaskRef{Vertex: v.spec.ID, Subtask: int32(i)}
				if s.status != subFinished || in[ref] || !m.lostOutput(v, int32(i), in) {
					continue
				}
				in[ref] = true
				more = append(more, ref)
			}
		}
		if len(more) == 0 {
			return refs
		}
		refs = m.state.ExpandReset(append(refs, more...), m.deferred)
		for _, r := range refs {
			in[r] = true
		}
	}
}

// lostOutput reports whether finished subtask i of v has a partition that
// no worker is known to hold and that a subtask to run (not finished, or
// in resetting) still reads.
func (m *master) lostOutput(v *vertexRun, i int32, resetting map[format.SubtaskRef]bool) bool {
	s := &v.subs[i]
	for _, e := range v.outs {
		id := partID{Vertex: v.spec.ID, Subtask: i, Attempt: s.attempt, Consumer: e.to.spec.ID}
		if m.partLoc[id] == nil && m.stillRead(id, resetting) {
			return true
		}
	}
	return false
}

// stillRead reports whether partition p may still be read: a consumer
// subtask that reads it has not finished or is in resetting (or the
// consumer's parallelism is not decided yet).
func (m *master) stillRead(p partID, resetting map[format.SubtaskRef]bool) bool {
	v := m.byID[p.Vertex]
	if v == nil {
		return false
	}
	for _, e := range v.outs {
		c := e.to
		if c.spec.ID != p.Consumer {
			continue
		}
		if c.p == 0 {
			return true
		}
		lo, hi := edgeConsumers(e.pattern, int(v.p), int(c.p), int(p.Subtask))
		for j := lo; j < hi; j++ {
			if c.subs[j].status != subFinished || resetting[format.SubtaskRef{Vertex: c.spec.ID, Subtask: int32(j)}] {
				return true
			}
		}
	}
	return false
}
