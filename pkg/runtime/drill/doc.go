// Package drill runs failover drills: it proves, crash point by crash
// point, that the recovery plan a dry run computes from the log is exactly
// what a recovering master does (docs/recovery.md).
//
// A drill of a job spec:
//
//  1. runs the job once, clean and seeded, with the embedded runtime, and
//     keeps its log and its output bytes;
//  2. picks crash points: every seq of the clean log, or N evenly spaced
//     seqs plus the vertex boundaries (the seqs of vertex_initialized and
//     of the last subtask_finished of each vertex);
//  3. for every point and fault (see Fault) runs the job again in a fresh
//     directory, lets the master die right after event k is durable,
//     injects the fault, takes the dry-run plan of the crashed log (Fold
//     over a blob reader, replay.BuildAvailability, then the Planner with
//     the plan options of the log's job.yaml: the calls `jobevent replay
//     --dry-run` makes), resumes, and compares the
//     plan with the subtask_started events the resumed master wrote in its
//     epoch, the output with the clean output, and checks the recovered
//     log with replay.Validate;
//  4. reports one Case per point and fault, the recovery cost curve (work
//     redone as a function of the crash point) and a Verdict.
//
// The prediction is always checked from the log, never from the master's
// in-memory plan.
//
// # Directories
//
// Each case runs in its own directory under a scratch directory:
//
//	<scratch>/clean/                  the clean run
//	<scratch>/case-<point>-<fault>/   one case
//	    jobevents/<job>/...           its log (file://, prefix <job>/)
//	    jobevents-work/...            the workers' partitions
//	    <outputs>                     the sinks' output (relative paths)
//	    <inputs> -> <base>/<inputs>   links to the spec's relative inputs
//
// so relative output paths of the spec land in the case's directory while
// relative input paths still find their data. A failing case is kept, with
// a repro.sh that replays it with the jobevent command; passing cases are
// deleted as soon as they are judged.
//
// # Determinism
//
// Every run is seeded (runtime.Options.Seeded) and the drill sets
// write-buffer-flush-interval to an hour, so that no flush depends on the
// wall clock: the same spec and seed give the same crash points and the
// same result table, apart from the timing fields, and a case fails when
// its crashed run is not the clean run up to the crash point. One thing
// of the embedded runtime is not reproducible yet: where the asynchronous
// flush at the end of a vertex cuts a segment, which moves what a torn
// tail loses; the torn-tail cases may differ between two drills. Each
// names the segment it tore, and a failing case keeps its log.
package drill
