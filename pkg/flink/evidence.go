package flink

import (
	"errors"
	"io"
)

// CoordinatorEvidence is what a job's log says of its operator
// coordinators' batch snapshots. At a snapshot point (a finished record
// with a shuffle master snapshot) Flink's recording JobMaster
// (DefaultBatchJobRecoveryHandler.onExecutionFinished) snapshots the
// coordinators of every job vertex with a subtask finished since its
// previous snapshot point, the finishing one included, and writes the
// states of those whose coordinator supports batch snapshots: such a
// snapshot point covers those vertices. A coordinator of a covered vertex
// that is absent from every snapshot covering it has no batch snapshot; one
// present in any has. A vertex no snapshot point covers (initialized but
// with no finish, or whose finishes have no snapshot point after them in
// the same JobMaster's records, as a trimmed tail) says nothing.
type CoordinatorEvidence struct {
	covers  map[string]int             // vertex id -> snapshot points covering it
	present map[string]map[string]bool // vertex id -> operator ids in one of them
}

// Supports returns what the log says of the coordinator with operator id
// op of job vertex vertex (32-hex ids): known is false when no snapshot
// point covers the vertex (or e is nil, or op is "").
func (e *CoordinatorEvidence) Supports(vertex, op string) (supports, known bool) {
	if e == nil || op == "" || e.covers[vertex] == 0 {
		return false, false
	}
	return e.present[vertex][op], true
}

// ReadCoordinatorEvidence reads the records of a job's log (a *Reader)
// and returns what they say of its coordinators. The JobMaster that wrote
// a record is its ExecutionGraphID: each JobMaster starts with nothing
// pending. An error ends the reading; the evidence up to it is returned
// with it.
func ReadCoordinatorEvidence(r interface{ Next() (*Record, error) }) (*CoordinatorEvidence, error) {
	e := &CoordinatorEvidence{covers: map[string]int{}, present: map[string]map[string]bool{}}
	pending := map[ID]map[string]bool{} // per JobMaster: vertices with a finish since its last snapshot point
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return e, nil
		}
		if err != nil {
			return e, err
		}
		f, ok := rec.Event.(*VertexFinished)
		if !ok {
			continue
		}
		g := f.AttemptID.ExecutionGraphID
		if pending[g] == nil {
			pending[g] = map[string]bool{}
		}
		pending[g][f.AttemptID.Vertex.JobVertexID.String()] = true
		if !f.SnapshotPoint {
			continue
		}
		for v := range pending[g] {
			e.covers[v]++
			if e.present[v] == nil {
				e.present[v] = map[string]bool{}
			}
			for _, c := range f.CoordinatorSnapshots {
				e.present[v][c.OperatorID.String()] = true
			}
		}
		pending[g] = map[string]bool{}
	}
}
