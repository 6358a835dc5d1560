// Package runtime is jobevent's compact batch runtime: a master that
// schedules a DAG of vertices over workers, records every state change of
// the job in an event log (pkg/blob), and, after a master failure, recovers
// from the log plus the partitions the workers kept, rerunning only what
// the recovery plan (replay.Plan, docs/recovery.md) says.
//
// # Pieces
//
//	spec.go, settings.go   job spec (YAML), its validation, Flink's settings
//	operator.go            Register, Source / SplitEnumerator /
//	                       BatchSnapshotter, Transform, Committer
//	builtin_*.go           sequence, text, map, flat_map, filter, count, sum,
//	                       sleep, sink
//	record.go, partition.go  records and the partition files on a worker
//	wiring.go              pointwise and all-to-all wiring, key groups
//	worker.go, task.go     running attempts, serving partitions
//	master*.go             scheduling, events, failover, recovery
//	embedded.go            Run and Resume: master and workers in one process
//	process_*.go, http.go  RunMaster and RunWorker: processes over HTTP
//
// # Data plane
//
// A finished attempt of vertex V, subtask i, writes one partition per
// out-edge V → C to its worker's disk:
//
//	<worker dir>/<job>/<V>-<i>-<attempt>-<C>
//
// Records are (key, value) pairs of integers and strings. A partition holds
// G key groups (record k goes to group FNV-1a(k) mod G), so a consumer reads
// a contiguous range of groups. All-to-all consumer j of n reads Flink's
// key group range j of n from every producer; G is the consumer's
// max_parallelism there, and for auto consumers, so that a parallelism
// decided later still reads contiguous ranges. Pointwise edges follow
// docs/format.md (floor when m ≥ n, ceiling when m < n); a producer feeding
// several consumers splits its groups between them.
//
// # Recovery
//
// A master claims an epoch in the log (fencing older masters), writes
// master_started, and writes every event through a blob.Writer while
// folding the same events into a replay.State, so that its bookkeeping and
// the log can never disagree. A recovering master folds the log, claims the
// next epoch, waits up to previous-worker-recovery-timeout for the workers
// to report their partitions, calls replay.Plan with exactly what they
// reported, logs plan.Resets() as subtasks_reset (reason "recovery"),
// restores batch_snapshot enumerators from the last snapshot, and goes on:
// kept subtasks are not run again.
//
// Sinks write each attempt to a staging object; the master commits the
// winning attempts before job_finished, so the output is the same with and
// without master crashes at any point.
//
// # Reproducible runs
//
// With Options.Seeded the embedded runtime runs one attempt at a time,
// choosing the next subtask and its worker with a seeded generator, and
// every source hands split k to subtask k mod parallelism: a run, its log
// and its crash points (Options.CrashAfterSeq) are reproducible exactly.
package runtime
