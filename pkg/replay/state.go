package replay

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/jobevent/jobevent/pkg/format"
)

// Errors of Apply, wrapped in an *ApplyError. An event Apply cannot apply
// is skipped: the state is left as it was, except that the event counts
// towards LastSeq.
var (
	// ErrNoGraph reports an event naming a vertex before job_submitted.
	ErrNoGraph = errors.New("jobevent/replay: no job_submitted before this event")
	// ErrResubmitted reports a second job_submitted.
	ErrResubmitted = errors.New("jobevent/replay: job_submitted again")
	// ErrUnknownVertex reports a vertex id that is not in the graph.
	ErrUnknownVertex = errors.New("jobevent/replay: unknown vertex")
	// ErrNotInitialized reports a subtask event of a vertex that has no
	// vertex_initialized yet.
	ErrNotInitialized = errors.New("jobevent/replay: vertex not initialized")
	// ErrReinitialized reports a second vertex_initialized of a vertex:
	// parallelism is never recomputed.
	ErrReinitialized = errors.New("jobevent/replay: vertex initialized again")
	// ErrBadParallelism reports a vertex_initialized parallelism below 1,
	// above MaxParallelism, or past MaxSubtasks for the job.
	ErrBadParallelism = errors.New("jobevent/replay: parallelism out of range")
	// ErrSubtaskRange reports a subtask number outside [0, parallelism).
	ErrSubtaskRange = errors.New("jobevent/replay: subtask out of range")
	// ErrBadAttempt reports a negative attempt number.
	ErrBadAttempt = errors.New("jobevent/replay: negative attempt")
	// ErrUnknownKind reports an event kind that is not one of the nine.
	ErrUnknownKind = errors.New("jobevent/replay: unknown event kind")
)

// ApplyError reports an event that Apply skipped, or (for subtasks_reset)
// applied only in part.
type ApplyError struct {
	Seq  int64
	Kind format.Kind
	Err  error
}

// Error reads like `seq 7 subtask_started: vertex "x": jobevent/replay: unknown vertex`.
func (e *ApplyError) Error() string {
	return fmt.Sprintf("seq %d %s: %v", e.Seq, e.Kind, e.Err)
}

// Unwrap returns the underlying error.
func (e *ApplyError) Unwrap() error { return e.Err }

// maxSkipErrors is how many skip errors a State keeps.
const maxSkipErrors = 16

// Subtask status of the last attempt.
const (
	stNone     uint8 = iota // never started
	stRunning               // last attempt started, not ended
	stFinished              // last attempt finished
	stFailed                // last attempt failed
	stReset                 // reset since its last attempt ended
)

// State is the state of a job folded from its log: what a recovering
// master knows (step 1 of the recovery rule, docs/recovery.md) and what
// Diff compares. Its memory is proportional to the job (vertices, subtasks,
// partitions of the finished attempts, the last coordinator state of each
// vertex), never to the log.
//
// A State is built by Apply, one event at a time in log order, or by
// Fold. It is not safe for concurrent use; Plan and the accessors only
// read it, so they may be called between two Applys.
type State struct {
	job    string
	graph  *format.Graph // as submitted (a deep copy); nil before job_submitted
	topo   *topology
	vs     []vertexState // by topology position
	sub    []subtask     // dense: vs[v].base + subtask number
	status string        // of job_finished; empty while the job runs
	errMsg string        // of job_finished

	workers   []string
	workerIdx map[string]int32
	// listed holds, by dense subtask index, the partitions of the finished
	// entries whose subtask_finished listed them other than as the absent
	// form says (recordParts); the entries of the others are absent. A
	// list is replaced, never modified in place, so plans may share it.
	// Keeping them out of subtask leaves sub free of pointers.
	listed map[int32][]partRec

	lastSeq     int64
	epoch       int32
	master      string
	events      int64
	fenced      int64
	snapshotSeq int64
	finishSeq   int64 // seq of job_finished
	// lastFin is the subtask and seq of the last subtask_finished
	// applied, so that a snapshot right after it marks it a snapshot
	// point; lastFin.x is -1 before any.
	lastFin struct {
		x   int32
		seq int64
	}
	profile    Profile
	profileSet bool // SetProfile was called: the masters do not choose

	recent [2]recentVertex // of vertexOf, the latest first

	skipped  int64
	skipErrs []error
}

// vertexState is the folded state of one vertex.
type vertexState struct {
	parallelism int32 // 0 while not initialized
	base        int32 // first dense subtask index
	initSeq     int64
	coord       []byte // coordinator state of the last snapshot naming it
	coordSeq    int64  // seq of that snapshot
	finished    int32  // subtasks in the finished map
}

// subtask is the folded state of one subtask. It holds no pointer, so
// that the collector does not scan a job's subtasks.
type subtask struct {
	vertex      int32
	lastAttempt int32 // highest attempt seen; -1: none

	// The finished entry: finSeq > 0 while the subtask is in the finished
	// map. Its partitions are in State.listed, or absent there for "one
	// partition per out-edge on worker".
	finAttempt int32
	worker     int32 // index into State.workers

	status uint8
	// finSnap reports whether a snapshot event came right after the
	// latest subtask_finished of the entry: a snapshot point, as Flink's
	// finished records carry one.
	finSnap bool

	finSeq   int64 // seq of the latest subtask_finished of the entry
	pos      int64 // position in the finished map: seq of insertion
	recIn    int64
	recOut   int64
	bytesIn  int64
	bytesOut int64
}

// partRec is one recorded partition of a finished attempt.
type partRec struct {
	consumer int32 // topology position of the consumer vertex
	bytes    int64
	records  int64
}

// FoldFields are the event fields Apply reads: a source that decodes only
// these (blob.ReaderOptions.Fields) folds to the same State. The time,
// master_started's recovering flag and a reset's reason are not read.
const FoldFields = format.AllFields &^ (format.FieldTime | format.FieldRecovering | format.FieldReason)

// NewState returns the state of an empty log.
func NewState() *State {
	s := &State{topo: newTopology(nil), workerIdx: make(map[string]int32)}
	s.lastFin.x = -1
	return s
}

// Apply folds one event into the state. Events of an epoch lower than the
// highest epoch seen are writes of a fenced master: they are counted
// (Fenced) and otherwise ignored, and Apply returns nil.
//
// Apply never panics. An event it cannot apply — a vertex that is not in
// the graph, a subtask out of range or of a vertex not yet initialized, a
// second job_submitted or vertex_initialized, a parallelism out of range,
// an unknown kind — is skipped and Apply returns an *ApplyError; Fold goes
// on past it, and Validate reports it as a finding. A subtasks_reset is
// applied to the subtasks it names that exist.
func (s *State) Apply(e *format.Event) error {
	if e.Epoch < s.epoch {
		s.fenced++
		return nil
	}
	s.epoch = e.Epoch
	s.lastSeq = e.Seq
	s.events++
	err := s.apply(e)
	if err != nil {
		s.skipped++
		if len(s.skipErrs) < maxSkipErrors {
			s.skipErrs = append(s.skipErrs, err)
		}
	}
	return err
}

func (s *State) apply(e *format.Event) error {
	switch e.Kind {
	case format.KindJobSubmitted:
		return s.applySubmitted(e)
	case format.KindMasterStarted:
		s.master = e.Master
		if !s.profileSet && format.IsFlinkMaster(e.Master) {
			// The log carries its rule: a log of Flink's JobMasters (read
			// from job-events, or imported from them) is planned as
			// Flink's recovery plans it.
			s.profile = ProfileFlink
		}
		if s.job == "" {
			s.job = e.Job
		}
	case format.KindVertexInitialized:
		return s.applyInitialized(e)
	case format.KindSubtaskStarted, format.KindSubtaskFinished, format.KindSubtaskFailed:
		return s.applyAttempt(e)
	case format.KindSubtasksReset:
		return s.applyReset(e)
	case format.KindSnapshot:
		s.applySnapshot(e)
	case format.KindJobFinished:
		s.status, s.errMsg, s.finishSeq = e.Status, e.Error, e.Seq
	default:
		return s.fail(e, fmt.Errorf("%q: %w", e.Kind, ErrUnknownKind))
	}
	return nil
}

func (s *State) fail(e *format.Event, err error) error {
	return &ApplyError{Seq: e.Seq, Kind: e.Kind, Err: err}
}

func (s *State) applySubmitted(e *format.Event) error {
	if s.graph != nil {
		return s.fail(e, ErrResubmitted)
	}
	s.job = e.Job
	s.graph = copyGraph(e.Graph)
	s.topo = newTopology(s.graph)
	s.vs = make([]vertexState, len(s.topo.ids))
	return nil
}

func copyGraph(g *format.Graph) *format.Graph {
	c := &format.Graph{}
	if g != nil {
		c.Vertices = append([]format.Vertex(nil), g.Vertices...)
		c.Edges = append([]format.Edge(nil), g.Edges...)
		c.Ranges = append([]format.Range(nil), g.Ranges...)
		c.Datasets = append([]format.Dataset(nil), g.Datasets...)
	}
	return c
}

// vertexOf resolves the vertex of e.
func (s *State) vertexOf(e *format.Event, id string) (int32, error) {
	if s.graph == nil {
		return -1, s.fail(e, ErrNoGraph)
	}
	for _, c := range s.recent {
		if c.id == id && c.ok {
			return c.v, nil
		}
	}
	v := s.topo.vertex(id)
	if v < 0 {
		return -1, s.fail(e, fmt.Errorf("vertex %q: %w", id, ErrUnknownVertex))
	}
	s.recent[1], s.recent[0] = s.recent[0], recentVertex{id: id, v: v, ok: true}
	return v, nil
}

// recentVertex is a vertex id that vertexOf resolved lately, and its
// position: consecutive events mostly name one of two vertices, which a
// comparison of strings finds faster than a map.
type recentVertex struct {
	id string
	v  int32
	ok bool
}

func (s *State) applyInitialized(e *format.Event) error {
	v, err := s.vertexOf(e, e.Vertex)
	if err != nil {
		return err
	}
	vs := &s.vs[v]
	switch {
	case vs.parallelism > 0:
		return s.fail(e, fmt.Errorf("vertex %q (parallelism %d since seq %d): %w", e.Vertex, vs.parallelism, vs.initSeq, ErrReinitialized))
	case e.Parallelism < 1 || e.Parallelism > MaxParallelism || int64(len(s.sub))+int64(e.Parallelism) > MaxSubtasks:
		return s.fail(e, fmt.Errorf("vertex %q parallelism %d: %w", e.Vertex, e.Parallelism, ErrBadParallelism))
	}
	vs.parallelism, vs.base, vs.initSeq = e.Parallelism, int32(len(s.sub)), e.Seq
	s.growSubtasks(int(e.Parallelism))
	for i := int32(0); i < e.Parallelism; i++ {
		s.sub = append(s.sub, subtask{vertex: v, lastAttempt: -1, worker: -1})
	}
	return nil
}

// growSubtasks makes room in s.sub for n more subtasks, and when it must
// grow, for the subtasks the graph declares for the vertices not yet
// initialized as well (a hint: auto parallelism declares none, and the
// total stays within MaxSubtasks), so that a job's subtasks are allocated
// once or a few times rather than grown one at a time.
func (s *State) growSubtasks(n int) {
	need := len(s.sub) + n
	if need <= cap(s.sub) {
		return
	}
	want := need
	for u, c := range s.topo.conf {
		if s.vs[u].parallelism == 0 && c.Parallelism > 0 {
			want += int(min(c.Parallelism, MaxParallelism))
		}
	}
	want = max(min(max(want, cap(s.sub)+cap(s.sub)/2), MaxSubtasks), need)
	grown := make([]subtask, len(s.sub), want)
	copy(grown, s.sub)
	s.sub = grown
}

// prefetch reads, ahead of Apply, the subtasks that the subtask events of
// batch name, in a short loop whose memory reads the processor overlaps:
// a job's subtasks are an array of tens of MB that a log visits in no
// particular order, and Apply, one event at a time, would wait for each
// of them in turn. It changes nothing; it returns a sum of what it read,
// which FoldBatches ignores, so that the reads are not optimised away.
func (s *State) prefetch(batch []format.Event) (sum int64) {
	var xs [256]int32
	n := 0
	id, v := "", int32(-1)
	for i := range batch {
		e := &batch[i]
		switch e.Kind {
		case format.KindSubtaskStarted, format.KindSubtaskFinished, format.KindSubtaskFailed:
		default:
			continue
		}
		if e.Vertex != id || v < 0 {
			id, v = e.Vertex, s.topo.vertex(e.Vertex)
			if v < 0 || v >= int32(len(s.vs)) {
				v = -1
				continue
			}
		}
		if vs := &s.vs[v]; e.Subtask >= 0 && e.Subtask < vs.parallelism {
			xs[n] = vs.base + e.Subtask
			if n++; n == len(xs) {
				sum += s.touch(xs[:n])
				n = 0
			}
		}
	}
	return sum + s.touch(xs[:n])
}

// touch reads the subtasks xs, both cache lines of each.
func (s *State) touch(xs []int32) (sum int64) {
	for _, x := range xs {
		st := &s.sub[x]
		sum += int64(st.lastAttempt) + st.bytesOut
	}
	return sum
}

// subtaskOf resolves vertex/subtask to a dense index.
func (s *State) subtaskOf(e *format.Event, id string, i int32) (int32, error) {
	v, err := s.vertexOf(e, id)
	if err != nil {
		return -1, err
	}
	vs := &s.vs[v]
	if vs.parallelism == 0 {
		return -1, s.fail(e, fmt.Errorf("vertex %q: %w", id, ErrNotInitialized))
	}
	if i < 0 || i >= vs.parallelism {
		return -1, s.fail(e, fmt.Errorf("subtask %s/%d of parallelism %d: %w", id, i, vs.parallelism, ErrSubtaskRange))
	}
	return vs.base + i, nil
}

func (s *State) applyAttempt(e *format.Event) error {
	x, err := s.subtaskOf(e, e.Vertex, e.Subtask)
	if err != nil {
		return err
	}
	if e.Attempt < 0 {
		return s.fail(e, fmt.Errorf("subtask %s/%d attempt %d: %w", e.Vertex, e.Subtask, e.Attempt, ErrBadAttempt))
	}
	st := &s.sub[x]
	if e.Attempt > st.lastAttempt {
		st.lastAttempt = e.Attempt
	}
	switch e.Kind {
	case format.KindSubtaskStarted:
		st.status = stRunning
	case format.KindSubtaskFailed:
		st.status = stFailed
	case format.KindSubtaskFinished:
		st.status = stFinished
		s.finish(x, st, e)
		s.lastFin.x, s.lastFin.seq = x, e.Seq
	}
	return nil
}

// finish records e as the finished entry of st. A later finish of a
// subtask already in the finished map keeps its position.
func (s *State) finish(x int32, st *subtask, e *format.Event) {
	if st.finSeq == 0 {
		st.pos = e.Seq
		s.vs[st.vertex].finished++
	}
	st.finSeq = e.Seq
	st.finSnap = false
	st.finAttempt = e.Attempt
	st.worker = s.workerID(e.Worker)
	st.recIn, st.recOut, st.bytesIn, st.bytesOut = e.RecordsIn, e.RecordsOut, e.BytesIn, e.BytesOut
	var parts []partRec
	if e.Partitions != nil {
		parts = s.recordParts(st.vertex, e.Partitions, e.BytesOut, e.RecordsOut)
	}
	switch {
	case parts != nil && s.listed == nil:
		s.listed = map[int32][]partRec{x: parts}
	case parts != nil:
		s.listed[x] = parts
	case len(s.listed) > 0:
		delete(s.listed, x)
	}
}

// partsOf returns the partitions of the finished entry of x: nil for one
// partition per out-edge on its worker.
func (s *State) partsOf(x int32) []partRec { return s.listed[x] }

// recordParts keeps the partitions that name an out-edge of vertex v,
// the first of each consumer. The result is nil when it says what nil
// says, one partition per out-edge holding the attempt's output (bytesOut
// and recOut): a vertex without out-edges, or a single out-edge whose
// partition holds all of it, the common case, which then costs no
// allocation. Otherwise it is non-nil.
func (s *State) recordParts(v int32, ps []format.Partition, bytesOut, recOut int64) []partRec {
	switch outs := s.topo.out[v]; len(outs) {
	case 0:
		return nil
	case 1:
		c := s.topo.edges[outs[0]].to
		for _, p := range ps {
			if p.Consumer == s.topo.ids[c] {
				if p.Bytes == bytesOut && p.Records == recOut {
					return nil
				}
				return []partRec{{consumer: c, bytes: p.Bytes, records: p.Records}}
			}
		}
		return []partRec{}
	}
	out := make([]partRec, 0, len(ps))
	for _, p := range ps {
		c := s.topo.vertex(p.Consumer)
		if c < 0 || s.topo.outSlot(v, c) < 0 || hasConsumer(out, c) {
			continue
		}
		out = append(out, partRec{consumer: c, bytes: p.Bytes, records: p.Records})
	}
	return out
}

func hasConsumer(ps []partRec, c int32) bool {
	for _, p := range ps {
		if p.consumer == c {
			return true
		}
	}
	return false
}

func (s *State) workerID(w string) int32 {
	if i, ok := s.workerIdx[w]; ok {
		return i
	}
	i := int32(len(s.workers))
	s.workers = append(s.workers, w)
	s.workerIdx[w] = i
	return i
}

func (s *State) applyReset(e *format.Event) error {
	var first error
	for _, r := range e.Subtasks {
		x, err := s.subtaskOf(e, r.Vertex, r.Subtask)
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		st := &s.sub[x]
		if st.finSeq > 0 {
			s.vs[st.vertex].finished--
		}
		st.finSeq, st.pos, st.worker, st.finSnap = 0, 0, -1, false
		if len(s.listed) > 0 {
			delete(s.listed, x)
		}
		st.recIn, st.recOut, st.bytesIn, st.bytesOut = 0, 0, 0, 0
		if st.status != stNone {
			st.status = stReset
		}
	}
	return first
}

func (s *State) applySnapshot(e *format.Event) {
	s.snapshotSeq = e.Seq
	if x := s.lastFin.x; x >= 0 && s.lastFin.seq == e.Seq-1 && s.sub[x].finSeq == e.Seq-1 {
		s.sub[x].finSnap = true
	}
	for id, state := range e.Coordinators {
		if v := s.topo.vertex(id); v >= 0 {
			// A copy of its own; the one held already when the state has
			// not changed (coordinators change less often than subtasks
			// finish).
			if !bytes.Equal(s.vs[v].coord, state) {
				s.vs[v].coord = append([]byte(nil), state...)
			}
			s.vs[v].coordSeq = e.Seq
		}
	}
}
