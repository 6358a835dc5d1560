package replay

import (
	"sort"

	"github.com/jobevent/jobevent/pkg/format"
)

// Job returns the job id of job_submitted (or of the first master_started
// when there is none).
func (s *State) Job() string { return s.job }

// Graph returns the job graph of job_submitted, or nil before it. The
// caller must not modify it.
func (s *State) Graph() *format.Graph { return s.graph }

// LastSeq returns the seq of the last event applied (fenced writes aside);
// 0 for an empty log.
func (s *State) LastSeq() int64 { return s.lastSeq }

// Epoch returns the highest epoch seen: the epoch of the last master.
func (s *State) Epoch() int32 { return s.epoch }

// Master returns the address of the last master_started.
func (s *State) Master() string { return s.master }

// Status returns the status of job_finished ("finished", "failed",
// "canceled"), or "" while the job has not ended.
func (s *State) Status() string { return s.status }

// JobError returns the error of job_finished, if any.
func (s *State) JobError() string { return s.errMsg }

// Events returns the number of events applied, fenced writes aside.
func (s *State) Events() int64 { return s.events }

// Fenced returns the number of events ignored as writes of a fenced
// master (an epoch lower than one seen before).
func (s *State) Fenced() int64 { return s.fenced }

// Skipped returns the number of events Apply could not apply.
func (s *State) Skipped() int64 { return s.skipped }

// SkipErrors returns the errors of the first skipped events (at most 16).
func (s *State) SkipErrors() []error { return append([]error(nil), s.skipErrs...) }

// SnapshotSeq returns the seq of the latest snapshot event, 0 if none.
func (s *State) SnapshotSeq() int64 { return s.snapshotSeq }

// Parallelism returns the parallelism recorded by vertex_initialized for
// vertex id, and whether the vertex is initialized.
func (s *State) Parallelism(id string) (int32, bool) {
	v := s.topo.vertex(id)
	if v < 0 || s.vs[v].parallelism == 0 {
		return 0, false
	}
	return s.vs[v].parallelism, true
}

// Coordinator returns the coordinator state of vertex id in the latest
// snapshot naming it, and that snapshot's seq; nil and 0 if none. The
// caller must not modify the bytes.
func (s *State) Coordinator(id string) ([]byte, int64) {
	v := s.topo.vertex(id)
	if v < 0 {
		return nil, 0
	}
	return s.vs[v].coord, s.vs[v].coordSeq
}

// FinishedEntry is one entry of the finished map: the last finished
// attempt of a subtask that has not been reset since.
type FinishedEntry struct {
	format.SubtaskRef
	Attempt    int32
	Worker     string
	Seq        int64 // seq of its latest subtask_finished
	RecordsIn  int64
	RecordsOut int64
	BytesIn    int64
	BytesOut   int64
	Partitions []PartitionLoc
}

// Finished returns the finished map in insertion order (step 1 of the
// recovery rule, docs/recovery.md): a later finish of the same subtask
// without a reset keeps its place.
func (s *State) Finished() []FinishedEntry {
	xs := s.finishedIndices()
	out := make([]FinishedEntry, len(xs))
	for k, x := range xs {
		st := &s.sub[x]
		out[k] = FinishedEntry{
			SubtaskRef: s.ref(x),
			Attempt:    st.finAttempt,
			Worker:     s.workerName(st.worker),
			Seq:        st.finSeq,
			RecordsIn:  st.recIn, RecordsOut: st.recOut,
			BytesIn: st.bytesIn, BytesOut: st.bytesOut,
			Partitions: s.partitionsOf(x),
		}
	}
	return out
}

// finishedIndices returns the dense indices of the finished map in
// insertion order.
func (s *State) finishedIndices() []int32 {
	var xs []int32
	for x := range s.sub {
		if s.sub[x].finSeq > 0 {
			xs = append(xs, int32(x))
		}
	}
	sort.Slice(xs, func(a, b int) bool { return s.sub[xs[a]].pos < s.sub[xs[b]].pos })
	return xs
}

// Partitions returns the partitions of the currently finished attempts,
// in finished-map order and, within an attempt, in out-edge order.
func (s *State) Partitions() []PartitionLoc {
	var out []PartitionLoc
	for _, x := range s.finishedIndices() {
		out = append(out, s.partitionsOf(x)...)
	}
	return out
}

// partitionsOf returns the partitions of the finished entry of x.
func (s *State) partitionsOf(x int32) []PartitionLoc {
	st := &s.sub[x]
	return partitionLocs(s.topo, st.vertex, x-s.vs[st.vertex].base, st.finAttempt,
		s.workerName(st.worker), s.partsOf(x), st.bytesOut, st.recOut)
}

// partitionLocs expands the recorded partitions of one finished attempt.
// Absent partitions (parts == nil) mean one per out-edge, stored on the
// worker; with a single out-edge it holds all of bytesOut and recordsOut,
// with several their sizes are unknown (0).
func partitionLocs(t *topology, v, i, attempt int32, worker string, parts []partRec, bytesOut, recOut int64) []PartitionLoc {
	loc := func(c int32, d int32, bytes, records int64) PartitionLoc {
		id := PartitionID{Vertex: t.ids[v], Subtask: i, Attempt: attempt, Dataset: t.datasets[d].id}
		if c >= 0 {
			id.Consumer = t.ids[c]
		}
		return PartitionLoc{PartitionID: id, Worker: worker, Bytes: bytes, Records: records}
	}
	if parts != nil {
		out := make([]PartitionLoc, 0, len(parts))
		for _, p := range parts {
			if k := t.outSlot(v, p.consumer); k >= 0 {
				d := t.outDS[v][k]
				out = append(out, loc(t.firstConsumer(d), d, p.bytes, p.records))
			}
		}
		return out
	}
	dss := t.outDS[v]
	out := make([]PartitionLoc, len(dss))
	for k, d := range dss {
		if len(dss) == 1 {
			out[k] = loc(t.firstConsumer(d), d, bytesOut, recOut)
		} else {
			out[k] = loc(t.firstConsumer(d), d, 0, 0)
		}
	}
	return out
}

func (s *State) workerName(w int32) string {
	if w < 0 {
		return ""
	}
	return s.workers[w]
}

// ref returns the vertex/subtask of dense index x.
func (s *State) ref(x int32) format.SubtaskRef {
	v := s.sub[x].vertex
	return format.SubtaskRef{Vertex: s.topo.ids[v], Subtask: x - s.vs[v].base}
}

// Names returns the vertices' names where a vertex's id is not its name:
// in a log planned with the Flink profile a vertex is a 32-hex
// JobVertexID and its operator is its name (from the plan), so Names maps
// id to operator; in jobevent's logs the id is the name, and Names is nil.
func (s *State) Names() map[string]string {
	if s.profile != ProfileFlink || s.graph == nil {
		return nil
	}
	m := map[string]string{}
	for _, v := range s.graph.Vertices {
		if v.Operator != "" {
			m[v.ID] = v.Operator
		}
	}
	return m
}
