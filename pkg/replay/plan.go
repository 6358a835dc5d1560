package replay

import (
	"encoding/json"

	"github.com/jobevent/jobevent/pkg/format"
)

// Plan decides, from the state of a log and the set avail of partitions
// that survived (A), what a recovering master does with every subtask of
// every initialized vertex: keep it, rerun it, or run it, and why. The
// recovering master and `jobevent replay --dry-run` both call Plan; the dry
// run is not an estimate of recovery, it is recovery without the side
// effects.
//
// Plan applies the recovery rule of docs/recovery.md ("The rule, step by
// step"), Flink 1.20's batch job recovery, one method per step:
//
//  1. Replay (planner.replay): the finished map, subtask to last finished
//     attempt, and the parallelism of each vertex, as the fold left them.
//  2. Trim (planner.trim): a finished entry of a batch_snapshot vertex is
//     kept only if a snapshot follows its finish; every other is kept.
//     Kept entries are FINISHED; every other subtask will run.
//  3. Coordinators (planner.coordinators): a no_batch_snapshot vertex
//     reruns whole unless it had fully finished, in which case it is
//     deferred.
//  4. Partitions (planner.partitions): the producers of needed partitions
//     that are not in A rerun, and every reset closes to a fixed point
//     over what it touches.
//  5. Result (planner.result): keep, rerun or run, with the reasons of
//     each rerun, the resets to log and the vertices still deferred.
//
// Plan only reads s. Its cost is linear in the subtasks and edges of the
// job, plus one lookup in avail per partition of a FINISHED subtask.
func Plan(s *State, avail Availability) *RecoveryPlan {
	return plan(s, avail).layout()
}

// plan applies the rule to s with A as a partitionSet (nil: every
// recorded partition). The planner it returns holds every subtask's
// decision and reasons; layout lays them out as a RecoveryPlan, eachRow
// hands them out one row at a time.
func plan(s *State, avail partitionSet) *planner {
	p := newPlanner(s)
	p.replay()
	p.trim()
	p.coordinators()
	p.partitions(avail)
	p.result()
	return p
}

// PlanFields are the event fields that the plans of Plan, PlanRecovery
// and PlanDryRun depend on: a State folded from events that hold only
// these (a source projected on them, blob.ReaderOptions.Fields) plans the
// same, kept subtasks and resets included, though its finished entries
// lack their input metrics (State.Finished). They are FoldFields without
// the input records and bytes, the error messages and the coordinators'
// states. The master's address stays: it chooses the profile.
const PlanFields = FoldFields &^ (format.FieldRecordsIn | format.FieldBytesIn | format.FieldError |
	format.FieldCoordinators)

// planner holds the dense working arrays of one Plan call. Its methods
// replay, trim, coordinators, partitions and result are the five steps of
// the rule, in order; each leaves its outcome in flags and the per-vertex
// arrays for the next.
type planner struct {
	s       *State
	t       *topology
	flags   []uint8 // per subtask
	reasons []uint8 // per subtask
	miss    []bool  // per subtask and out-edge slot: recorded, not available
	missOff []int   // per vertex: offset of its subtasks in miss

	deferred, expanded, resetAll []bool // per vertex
	downDone, upDone             []bool // per all-to-all edge: closure done
	queue                        []int32
	prefix                       []int32 // prefix counts of fWill
	kept                         int     // FINISHED subtasks not marked: an upper bound of keeps
	inMap                        int     // subtasks in the finished map (step 1)

	full  uint8 // reason bits of a full restart (rDisabled, rUnreadable); 0: the rule applies
	ended bool  // the log ends the job: rows for the finished entries only
}

// Per-subtask flags of a planner.
const (
	fInMap    uint8 = 1 << iota // in the finished map at the failover (step 1)
	fStarted                    // some attempt had started or finished (step 1)
	fTrimmed                    // removed from the finished map by step 2
	fFinished                   // FINISHED after step 2
	fWill                       // will run: rerun or run (steps 2 to 4)
	fCanceled                   // Flink profile: cancelled by step 3, then reset
)

func newPlanner(s *State) *planner {
	nv, n := len(s.topo.ids), len(s.sub)
	return &planner{
		s: s, t: s.topo,
		flags: make([]uint8, n), reasons: make([]uint8, n),
		missOff:  make([]int, nv),
		deferred: make([]bool, nv), expanded: make([]bool, nv), resetAll: make([]bool, nv),
		downDone: make([]bool, len(s.topo.edges)), upDone: make([]bool, len(s.topo.edges)),
	}
}

// replay is step 1, Replay. The finished map holds, per subtask, its last
// finished attempt, in insertion order: a later finish of the same subtask
// without a reset keeps its position, and subtasks_reset removes entries.
// The parallelism of each vertex comes from vertex_initialized and is
// never recomputed. Events of a fenced master are ignored.
//
// The fold (State.Apply) replays the log event by event; replay reads what
// it left for each subtask: whether it is in the finished map, and whether
// some attempt of it had started or finished before the failover.
func (p *planner) replay() {
	for x := range p.s.sub {
		st := &p.s.sub[x]
		var f uint8
		if st.lastAttempt >= 0 {
			f |= fStarted
		}
		if st.finSeq > 0 {
			f |= fInMap
			p.inMap++
		}
		p.flags[x] = f
	}
}

// trim is step 2, Trim. A finished entry of a vertex whose coordinator is
// batch_snapshot is kept only if some snapshot event follows its latest
// subtask_finished in the log: the restored split assignment must not
// predate a kept finish. Every other finished entry is kept. (Flink trims
// all of them, because its shuffle master's state is snapshotted at the
// same points; here the partition state is the log itself, so trimming
// them would only throw progress away.) Everything kept is FINISHED; every
// other subtask of an initialized vertex is not, and will run.
func (p *planner) trim() {
	var flink []bool // the Flink profile's trim, in map order
	if p.s.profile == ProfileFlink {
		flink = p.flinkTrim()
	}
	for x := range p.s.sub {
		f := p.flags[x]
		switch {
		case f&fInMap == 0:
		case flink != nil && flink[x], flink == nil && p.trims(&p.s.sub[x]):
			f |= fTrimmed
		default:
			f |= fFinished
		}
		if f&fFinished == 0 {
			f |= fWill
			p.queue = append(p.queue, int32(x))
		} else {
			p.kept++
		}
		p.flags[x] = f
	}
}

// trims reports whether step 2 removes the finished entry st: its vertex's
// coordinator is batch_snapshot and no snapshot follows its latest finish.
func (p *planner) trims(st *subtask) bool {
	return p.t.conf[st.vertex].Coordinator == format.CoordinatorBatchSnapshot && p.s.snapshotSeq <= st.finSeq
}

// coordinators is step 3, Coordinators, for each initialized vertex with a
// coordinator. batch_snapshot: only its subtasks that are not FINISHED run,
// and its enumerator is restored from the last snapshot (step 2 already
// decided which). no_batch_snapshot and every subtask FINISHED: nothing
// runs now, but the vertex is deferred: the first later reset of any of
// its subtasks resets all of them, once. no_batch_snapshot and not every
// subtask FINISHED: all its subtasks are reset, the finished ones too.
// The resets of this step close over what they touch in step 4's closure.
func (p *planner) coordinators() {
	if p.s.profile == ProfileFlink {
		if p.kept == 0 {
			return // Flink restores coordinators only when it recovered a finish
		}
		p.flinkCancel()
	}
	for v := range p.t.ids {
		vs := &p.s.vs[v]
		if vs.parallelism == 0 || p.t.conf[v].Coordinator != format.CoordinatorNoBatchSnapshot {
			continue
		}
		if p.finishedIn(vs) == vs.parallelism {
			p.deferred[v] = true
			continue
		}
		p.resetAll[v] = true
		for x := vs.base; x < vs.base+vs.parallelism; x++ {
			p.mark(x)
		}
	}
}

// partitions is step 4, Partitions. A partition of a FINISHED producer is
// needed if its consumer vertex is not initialized or some consumer subtask
// that reads it will run; otherwise it is optional and ignored. A needed
// partition that is not in A is missing: its producer is reset. (An
// available partition is reused even when all its consumers had finished;
// Flink does not track such a partition and reruns its producer instead.)
//
// Every reset, of this step and of step 3, closes transitively, to a fixed
// point, over the FINISHED consumers of what reruns (over a pointwise edge,
// only the consumer subtasks that read that producer: they consumed what
// is being recomputed), over the FINISHED producers of any partition a
// rerunning subtask reads that is not in A, and over the deferred
// vertices: the first reset of a subtask of a deferred vertex resets all
// of them, once. A subtask that will run for any reason is treated as
// reset here (one that was running at the failover cannot have finished
// consumers in a well-formed log, so this only matters for logs Validate
// rejects). The result is the least set closed under these rules, so it
// does not depend on the order in which they are applied.
func (p *planner) partitions(avail partitionSet) {
	if p.s.profile == ProfileFlink {
		// Plan's callers give the Flink profile an Availability (the
		// recorded set of PlanDryRun is jobevent's profile alone).
		a, _ := avail.(Availability)
		p.flinkPartitions(a)
		return
	}
	p.lookupMissing(avail) // recorded partitions of FINISHED subtasks not in A
	p.seedUninitialized()  // needed: the consumer vertex is not initialized
	p.close()              // needed: a consumer runs; and the closure of every reset
}

// layout lays the plan out: its head, and a row for every subtask that
// gets one (eachRow), with the kept subtasks and the resets to log.
func (p *planner) layout() *RecoveryPlan {
	plan := p.head()
	plan.Subtasks = make([]SubtaskPlan, 0, len(p.s.sub))
	plan.kept = make([]keptRef, 0, p.kept)
	plan.Summary = p.eachRow(func(x int32, row *SubtaskPlan) {
		switch row.Decision {
		case DecisionKeep:
			p.keep(plan, x)
		case DecisionRerun:
			if p.logsReset(p.flags[x]) {
				plan.resets = append(plan.resets, int32(len(plan.Subtasks)))
			}
		}
		plan.Subtasks = append(plan.Subtasks, *row)
	})
	return plan
}

// head returns the plan without its subtask rows: the job, its vertices,
// how a full restart or an ended job departs from the rule, and the
// vertices still deferred. Its Summary is counted by eachRow.
func (p *planner) head() *RecoveryPlan {
	s := p.s
	plan := &RecoveryPlan{
		Job: s.job, LastSeq: s.lastSeq, Epoch: s.epoch,
		Vertices: make([]VertexPlan, 0, len(p.t.ids)),
		topo:     p.t,
		workers:  s.workers,
	}
	switch {
	case p.ended:
		plan.Ended = s.status
	case p.full&rDisabled != 0:
		plan.FullRestart = ReasonRecoveryDisabled
	case p.full != 0:
		plan.FullRestart = ReasonLogUnreadable
	}
	for v, id := range p.t.ids {
		vs := &s.vs[v]
		still := p.deferred[v] && !p.expanded[v]
		plan.Vertices = append(plan.Vertices, VertexPlan{
			Vertex: id, Parallelism: vs.parallelism, Initialized: vs.parallelism > 0, Deferred: still,
		})
		if still {
			plan.deferred = append(plan.deferred, id)
		}
	}
	return plan
}

// eachRow calls f with the row of every subtask of every initialized
// vertex, in plan order (by vertex, then subtask), and the subtask's dense
// index; the row is valid only during the call. It returns the counts of
// the decisions. The subtasks of a job the log ends that were not in the
// finished map get no row: nothing runs them.
func (p *planner) eachRow(f func(x int32, row *SubtaskPlan)) Summary {
	var sets reasonSets
	var sum Summary
	for v := range p.t.ids {
		sum.add(p.rowsOf(&sets, int32(v), 0, p.s.vs[v].parallelism, f))
	}
	return sum
}

// rowsOf calls f, as eachRow does, with the rows of the subtasks first to
// end-1 of vertex v, and returns their summary. Rows of different
// vertices or subtasks can be made on different goroutines, each with
// its own sets.
func (p *planner) rowsOf(sets *reasonSets, v, first, end int32, f func(x int32, row *SubtaskPlan)) Summary {
	var sum Summary
	var row SubtaskPlan // one for every call: f may not keep it
	base := p.s.vs[v].base
	for i := first; i < end; i++ {
		x := base + i
		if p.ended && p.flags[x]&fInMap == 0 {
			continue
		}
		row = p.row(sets, v, i)
		switch row.Decision {
		case DecisionKeep:
			sum.Keep++
		case DecisionRerun:
			sum.Rerun++
		default:
			sum.Run++
		}
		f(x, &row)
	}
	return sum
}

// result is step 5, Result. Every subtask of every initialized vertex gets
// one decision: keep (FINISHED; the finished attempt is kept, with its
// partitions), rerun (not FINISHED, and some attempt had started or
// finished before the failover; the next attempt, last attempt + 1) or run
// (not FINISHED and never started; attempt 0). A rerun carries every
// reason that holds in the final plan, in this order: recovery_disabled
// and log_unreadable (a full restart, PlanRecovery), running_at_failover,
// finished_after_last_snapshot, coordinator_without_batch_snapshot,
// partition_lost, downstream_of_reset.
//
// The plan also holds the resets a recovering master logs as one
// subtasks_reset with reason "recovery" right after its master_started:
// the entries of the finished map that it reruns (trimmed by step 2 or
// reset by steps 3 and 4), so that a second failover replays correctly
// (Flink does not log them). And it holds the vertices still deferred, for
// State.ExpandReset.
//
// result computes the reasons of every rerun from the final decisions;
// layout and eachRow lay the decisions out as rows.
func (p *planner) result() {
	p.prefix = make([]int32, len(p.flags)+1)
	for x, f := range p.flags {
		p.prefix[x+1] = p.prefix[x]
		if f&fWill != 0 {
			p.prefix[x+1]++
		}
	}
	for x, f := range p.flags {
		if f&fWill == 0 || f&(fStarted|fCanceled) == 0 {
			continue
		}
		if p.full != 0 {
			p.reasons[x] = p.fullReasons(f)
			continue
		}
		v := p.s.sub[x].vertex
		var r uint8
		switch {
		case f&fInMap == 0:
			r |= rRunning
		case f&fTrimmed != 0:
			r |= rTrimmed
		}
		if p.resetAll[v] || p.expanded[v] {
			r |= rCoordinator
		}
		if f&fFinished != 0 {
			r |= p.resetReasons(int32(x), v)
		}
		p.reasons[x] = r
	}
}

// finishedIn counts the FINISHED subtasks of vertex vs after step 2.
func (p *planner) finishedIn(vs *vertexState) int32 {
	var n int32
	for x := vs.base; x < vs.base+vs.parallelism; x++ {
		if p.flags[x]&fFinished != 0 {
			n++
		}
	}
	return n
}

// row returns the decision for subtask i of vertex v: keep (FINISHED, its
// finished attempt), rerun (with its next attempt and its reasons) or run.
func (p *planner) row(sets *reasonSets, v, i int32) SubtaskPlan {
	s := p.s
	x := s.vs[v].base + i
	row := SubtaskPlan{Vertex: p.t.ids[v], Subtask: i, Reasons: sets.of(0)}
	st := &s.sub[x]
	f := p.flags[x]
	switch {
	case f&fWill == 0:
		row.Decision, row.Attempt = DecisionKeep, st.finAttempt
	case f&(fStarted|fCanceled) != 0:
		row.Decision, row.Attempt, row.Reasons = DecisionRerun, st.lastAttempt+1, sets.of(p.reasons[x])
		switch {
		case p.full&rUnreadable != 0:
			row.Attempt = 0 // the master cannot read the attempts: it numbers them again
		case p.full == 0 && s.profile == ProfileFlink:
			row.Attempt = p.flinkAttempt(x)
		}
	default:
		row.Decision = DecisionRun
	}
	return row
}

// logsReset reports whether a rerun subtask with flags f is a reset the
// recovering master logs: an entry of the finished map, unless the master
// cannot read the log (it starts from the job's graph alone) or Flink's
// profile applies (Flink logs no recovery resets).
func (p *planner) logsReset(f uint8) bool {
	if f&fInMap == 0 || p.full&rUnreadable != 0 {
		return false
	}
	return p.full != 0 || p.s.profile != ProfileFlink
}

// keep records the kept subtask x, whose row is the next of plan, for
// RecoveryPlan.Kept.
func (p *planner) keep(plan *RecoveryPlan, x int32) {
	st := &p.s.sub[x]
	if parts := p.s.partsOf(x); parts != nil {
		if plan.keptParts == nil {
			plan.keptParts = make(map[int32][]partRec)
		}
		plan.keptParts[int32(len(plan.kept))] = parts
	}
	plan.kept = append(plan.kept, keptRef{
		row: int32(len(plan.Subtasks)), worker: st.worker, bytesOut: st.bytesOut, records: st.recOut,
	})
}

// Decision is what recovery does with one subtask. The string values are
// part of the JSON of `replay --dry-run --format json`.
type Decision string

// The three decisions.
const (
	DecisionKeep  Decision = "keep"  // FINISHED: its finished attempt is kept
	DecisionRerun Decision = "rerun" // not FINISHED, and some attempt had started or finished
	DecisionRun   Decision = "run"   // not FINISHED, and no attempt ever started
)

// Reasons of a rerun, in the order a plan lists them. The string values are
// part of the JSON of `replay --dry-run --format json`.
const (
	// ReasonRecoveryDisabled: the job's settings switch recovery off
	// (execution.batch.job-recovery.enabled: false), so a resumed master
	// restarts every subtask (PlanOptions.RecoveryDisabled).
	ReasonRecoveryDisabled = "recovery_disabled"
	// ReasonLogUnreadable: the log cannot be replayed (corruption, an
	// unknown major schema version), so a resumed master restarts the job
	// from its job.yaml (PlanOptions.LogUnreadable).
	ReasonLogUnreadable = "log_unreadable"
	// ReasonRunningAtFailover: its last attempt had not finished when the
	// master died (running, failed, or reset and waiting).
	ReasonRunningAtFailover = "running_at_failover"
	// ReasonFinishedAfterLastSnapshot: it finished, but its vertex's
	// coordinator is batch_snapshot and no snapshot followed that finish.
	ReasonFinishedAfterLastSnapshot = "finished_after_last_snapshot"
	// ReasonCoordinatorWithoutBatchSnapshot: its vertex's coordinator is
	// no_batch_snapshot and the whole vertex reruns (it had not fully
	// finished, or it was deferred and one of its subtasks was reset).
	ReasonCoordinatorWithoutBatchSnapshot = "coordinator_without_batch_snapshot"
	// ReasonPartitionLost: one of its own output partitions is needed (a
	// consumer of it runs, or the consumer vertex is not initialized) and
	// not available.
	ReasonPartitionLost = "partition_lost"
	// ReasonDownstreamOfReset: it finished, but something it consumed
	// reruns.
	ReasonDownstreamOfReset = "downstream_of_reset"
)

// RecoveryPlan is the result of Plan. It marshals to the JSON of `jobevent
// replay --dry-run --format json`, shown in the package documentation. It
// does not change after Plan returns and may be read concurrently.
type RecoveryPlan struct {
	Job      string        `json:"job"`
	LastSeq  int64         `json:"last_seq"`
	Epoch    int32         `json:"epoch"`    // the last epoch replayed
	Vertices []VertexPlan  `json:"vertices"` // in job_submitted order
	Subtasks []SubtaskPlan `json:"subtasks"` // by vertex order, then subtask
	Summary  Summary       `json:"summary"`
	// Ended is the status of the log's job_finished (finished, failed or
	// canceled) when the log already ends the job: a resumed master runs
	// nothing, and the plan's rows are the finished entries, kept; the
	// other subtasks have no row. Empty while the job runs.
	Ended string `json:"ended,omitempty"`
	// FullRestart is the reason of a full restart (ReasonRecoveryDisabled
	// or ReasonLogUnreadable, the first that holds), empty when the rule
	// applies.
	FullRestart string `json:"full_restart,omitempty"`

	topo *topology
	kept []keptRef
	// keptParts holds the partitions of the kept entries that list them,
	// by index into kept; shared with the State, which never modifies
	// them in place.
	keptParts map[int32][]partRec
	workers   []string // State.workers, to which the State only appends
	resets    []int32  // indices into Subtasks
	deferred  []string
}

// VertexPlan is one vertex of a plan. Parallelism is meaningful only when
// Initialized; in JSON it is null for a vertex not initialized.
type VertexPlan struct {
	Vertex      string
	Parallelism int32
	Initialized bool
	// Deferred reports whether the vertex is still deferred after the
	// plan: its coordinator is no_batch_snapshot, it is fully kept, and
	// the first later reset of any of its subtasks must reset all of them.
	Deferred bool
}

type vertexPlanJSON struct {
	Vertex      string `json:"vertex"`
	Parallelism *int32 `json:"parallelism"`
	Initialized bool   `json:"initialized"`
	Deferred    bool   `json:"deferred"`
}

// MarshalJSON writes {"vertex","parallelism","initialized","deferred"},
// with a null parallelism for a vertex not initialized.
func (v VertexPlan) MarshalJSON() ([]byte, error) {
	j := vertexPlanJSON{Vertex: v.Vertex, Initialized: v.Initialized, Deferred: v.Deferred}
	if v.Initialized {
		p := v.Parallelism
		j.Parallelism = &p
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (v *VertexPlan) UnmarshalJSON(data []byte) error {
	var j vertexPlanJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	*v = VertexPlan{Vertex: j.Vertex, Initialized: j.Initialized, Deferred: j.Deferred}
	if j.Parallelism != nil {
		v.Parallelism = *j.Parallelism
	}
	return nil
}

// SubtaskPlan is the decision for one subtask. Attempt is the kept attempt
// for keep, the next attempt (last attempt + 1) for rerun, 0 for run.
// Reasons is never nil: empty for keep and run. Plans share Reasons slices
// between rows: do not modify them.
type SubtaskPlan struct {
	Vertex   string   `json:"vertex"`
	Subtask  int32    `json:"subtask"`
	Decision Decision `json:"decision"`
	Attempt  int32    `json:"attempt"`
	Reasons  []string `json:"reasons"`
}

// Summary counts the decisions of a plan.
type Summary struct {
	Keep  int `json:"keep"`
	Rerun int `json:"rerun"`
	Run   int `json:"run"`
}

func (s *Summary) add(t Summary) {
	s.Keep, s.Rerun, s.Run = s.Keep+t.Keep, s.Rerun+t.Rerun, s.Run+t.Run
}

// KeptSubtask is what a recovering master needs to go on with a kept
// subtask: its attempt, where it ran, and its partitions.
type KeptSubtask struct {
	format.SubtaskRef
	Attempt    int32
	Worker     string
	Partitions []PartitionLoc
}

// keptRef holds what Kept expands besides the kept row (vertex, subtask,
// attempt) and the partitions in keptParts.
type keptRef struct {
	row, worker       int32 // indices into Subtasks and workers
	bytesOut, records int64
}

// Kept returns the kept subtasks, in plan order.
func (p *RecoveryPlan) Kept() []KeptSubtask {
	out := make([]KeptSubtask, len(p.kept))
	for k, r := range p.kept {
		row := &p.Subtasks[r.row]
		worker := ""
		if r.worker >= 0 {
			worker = p.workers[r.worker]
		}
		v := p.topo.vertex(row.Vertex)
		out[k] = KeptSubtask{
			SubtaskRef: format.SubtaskRef{Vertex: row.Vertex, Subtask: row.Subtask},
			Attempt:    row.Attempt,
			Worker:     worker,
			Partitions: partitionLocs(p.topo, v, row.Subtask, row.Attempt, worker, p.keptParts[int32(k)], r.bytesOut, r.records),
		}
	}
	return out
}

// Resets returns the subtasks a recovering master logs, right after its
// master_started, as one subtasks_reset with reason "recovery": the
// entries of the finished map that the plan reruns (those trimmed or reset
// by steps 2 to 4), in plan order. Logging them lets a second failover
// replay correctly.
func (p *RecoveryPlan) Resets() []format.SubtaskRef {
	out := make([]format.SubtaskRef, len(p.resets))
	for k, i := range p.resets {
		out[k] = format.SubtaskRef{Vertex: p.Subtasks[i].Vertex, Subtask: p.Subtasks[i].Subtask}
	}
	return out
}

// Deferred returns the vertices still deferred after the plan, in graph
// order: the runtime passes them to State.ExpandReset so that the first
// later reset of any of their subtasks resets all of them, once.
func (p *RecoveryPlan) Deferred() []string {
	return append([]string(nil), p.deferred...)
}
