package replay

// PlanOptions are what a recovering master knows besides the log and the
// partitions available, and that change what it does: the paths by which
// it departs from the rule (docs/recovery.md, "Whatever the master will
// do, the dry run says"). The zero value applies the rule.
type PlanOptions struct {
	// RecoveryDisabled reports whether the job's settings switch recovery
	// off (execution.batch.job-recovery.enabled: false in the job.yaml
	// stored in the log): a resumed master restarts every subtask.
	RecoveryDisabled bool
	// LogUnreadable reports whether the log cannot be replayed to its end
	// (corruption, an unknown major schema version): a resumed master
	// restarts the job from its job.yaml, numbering attempts from 0 again,
	// and keeps the log. The State holds what could be read before the
	// damage.
	LogUnreadable bool
}

// PlanRecovery is what a recovering master does with the log folded into
// s, given the partitions avail that survived and the options of the job:
// the recovering master and `jobevent replay --dry-run` both call it. In
// this order:
//
//   - a log that cannot be replayed (opts.LogUnreadable): a full restart.
//     Every subtask of every vertex initialized in what could be read
//     reruns (reason log_unreadable) with attempt 0, since the master
//     cannot see the attempts; the rest run. No resets are logged: the
//     master starts from the job's graph alone.
//   - a job the log already ends (job_finished: finished, failed or
//     canceled): nothing runs. The plan keeps the entries of the finished
//     map, has no row for the other subtasks, and says how the job ended
//     (RecoveryPlan.Ended).
//   - recovery switched off (opts.RecoveryDisabled): a full restart. Every
//     subtask that had started or finished reruns with its next attempt
//     (reason recovery_disabled, then running_at_failover if its last
//     attempt had not finished); the others run; every entry of the
//     finished map is a reset to log; no vertex stays deferred.
//   - otherwise Plan, the rule.
//
// In a full restart the rule's other reasons do not apply: nothing is
// kept, so no snapshot, coordinator or partition decides anything.
func PlanRecovery(s *State, avail Availability, opts PlanOptions) *RecoveryPlan {
	return planRecovery(s, avail, opts)
}

// planRecovery is PlanRecovery with A as a partitionSet (nil: every
// recorded partition).
func planRecovery(s *State, avail partitionSet, opts PlanOptions) *RecoveryPlan {
	return decideRecovery(s, avail, opts).layout()
}

// decideRecovery decides what PlanRecovery plans: the planner it returns
// holds every subtask's decision and reasons, for layout or eachRow.
func decideRecovery(s *State, avail partitionSet, opts PlanOptions) *planner {
	var full uint8
	if opts.RecoveryDisabled {
		full |= rDisabled
	}
	if opts.LogUnreadable {
		full |= rUnreadable
	}
	ended := s.status != "" && !opts.LogUnreadable
	if full == 0 && !ended {
		return plan(s, avail)
	}
	p := newPlanner(s)
	p.replay()
	if ended {
		p.ended = true // the finished entries keep: fWill stays clear
		p.kept = p.inMap
	} else {
		p.full = full
		for x := range p.flags {
			p.flags[x] |= fWill
		}
	}
	p.result()
	return p
}

// fullReasons returns the reason bits of a subtask with flags f that a
// full restart reruns: the restart's own, and running_at_failover when it
// was not in the finished map.
func (p *planner) fullReasons(f uint8) uint8 {
	r := p.full
	if f&fInMap == 0 {
		r |= rRunning
	}
	return r
}
