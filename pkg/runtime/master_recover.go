package runtime

import (
	"context"
	"fmt"

	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// recoverJob starts a recovering epoch (docs/recovery.md): master_started with
// recovering true; wait for the workers of the previous epoch; plan with
// exactly the partitions they reported; log the plan's resets; rebuild
// the runtime status from the log; restore the coordinators; go on.
func (m *master) recoverJob(ctx context.Context) error {
	if err := m.emit(format.Event{Kind: format.KindMasterStarted, Master: m.cfg.addr, Recovering: true}); err != nil {
		return err
	}
	reported, err := m.awaitWorkers(ctx)
	if err != nil {
		return err
	}
	m.warnNoneReported(reported)
	plan := replay.PlanRecovery(m.state, reported, m.planOptions())
	resets := plan.Resets()
	deferred := plan.Deferred()
	m.stats.plan = plan
	if len(resets) > 0 {
		if err := m.emit(format.Event{Kind: format.KindSubtasksReset, Subtasks: m.sortedRefs(resets), Reason: format.ReasonRecovery}); err != nil {
			return err
		}
	}
	for _, id := range deferred {
		m.deferred[id] = true
	}
	if err := m.rebuild(ctx, plan); err != nil {
		return err
	}
	return m.resume(ctx)
}

// warnNoneReported says so on stderr when the log records partitions and
// no worker reported any of them: every finished subtask whose output is
// still needed reruns, which a dry run that assumes them all does not show
// (the workers' directory moved, or every worker is gone).
func (m *master) warnNoneReported(reported replay.Availability) {
	if m.cfg.fullRestart {
		return
	}
	recorded := replay.AllRecorded(m.state)
	if len(recorded) == 0 {
		return
	}
	for id := range recorded {
		if reported[id] {
			return
		}
	}
	where := "no worker reported any of them"
	if m.cfg.workDir != "" {
		where = "none of them is in the work dir " + m.cfg.workDir
	}
	m.logf("warning: the log records %d partitions of finished subtasks and %s: the subtasks whose output is still needed rerun",
		len(recorded), where)
}

// planOptions are the options of replay.PlanRecovery for this master:
// recovery switched off in the job's settings, or a log beginEpoch could
// not replay (a full restart the settings do not explain). `jobevent
// replay --dry-run` derives the same from the log (LogPlanOptions).
func (m *master) planOptions() replay.PlanOptions {
	disabled := !m.spec.Settings.RecoveryEnabled
	return replay.PlanOptions{RecoveryDisabled: disabled, LogUnreadable: m.cfg.fullRestart && !disabled}
}

// awaitWorkers handles registrations until the partitions reported keep
// as much as every recorded partition would, every expected worker has
// registered, or previous-worker-recovery-timeout has passed. It returns
// exactly what was reported.
func (m *master) awaitWorkers(ctx context.Context) (replay.Availability, error) {
	reported := replay.Availability{}
	best := replay.Plan(m.state, replay.AllRecorded(m.state)).Summary.Keep
	enough := func() bool {
		if m.cfg.expectWorkers > 0 {
			// Embedded: every worker registers at once; wait for all
			// of them, so that a seeded run does not depend on timing.
			return len(m.workers) >= m.cfg.expectWorkers
		}
		return replay.Plan(m.state, reported).Summary.Keep >= best
	}
	timeout := m.clock.After(m.spec.Settings.WorkerRecoveryTimeout)
	var deferredMsgs []any
	defer func() {
		// Requeue what arrived meanwhile, for the main loop.
		for _, msg := range deferredMsgs {
			m.post(msg)
		}
	}()
	for !enough() {
		select {
		case msg := <-m.inbox:
			reg, ok := msg.(msgRegister)
			if !ok {
				deferredMsgs = append(deferredMsgs, msg)
				continue
			}
			reply, err := m.addWorker(reg.reg, reg.link)
			reg.reply <- registerResult{reply: reply, err: err}
			if err == nil {
				for _, h := range reg.reg.Partitions {
					reported[h.ID] = true
				}
			}
		case <-timeout:
			m.logf("previous-worker-recovery-timeout (%v) passed with %d worker(s) registered; partitions not reported are lost",
				m.spec.Settings.WorkerRecoveryTimeout, len(m.workers))
			return reported, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return reported, nil
}

// rebuild sets the runtime status from the state (after the recovery
// resets) and the plan's attempts.
func (m *master) rebuild(ctx context.Context, plan *replay.RecoveryPlan) error {
	for _, v := range m.vertices {
		if p, ok := m.state.Parallelism(v.spec.ID); ok {
			m.makeSubtasks(v, p)
		}
	}
	for _, sp := range plan.Subtasks {
		v := m.byID[sp.Vertex]
		if v == nil || sp.Subtask < 0 || sp.Subtask >= v.p {
			continue
		}
		s := &v.subs[sp.Subtask]
		switch sp.Decision {
		case replay.DecisionKeep:
			s.lastStarted = sp.Attempt
		case replay.DecisionRerun:
			s.lastStarted = sp.Attempt - 1
			m.stats.reruns++
		}
	}
	for _, f := range m.state.Finished() {
		v := m.byID[f.Vertex]
		if v == nil || f.Subtask < 0 || f.Subtask >= v.p {
			continue
		}
		s := &v.subs[f.Subtask]
		s.status, s.attempt, s.worker = subFinished, f.Attempt, f.Worker
		s.lastStarted = max(s.lastStarted, f.Attempt)
		v.finished++
		m.stats.kept++
	}
	// Registrations came before the statuses were rebuilt: note the
	// current partitions now.
	for id, w := range m.reportedHeld() {
		if m.isCurrent(id) {
			m.partLoc[id] = w
		}
	}
	for _, v := range m.vertices {
		if v.source == nil || v.p == 0 {
			continue
		}
		var snap []byte
		if v.spec.Coordinator == format.CoordinatorBatchSnapshot && !m.cfg.fullRestart {
			snap, _ = m.state.Coordinator(v.spec.ID)
		}
		if err := m.startEnumerator(ctx, v, snap); err != nil {
			return err
		}
		for i := range v.subs {
			if v.subs[i].status != subFinished {
				v.enum.AddSplitsBack(i)
			}
		}
	}
	return nil
}

// reportedHeld returns, for every partition a registered worker reported,
// the worker holding it.
func (m *master) reportedHeld() map[partID]*workerRef {
	out := map[partID]*workerRef{}
	for _, w := range m.sortedWorkers() {
		for _, h := range m.held[w.id] {
			out[h.ID] = w
		}
	}
	return out
}

// resume initializes the vertices that should already be (a crash between
// the last producer's finish and vertex_initialized) and queues what is
// ready.
func (m *master) resume(ctx context.Context) error {
	for _, v := range m.vertices {
		if v.p != 0 {
			continue
		}
		if len(v.ins) == 0 {
			if err := m.initVertex(ctx, v, v.spec.Parallelism); err != nil {
				return err
			}
			continue
		}
		if v.inputsDone() {
			p := v.spec.Parallelism
			if p == 0 {
				p = m.autoParallelism(v)
			}
			if err := m.initVertex(ctx, v, p); err != nil {
				return err
			}
		}
	}
	for _, v := range m.vertices {
		m.enqueue(v)
	}
	return nil
}

// fullRestartState returns a state holding only the job's graph, for a
// master that restarts a job whose log cannot be replayed; its events are
// numbered from next.
func fullRestartState(spec *Spec, next int64) (*replay.State, error) {
	s := replay.NewState()
	e := format.Event{Seq: next - 1, Epoch: 1, Kind: format.KindJobSubmitted, Job: spec.Job, Graph: spec.Graph()}
	if err := s.Apply(&e); err != nil {
		return nil, fmt.Errorf("graph of job %s does not fold: %w", spec.Job, err)
	}
	return s, nil
}
