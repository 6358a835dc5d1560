package flink

import (
	"fmt"
	"io"
	"net/netip"
	"sort"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// The job shapes beyond a linear chain, on logs built record by record as
// Flink writes them (the decoded form of each record):
//
//   - type 3, ExecutionJobVertexInitializedEvent, from
//     AdaptiveBatchScheduler.initializeJobVertex: the parallelism, and per
//     consumed IntermediateDataSetID the partition range each consumer
//     subtask reads (1.20: VertexInputInfoComputationUtils, uniform
//     [j*m/n, (j+1)*m/n) pointwise, [0, m-1] all-to-all; 2.x:
//     PointwiseVertexInputInfoComputer balances pointwise ranges by bytes);
//   - type 1, ExecutionVertexFinishedEvent, from
//     DefaultBatchJobRecoveryHandler.onExecutionFinished: the attempt id
//     (ExecutionGraphID, vertex, subtask, attempt number), the
//     TaskManager, no partition bytes (Execution.updateAccumulatorsAndMetrics
//     drops IOMetrics#resultPartitionBytes before the store serializes
//     them), and a snapshot point when its vertex finished or the
//     snapshot min-pause had passed;
//   - type 2, ExecutionVertexResetEvent, from
//     AdaptiveBatchScheduler.resetForNewExecutions (a failover's resets).
//
// One IntermediateDataSet serves every out-edge of a vertex with an equal
// partitioner and consumer parallelism
// (StreamingJobGraphGenerator.createOrReuseOutput); 1.20 draws dataset ids
// at random, 2.x derives them from the producer's JobVertexID
// (FLINK-36850: lower = producer.upper + e, upper = producer.lower + e).
// Each test states what Flink's recovering JobMaster does by the steps of
// DefaultBatchJobRecoveryHandler (docs/flink.md; the notes' section 7.3).

// flinkLog builds the records of one job-events directory.
type flinkLog struct {
	recs  []*Record
	file  string
	graph ID // the current JobMaster's ExecutionGraphID
	jms   int
}

func newFlinkLog() *flinkLog {
	l := &flinkLog{}
	l.newJobMaster()
	return l
}

// newJobMaster starts the files of a new JobMaster incarnation.
func (l *flinkLog) newJobMaster() {
	l.file = fmt.Sprintf("events.%d", l.jms)
	l.jms++
	l.graph = ID{Lower: int64(0x1000 + l.jms), Upper: 0x77}
}

func (l *flinkLog) add(e Event) {
	l.recs = append(l.recs, &Record{Seq: int64(len(l.recs) + 1), File: l.file, Offset: int64(len(l.recs)) * 100, Type: e.RecordType(), Event: e})
}

// init writes a type 3 record of vertex v with its inputs.
func (l *flinkLog) init(v ID, parallelism int32, inputs ...VertexInput) {
	l.add(&JobVertexInitialized{JobVertexID: v, Parallelism: parallelism, Inputs: inputs})
}

// finish writes a type 1 record of attempt of subtask i of v, run on tm;
// snapshot marks a snapshot point (with the coordinator state of the
// vertices in coords).
func (l *flinkLog) finish(v ID, i, attempt int32, tm string, snapshot bool, coords ...ID) {
	f := &VertexFinished{
		AttemptID: ExecutionAttemptID{ExecutionGraphID: l.graph, Vertex: ExecutionVertexID{JobVertexID: v, SubtaskIndex: i}, AttemptNumber: attempt},
		Location:  TaskManagerLocation{ResourceID: tm, Addr: netip.MustParseAddr("127.0.0.1"), DataPort: 1},
		IOMetrics: IOMetrics{NumRecordsOut: 10, NumBytesOut: 100},
	}
	if snapshot {
		f.SnapshotPoint = true
		f.ShuffleMasterSnapshotClass = "org.apache.flink.runtime.shuffle.EmptyShuffleMasterSnapshot"
		for _, c := range coords {
			f.CoordinatorSnapshots = append(f.CoordinatorSnapshots, CoordinatorSnapshot{OperatorID: c, State: []byte{1}})
		}
	}
	l.add(f)
}

// reset writes a type 2 record.
func (l *flinkLog) reset(v ID, subtasks ...int32) {
	r := &VertexReset{}
	for _, i := range subtasks {
		r.Vertices = append(r.Vertices, ExecutionVertexID{JobVertexID: v, SubtaskIndex: i})
	}
	l.add(r)
}

// sliceRecords reads records from a slice (a recordReader).
type sliceRecords struct{ recs []*Record }

func (s *sliceRecords) Next() (*Record, error) {
	if len(s.recs) == 0 {
		return nil, io.EOF
	}
	r := s.recs[0]
	s.recs = s.recs[1:]
	return r, nil
}
func (s *sliceRecords) Warnings() []Warning { return nil }
func (s *sliceRecords) Close() error        { return nil }

func (l *flinkLog) open(t *testing.T, opts Options) *Log {
	t.Helper()
	log, err := open(func() (recordReader, error) { return &sliceRecords{l.recs}, nil }, opts)
	if err != nil {
		t.Fatal(err)
	}
	return log
}

// allToAll is the input info of a consumer of n subtasks that reads every
// one of m partitions (1.20 and 2.x: IndexRange [0, m-1] for each).
func allToAll(ds ID, m, n int32) VertexInput {
	in := VertexInput{DataSetID: ds}
	for j := int32(0); j < n; j++ {
		in.Subtasks = append(in.Subtasks, SubtaskInput{SubtaskIndex: j, Groups: []ConsumedGroup{{
			Partitions: IndexRange{0, m - 1}, Subpartitions: IndexRange{j, j}}}})
	}
	return in
}

// pointwise is 1.20's uniform pointwise input info
// (VertexInputInfoComputationUtils.computeVertexInputInfoForPointwise), for
// m >= n: consumer j reads [j*m/n, (j+1)*m/n - 1].
func pointwise(ds ID, m, n int32) VertexInput {
	in := VertexInput{DataSetID: ds}
	for j := int32(0); j < n; j++ {
		in.Subtasks = append(in.Subtasks, SubtaskInput{SubtaskIndex: j, Groups: []ConsumedGroup{{
			Partitions: IndexRange{j * m / n, (j+1)*m/n - 1}, Subpartitions: IndexRange{0, 0}}}})
	}
	return in
}

// vid makes a JobVertexID, did a 1.20 (random) IntermediateDataSetID.
func vid(n int64) ID { return ID{Lower: n * 0x0101010101, Upper: -n * 0x7f7f7f7f7f} }
func did(n int64) ID { return ID{Lower: n*0x5bd1e995 + 0x3c6ef372, Upper: n * 0x27d4eb2f165667c5} }

// derived is 2.x's IntermediateDataSetID of an out-edge of producer whose
// edge id hashes to e.
func derived(producer ID, e int32) ID {
	return ID{Lower: producer.Upper + int64(e), Upper: producer.Lower + int64(e)}
}

// planOf returns a REST plan: nodes with their parallelism and, for each,
// its inputs as (producer, ship strategy) pairs.
func planOf(nodes ...PlanNode) *JobPlan {
	return &JobPlan{JobID: strings.Repeat("ab", 16), Nodes: nodes}
}

func node(v ID, p int32, inputs ...PlanInput) PlanNode {
	return PlanNode{ID: v.String(), Parallelism: p, Description: "v" + v.String()[:4], Inputs: inputs}
}

func input(producer ID, ship string) PlanInput {
	return PlanInput{ID: producer.String(), ShipStrategy: ship, Exchange: "blocking"}
}

// dryRun folds the log, plans it with the Flink profile and the
// TaskManagers in lost gone, and returns each subtask's "keep N" or
// "rerun N" (N the attempt; run and rerun are both a deployment in
// Flink) by "vertex/subtask".
func dryRun(t *testing.T, log *Log, lost ...string) map[string]string {
	t.Helper()
	src, err := log.Events()
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	s, err := replay.Fold(src, 0)
	if err != nil || s.Skipped() > 0 {
		t.Fatalf("fold: %v, skipped %v", err, s.SkipErrors())
	}
	s.SetProfile(replay.ProfileFlink)
	plan, err := replay.PlanDryRun(s, replay.AvailabilityOptions{LostWorkers: lost}, replay.PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, st := range plan.Subtasks {
		d := "keep"
		if st.Decision != replay.DecisionKeep {
			d = "rerun"
		}
		got[fmt.Sprintf("%s/%d", st.Vertex, st.Subtask)] = fmt.Sprintf("%s %d", d, st.Attempt)
	}
	return got
}

// expect compares got with want, "vertex/subtask" -> "keep N" or "rerun N".
func expect(t *testing.T, got map[string]string, want map[string]string) {
	t.Helper()
	var diffs []string
	for k, w := range want {
		if got[k] != w {
			diffs = append(diffs, fmt.Sprintf("%s: predicted %q, Flink %q", k, got[k], w))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: predicted %q, not expected", k, got[k]))
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Fatalf("the dry run differs from Flink:\n  %s", strings.Join(diffs, "\n  "))
	}
}

// each returns want entries "v/i" -> d for subtasks i of v.
func each(want map[string]string, v ID, d string, subtasks ...int32) {
	for _, i := range subtasks {
		want[fmt.Sprintf("%s/%d", v.String(), i)] = d
	}
}

// validateErrors returns the error findings of validate's Flink profile
// (the rules of the event model that apply to a Flink log).
func validateErrors(t *testing.T, log *Log) []string {
	t.Helper()
	src, err := log.Events()
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	skipped := map[string]bool{replay.RuleFinishWithoutStart: true, replay.RuleAttemptOverlap: true, replay.RuleSnapshotCoordinator: true}
	var out []string
	for _, f := range replay.Validate(src, replay.ValidateOptions{}) {
		if f.Severity == replay.SeverityError && !skipped[f.Rule] {
			out = append(out, f.String())
		}
	}
	return out
}

// TestShape_DatasetReadByTwoVertices: src(2) -forward-> a(2) and
// -forward-> b(2) through one dataset (equal partitioner and consumer
// parallelism: createOrReuseOutput). src 0, 1 and b 1 finish at snapshot
// points; a 0 finishes after the last one (min-pause), so recovery trims
// it. Partition src 0 is read by a 0 and by b 0, which had not finished:
// Flink had not released it (IntermediateResultPartition.canBeReleased
// wants every ConsumedPartitionGroup holding it consumed) and reserves it
// now, so src 0 is kept; a 0 runs again as a fresh attempt 0.
func TestShape_DatasetReadByTwoVertices(t *testing.T) {
	src, a, b, d := vid(1), vid(2), vid(3), did(1)
	l := newFlinkLog()
	l.init(src, 2)
	l.init(a, 2, pointwise(d, 2, 2))
	l.init(b, 2, pointwise(d, 2, 2))
	l.finish(src, 0, 0, "tm1", true, src)
	l.finish(src, 1, 0, "tm2", true, src)
	l.finish(b, 1, 0, "tm2", true)
	l.finish(a, 0, 0, "tm1", false)
	plan := planOf(node(src, 2), node(a, 2, input(src, "FORWARD")), node(b, 2, input(src, "FORWARD")))
	log := l.open(t, Options{Plan: plan})
	want := map[string]string{}
	each(want, src, "keep 0", 0, 1)
	each(want, a, "rerun 0", 0)
	each(want, a, "rerun 0", 1) // never ran: attempt 0
	each(want, b, "rerun 0", 0)
	each(want, b, "keep 0", 1)
	expect(t, dryRun(t, log), want)
	if errs := validateErrors(t, log); len(errs) > 0 {
		t.Fatalf("validate: %q", errs)
	}
	// Losing tm1 loses partition src 0, which a 0 and b 0 still need.
	want = map[string]string{}
	each(want, src, "rerun 1", 0)
	each(want, src, "keep 0", 1)
	each(want, a, "rerun 0", 0, 1)
	each(want, b, "rerun 0", 0)
	each(want, b, "keep 0", 1)
	expect(t, dryRun(t, log, "tm1"), want)
}

// TestShape_TwoDatasetsBetweenTwoVertices: a union of src(2) with itself
// over two partitioners (forward and rebalance) gives u(2) two datasets:
// one pointwise, one all-to-all. src 0, 1 and u 0 finish at snapshot
// points, u 1 after the last one (trimmed). When u 1 finished, every
// consumer of both datasets had finished, so Flink released all of
// src's partitions; recovery reserves them for u 1, finds them missing
// and resets src 0 and 1, whose closure takes u 0 too: everything runs,
// the reset subtasks as attempt 1. validate finds no error in the graph.
func TestShape_TwoDatasetsBetweenTwoVertices(t *testing.T) {
	src, u, d1, d2 := vid(1), vid(2), did(1), did(2)
	l := newFlinkLog()
	l.init(src, 2)
	l.init(u, 2, pointwise(d1, 2, 2), allToAll(d2, 2, 2))
	l.finish(src, 0, 0, "tm1", true, src)
	l.finish(src, 1, 0, "tm2", true, src)
	l.finish(u, 0, 0, "tm1", true)
	l.finish(u, 1, 0, "tm2", false)
	plan := planOf(node(src, 2), node(u, 2, input(src, "FORWARD"), input(src, "REBALANCE")))
	log := l.open(t, Options{Plan: plan})
	if n := len(log.Graph().Edges); n != 2 {
		t.Fatalf("edges = %d, want 2 (one per dataset)", n)
	}
	want := map[string]string{}
	each(want, src, "rerun 1", 0, 1)
	each(want, u, "rerun 1", 0)
	each(want, u, "rerun 0", 1)
	expect(t, dryRun(t, log), want)
	if errs := validateErrors(t, log); len(errs) > 0 {
		t.Fatalf("validate: %q", errs)
	}
	if notes := strings.Join(log.Notes(), "\n"); strings.Contains(notes, "give --flink-plan") {
		t.Fatalf("notes ask for the plan it was given:\n%s", notes)
	}
}

// TestShape_BalancedPointwiseRanges: Flink 2.x decided m(4) over src(4)
// and balanced the pointwise ranges by bytes
// (PointwiseVertexInputInfoComputer): m 0 reads src 0-1, m 1 and m 2 both
// read src 2 (each a part of its subpartitions), m 3 reads src 3 (the
// ranges of the real 2.3.0 auto-parallelism run). Every src and m 1-3
// finished; the TaskManager of src 1 is lost. Partition src 1 is reserved
// for m 0 alone: src 1 reruns (attempt 1) and nothing else is reset. The
// dataset id is derived from src's id, so no plan is needed.
func TestShape_BalancedPointwiseRanges(t *testing.T) {
	src, m := vid(1), vid(2)
	d := derived(src, 0x1234567)
	in := VertexInput{DataSetID: d, Subtasks: []SubtaskInput{
		{SubtaskIndex: 0, Groups: []ConsumedGroup{{Partitions: IndexRange{0, 1}, Subpartitions: IndexRange{0, 0}}}},
		{SubtaskIndex: 1, Groups: []ConsumedGroup{{Partitions: IndexRange{2, 2}, Subpartitions: IndexRange{0, 0}}}},
		{SubtaskIndex: 2, Groups: []ConsumedGroup{{Partitions: IndexRange{2, 2}, Subpartitions: IndexRange{1, 1}}}},
		{SubtaskIndex: 3, Groups: []ConsumedGroup{{Partitions: IndexRange{3, 3}, Subpartitions: IndexRange{0, 0}}}},
	}}
	l := newFlinkLog()
	l.init(src, 4)
	for i := int32(0); i < 4; i++ {
		l.finish(src, i, 0, fmt.Sprintf("tm%d", i), true, src)
	}
	l.init(m, 4, in)
	for i := int32(1); i < 4; i++ {
		l.finish(m, i, 0, fmt.Sprintf("tm%d", i), true)
	}
	log := l.open(t, Options{})
	for _, n := range log.Notes() {
		if strings.Contains(n, "dataset") {
			t.Fatalf("note %q", n)
		}
	}
	want := map[string]string{}
	each(want, src, "keep 0", 0, 2, 3)
	each(want, src, "rerun 1", 1)
	each(want, m, "rerun 0", 0)
	each(want, m, "keep 0", 1, 2, 3)
	expect(t, dryRun(t, log, "tm1"), want)
	if errs := validateErrors(t, log); len(errs) > 0 {
		t.Fatalf("validate: %q", errs)
	}
}

// TestShape_Attempts: attempt numbers as the new JobMaster deploys them.
// Its ExecutionVertices start with attempt counter 0, and
// Execution.recoverExecution swaps a recorded attempt id into a FINISHED
// one without advancing it: a kept subtask reports the attempt it
// finished with, a reset one runs attempt 1, whatever attempt it finished
// with.
//
// src(2) -rebalance-> a(2) -hash-> sink(2): a 1 failed, was reset (type
// 2) and finished as attempt 1 on tm2; a 0 finished on tm1; sink had not
// started. Kept, a 1 reports attempt 1. With tm2 lost, a 1's partition,
// reserved for sink, is missing: a 1 is reset and runs attempt 1 (not 2).
// Its closure (getTasksNeedingRestart) reaches src's partitions, which
// nothing reserved (both consumers had finished; Flink released them), so
// src 0 and 1 are reset too, and a 0 with them: all run attempt 1; sink,
// never deployed, attempt 0.
func TestShape_Attempts(t *testing.T) {
	src, a, sink, d1, d2 := vid(1), vid(2), vid(3), did(1), did(2)
	l := newFlinkLog()
	l.init(src, 2)
	l.init(a, 2, allToAll(d1, 2, 2))
	l.init(sink, 2, allToAll(d2, 2, 2))
	l.finish(src, 0, 0, "tm1", true, src)
	l.finish(src, 1, 0, "tm1", true, src)
	l.reset(a, 1)
	l.finish(a, 0, 0, "tm1", true)
	l.finish(a, 1, 1, "tm2", true)
	plan := planOf(node(src, 2), node(a, 2, input(src, "REBALANCE")), node(sink, 2, input(a, "HASH")))
	log := l.open(t, Options{Plan: plan})
	want := map[string]string{}
	each(want, src, "keep 0", 0, 1)
	each(want, a, "keep 0", 0)
	each(want, a, "keep 1", 1)
	each(want, sink, "rerun 0", 0, 1)
	expect(t, dryRun(t, log), want)
	each(want, src, "rerun 1", 0, 1)
	each(want, a, "rerun 1", 0, 1)
	expect(t, dryRun(t, log, "tm2"), want)
}

// TestShape_AttemptsCancelledSource: src(3) has a batch-snapshot
// coordinator; src 0 and 1 finished, src 2 was running, and a (decided
// at run time) is not initialized. Recovery restores the coordinator and
// cancels, then resets, src 2: it runs attempt 1. Kept subtasks report
// their attempt.
func TestShape_AttemptsCancelledSource(t *testing.T) {
	src, a := vid(1), vid(2)
	l := newFlinkLog()
	l.init(src, 3)
	l.finish(src, 0, 0, "tm1", true, src)
	l.finish(src, 1, 0, "tm2", true, src)
	plan := planOf(node(src, 3), node(a, 2, input(src, "HASH")))
	log := l.open(t, Options{Plan: plan, Coordinators: map[string]string{src.String(): format.CoordinatorBatchSnapshot}})
	want := map[string]string{}
	each(want, src, "keep 0", 0, 1)
	each(want, src, "rerun 1", 2)
	expect(t, dryRun(t, log), want)
	// tm2 lost: src 1's partition is reserved for a, not initialized.
	each(want, src, "rerun 1", 1)
	expect(t, dryRun(t, log, "tm2"), want)
}

// TestShape_ProducerWithoutPartitionSizes: real Flink writes no partition
// sizes, and 1.20's dataset ids are random, so among vertices of equal
// parallelism a dataset's producer is known only from the plan: without
// it the edge is left out, with a note asking for the plan; with it the
// edge is there and recovery exact. 1.20 gives one dataset to both inputs
// of j (a self-join of src over one partitioner): the plan's two inputs
// name src twice, and the note does not ask for the plan it was given.
func TestShape_ProducerWithoutPartitionSizes(t *testing.T) {
	src, a, j, d1, d2 := vid(1), vid(2), vid(3), did(1), did(2)
	l := newFlinkLog()
	l.init(src, 2)
	l.init(a, 2, allToAll(d1, 2, 2))
	l.init(j, 2, allToAll(d2, 2, 2))
	l.finish(src, 0, 0, "tm1", true, src)
	l.finish(src, 1, 0, "tm2", true, src)
	l.finish(a, 0, 0, "tm1", true)
	bare := l.open(t, Options{})
	if n := len(bare.Graph().Edges); n != 0 {
		t.Fatalf("without a plan: %d edges, want none (src and j both fit a's input)", n)
	}
	if notes := strings.Join(bare.Notes(), "\n"); !strings.Contains(notes, "is unknown (give --flink-plan)") {
		t.Fatalf("notes:\n%s", notes)
	}
	plan := planOf(node(src, 2), node(a, 2, input(src, "HASH")), node(j, 2, input(a, "HASH"), input(a, "HASH")))
	log := l.open(t, Options{Plan: plan})
	if n := len(log.Graph().Edges); n != 2 {
		t.Fatalf("with the plan: %d edges, want 2", n)
	}
	if notes := strings.Join(log.Notes(), "\n"); strings.Contains(notes, "dataset") {
		t.Fatalf("notes with the plan:\n%s", notes)
	}
	// tm1 lost: src 0's partition, still needed by a 1, and a 0's,
	// needed by j.
	want := map[string]string{}
	each(want, src, "rerun 1", 0)
	each(want, src, "keep 0", 1)
	each(want, a, "rerun 1", 0)
	each(want, a, "rerun 0", 1)
	each(want, j, "rerun 0", 0, 1)
	expect(t, dryRun(t, log, "tm1"), want)
}

// TestShape_PartitionSizesConsumerNotInitialized: a (synthetic) log whose
// finishes carry partition sizes names src's dataset, which no initialized
// vertex reads: its consumer is not initialized, so Flink reserves the
// partitions, and losing the TaskManager of src 0 reruns it, with no plan
// given.
func TestShape_PartitionSizesConsumerNotInitialized(t *testing.T) {
	src, d := vid(1), did(1)
	l := newFlinkLog()
	l.init(src, 2)
	for i := int32(0); i < 2; i++ {
		l.finish(src, i, 0, fmt.Sprintf("tm%d", i), true, src)
		f := l.recs[len(l.recs)-1].Event.(*VertexFinished)
		f.IOMetrics.ResultPartitionBytes = []PartitionBytes{{Partition: PartitionID{DataSetID: d, PartitionNum: i}, SubpartitionBytes: []int64{50, 50}}}
	}
	log := l.open(t, Options{})
	want := map[string]string{}
	each(want, src, "rerun 1", 0)
	each(want, src, "keep 0", 1)
	expect(t, dryRun(t, log, "tm0"), want)
}

// TestShape_JoinProducers: j(2) joins s1(2) and s2(2) (two datasets of
// random 1.20 ids; parallelism cannot tell them apart). k(2) also reads
// s1's dataset, and the plan names k's one input: so that dataset is
// s1's, and the other, by elimination, s2's, with nothing assumed.
// Without k the plan's input order decides, as an assumption.
func TestShape_JoinProducers(t *testing.T) {
	s1, s2, j, k, d1, d2 := vid(1), vid(2), vid(3), vid(4), did(1), did(2)
	build := func(withK bool) *Log {
		l := newFlinkLog()
		l.init(s1, 2)
		l.init(s2, 2)
		l.init(j, 2, allToAll(d2, 2, 2), allToAll(d1, 2, 2)) // a HashMap's order
		nodes := []PlanNode{node(s1, 2), node(s2, 2), node(j, 2, input(s1, "HASH"), input(s2, "HASH"))}
		if withK {
			l.init(k, 2, allToAll(d1, 2, 2))
			nodes = append(nodes, node(k, 2, input(s1, "HASH")))
		}
		return l.open(t, Options{Plan: planOf(nodes...)})
	}
	log := build(true)
	got := map[string]string{}
	for _, e := range log.Graph().Edges {
		got[e.Dataset+">"+e.To] = e.From
	}
	if got[d1.String()+">"+j.String()] != s1.String() || got[d2.String()+">"+j.String()] != s2.String() || got[d1.String()+">"+k.String()] != s1.String() {
		t.Fatalf("edges = %v", got)
	}
	if len(log.Notes()) > 1 { // the coordinator kinds
		t.Fatalf("notes = %q", log.Notes())
	}
	log = build(false)
	seen := map[string]bool{}
	for _, e := range log.Graph().Edges {
		seen[e.From] = true
	}
	if len(seen) != 2 || !strings.Contains(strings.Join(log.Notes(), "\n"), "by the order of the plan's inputs") {
		t.Fatalf("edges %+v, notes %q", log.Graph().Edges, log.Notes())
	}
}
