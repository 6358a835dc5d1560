// Package replay reads a job's event log as a recovering master does:
// it folds the events into job state (Fold, State.Apply), decides which
// subtasks a master failover keeps, reruns or runs, and why (Plan), checks
// that a log is well-formed (Validate), and compares two logs (Diff,
// DiffEvents). From the same fold it tells what a log says about the run:
// every attempt with its times and outcome (History), per-vertex
// statistics, the critical path and the cost of failovers (Stats,
// History.CriticalPath), and what a failover would have cost at each
// moment of the log (Sweep).
//
// The recovering master of pkg/runtime and `jobevent replay --dry-run` call
// the same Plan: the dry run is not an estimate, it is what recovery does.
// The rule is Flink 1.20's batch job recovery with the differences
// docs/recovery.md notes; docs/recovery.md states it step by step, and
// Plan calls one method per step.
//
// The package reads events from a Source (anything with Next() returning
// io.EOF at the end: a blob.Reader, a format.JSONReader, a generator) and
// imports pkg/format only.
//
// # Fold
//
// State holds what the log says about the job, with memory proportional
// to the job, not to the log: the graph; the parallelism of each vertex
// (from vertex_initialized, never recomputed); the finished map, subtask
// to last finished attempt with its worker and partitions, in insertion
// order (a later finish without a reset keeps its place; subtasks_reset
// removes entries); each subtask's last attempt and whether it ever
// started; the seq of the latest snapshot and each vertex's last
// coordinator state; the last seq and epoch; the job's status.
//
// Events of an epoch lower than the highest seen are writes of a fenced
// master and are ignored. An event that cannot be applied (a vertex not in
// the graph, a subtask out of range or of a vertex not initialized, a
// second vertex_initialized, a parallelism above MaxParallelism) is
// skipped with an *ApplyError: the fold never panics and goes on, and
// Validate reports the event.
//
// Partitions: a finished attempt of vertex V, subtask i, produces one
// partition per out-edge V → C, identified by PartitionID{V, i, attempt,
// C}. An absent partitions field means exactly that, stored on the
// attempt's worker; a listed partition naming a vertex that is not a
// consumer of V is dropped. Pointwise wiring between m producers and n
// consumers follows Flink (ConsumerRange, ProducerRange): m ≥ n, consumer
// j reads producers [⌊j·m/n⌋, ⌊(j+1)·m/n⌋); m < n, producer i feeds
// consumers [⌈i·n/m⌉, ⌈(i+1)·n/m⌉).
//
// # Plan
//
// Plan(s, A) takes the set A of partitions that survived (Availability;
// BuildAvailability maps the CLI's --available, --lost-worker,
// --lost-partition and --no-workers onto it; AllRecorded is the dry run's
// default) and returns a RecoveryPlan that marshals to the JSON of
// `replay --dry-run --format json`:
//
//	{"job": "wordcount", "last_seq": 16, "epoch": 1,
//	 "vertices": [{"vertex": "src", "parallelism": 2, "initialized": true, "deferred": false},
//	              {"vertex": "agg", "parallelism": null, "initialized": false, "deferred": false}],
//	 "subtasks": [{"vertex": "src", "subtask": 0, "decision": "keep", "attempt": 0, "reasons": []},
//	              {"vertex": "src", "subtask": 1, "decision": "rerun", "attempt": 1,
//	               "reasons": ["partition_lost"]}],
//	 "summary": {"keep": 1, "rerun": 1, "run": 0}}
//
// PlanRecovery(s, A, opts) is what a recovering master calls: Plan,
// unless PlanOptions name a full restart (recovery switched off in the
// job's settings, reason recovery_disabled; a log that cannot be replayed,
// log_unreadable) or the log already ends the job (RecoveryPlan.Ended:
// nothing runs). The dry run calls PlanDryRun(s, o, opts), the same plan
// for the A that the AvailabilityOptions o describe, from the same
// planner, without building A where it cannot change the plan.
// DecideDryRun(s, o, opts) decides that plan without laying it out:
// its WriteJSON writes each row as it is decided and holds none, so the
// JSON of a job of a million subtasks costs no memory for its rows.
//
// A recovering master logs RecoveryPlan.Resets as one subtasks_reset
// (reason "recovery") right after its master_started, goes on with
// RecoveryPlan.Kept, and passes RecoveryPlan.Deferred to State.ExpandReset
// when a consumer later reports partition-not-found.
//
// Plan is linear in the subtasks and edges of the job: subtasks are dense
// indices, pointwise ranges are computed arithmetically and all-to-all
// closures are taken once per edge. On one core of a shared 2-core machine,
// a job of 100,000 subtasks with a 1,000,000-event log folds in 0.14–0.5 s
// (a 12 MB state) and plans in about 0.1 s with 15 MB of allocations (see
// bench_test.go).
//
// # Validate
//
// Validate streams a log and reports each violation as a Finding with a
// stable rule id:
//
//	rule id                   severity  what it checks
//	schema-version            error     the source read a segment of an unknown major schema version (format.ErrUnknownVersion); validation stops
//	syntax                    error     a line of JSONL is not a valid event (format.ErrSyntax); validation stops
//	corrupt                   error     any other error of the source: a damaged object, a seq gap it found (a log that does not start at seq 1 or stops short of its newest epoch's start_seq), a covered segment whose rows differ from its cover; validation stops
//	torn-tail                 warning   the source's newest segment of an epoch was torn (no footer): the epoch's events end before it
//	unknown-object            warning   the source skipped an object whose name is not part of the layout
//	fenced-write              warning   events of an epoch written after a later epoch took over (a fenced master): replay ignores them, whether the source filtered them (a notice) or they are inline
//	job-submitted             error     the first event is job_submitted, and no other is; a log with no events at all (and no torn tail to explain it) has none
//	invalid-graph             error     the graph of job_submitted: ids present and unique, known coordinators and patterns, parallelism within max_parallelism (auto needs one), edges between known vertices, no loop, no repeated edge, no cycle
//	epoch-start               error     the second event is master_started of epoch 1 (or of a later, recovering epoch, when the first master died right after job_submitted); every later epoch opens with its master_started, and has one
//	epoch-order               error     epochs are at least 1 and never go back, except for fenced writes
//	seq-order                 error     seqs start at 1 and increase by 1, without gaps (fenced writes aside)
//	unknown-vertex            error     every vertex named by an event is in the graph
//	subtask-range             error     every subtask named is within [0, parallelism)
//	vertex-not-initialized    error     no subtask event before its vertex's vertex_initialized
//	vertex-reinitialized      error     a vertex is initialized once
//	parallelism-mismatch      error     vertex_initialized gives the fixed parallelism, or for auto at most max_parallelism; never out of range
//	attempt-order             error     a subtask's attempts start at 0 and each start is higher than every attempt before
//	attempt-overlap           error     no attempt starts while another attempt of the subtask runs in the same epoch
//	finish-without-start      error     subtask_finished and subtask_failed end the attempt started in the same epoch
//	finished-twice            error     a subtask is not finished again without a subtasks_reset in between
//	consumer-before-producer  error     a subtask starts only when every producer subtask it reads is finished
//	unknown-partition         error     partitions name consumers that are out-edges of the vertex, once each
//	snapshot-coordinator      error     snapshots name only vertices whose coordinator is batch_snapshot
//	invalid-field             error     a known kind, a job_finished status of finished/failed/canceled, a subtasks_reset that names a subtask
//	after-job-finished        error     nothing follows job_finished (reported once, at the first event after it)
//	epoch-start-seq           error     an epoch's first event is at the start_seq of its epoch object (sources that know the epoch objects: a bucket log)
//	epoch-unclaimed           error     every epoch with events has an epoch object (a master claimed it)
//	epoch-unused              warning   every epoch object's epoch has events, its master_started first: a master that stopped before its first flush (or has not flushed yet) leaves one without
//	too-many-findings         warning   validation stopped at ValidateOptions.MaxFindings
//
// testdata/validate holds one log per rule that produces exactly that
// finding, and good.jsonl, which produces none. Validate's memory grows
// with the job (per-subtask state), never with the log; it checks 4 to 8
// million events per second on one core.
//
// # Diff
//
// Diff compares two replayed states semantically (graph, parallelism,
// each subtask's decision and attempt in the plan with every partition
// available, partitions, records and bytes, final status); DiffEvents
// aligns the two event sequences, ignoring seq and time. Both return a
// DiffResult whose differences name a path and the values in each log.
//
// # History and Stats
//
// History folds a log like State (it holds one, so fenced writes and
// skipped events are ignored the same way) and records every attempt of
// every subtask as an AttemptSpan: from its subtask_started to the event
// that ended it, with its epoch, worker, records, bytes and Outcome
// (finished, failed, reset, interrupted by a failover or a reset, or still
// running), and every epoch as an EpochSpan, with the subtasks its
// recovery reran. Its memory grows with the attempts of the job, one span
// each.
//
// History.Stats, or ComputeStats on a Source, summarizes a job as the JSON
// of `jobevent stats --format json`: per vertex, its attempts, reruns and
// failures, p50 and max durations of its finished attempts, and the
// records and bytes of the finished attempts that stand at the end of the
// log (reruns are not counted twice); the critical path; and per failover
// its downtime (wall time without a master) and the work it redid
// (task-seconds of the attempts it interrupted or reset).
//
// History.CriticalPath is the chain of attempts that bounded the wall
// time, first to last. It starts from the finished attempt that ended
// last and walks back: the step before an attempt is what it waited for,
// whichever ended last of the producer attempts it read and its own
// previous attempt (a retry). Each PathStep says what it waited for (WaitStart,
// WaitInput, WaitRetry, WaitFailover) and for how long.
//
// # Sweep
//
// Sweep folds a log once and, at each sampled event, calls Plan on the
// state there, as if the master had died right after that event: the
// exposure curve of `jobevent replay --dry-run --sweep` and of `jobevent
// timeline`. Each SweepPoint holds the plan's summary and what recovery
// would throw away and redo: the finished subtasks it would discard, their
// bytes, and the task-seconds of the finished and running attempts that
// would rerun. SweepOptions samples every K-th event, caps the number of
// points (the stride doubles to stay under the cap), stops at a seq, and
// describes the partitions that survive at each point as
// BuildAvailability does. Each point costs one Plan, linear in the
// subtasks of the job.
package replay
