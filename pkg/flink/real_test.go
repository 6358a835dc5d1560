package flink

import (
	"io"
	"regexp"
	"strconv"
	"testing"

	"github.com/jobevent/jobevent/internal/flinkfixture"
)

var hexID = regexp.MustCompile(`^[0-9a-f]{32}$`)

// TestReader_RealFlink reads every job-events directory copied from real
// Flink runs (testdata/flink at the top of the repository, or under
// $JOBEVENT_FLINK_ROOT, e.g. a fresh harness output; see
// internal/flinkfixture), at every failover: every record must decode, and
// the IDs must look as Flink prints them.
func TestReader_RealFlink(t *testing.T) {
	for _, sc := range flinkfixture.Scenarios(t) {
		for i, dir := range sc.Dirs() {
			t.Run(sc.Key()+"/"+strconv.Itoa(i), func(t *testing.T) {
				checkRealDir(t, dir)
			})
		}
	}
}

func checkRealDir(t *testing.T, dir string) {
	r, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	initialized := map[ID]int32{}
	n := 0
	for {
		rec, err := r.Next()
		if err != nil {
			if err != io.EOF {
				t.Fatalf("record %d: %v", n+1, err)
			}
			break
		}
		n++
		checkRealRecord(t, rec, initialized)
	}
	if n == 0 {
		t.Errorf("no records in %s", dir)
	}
	for _, w := range r.Warnings() {
		t.Logf("warning: %s", w)
	}
}

func checkRealRecord(t *testing.T, rec *Record, initialized map[ID]int32) {
	t.Helper()
	where := rec.File + "@" + strconv.FormatInt(rec.Offset, 10)
	switch e := rec.Event.(type) {
	case *JobVertexInitialized:
		if !hexID.MatchString(e.JobVertexID.String()) || e.Parallelism <= 0 {
			t.Errorf("%s: vertex %s parallelism %d", where, e.JobVertexID, e.Parallelism)
		}
		initialized[e.JobVertexID] = e.Parallelism
		for _, in := range e.Inputs {
			if len(in.Subtasks) != int(e.Parallelism) {
				t.Errorf("%s: dataset %s has %d consumer subtasks, want %d", where, in.DataSetID, len(in.Subtasks), e.Parallelism)
			}
			for _, s := range in.Subtasks {
				if len(s.Groups) == 0 {
					t.Errorf("%s: dataset %s subtask %d consumes nothing", where, in.DataSetID, s.SubtaskIndex)
				}
			}
		}
	case *VertexFinished:
		v := e.AttemptID.Vertex
		p, ok := initialized[v.JobVertexID]
		if !ok || v.SubtaskIndex < 0 || v.SubtaskIndex >= p {
			t.Errorf("%s: finished %s of a vertex not initialized before (parallelism %d)", where, e.AttemptID, p)
		}
		if e.AttemptID.ExecutionGraphID == (ID{}) || e.Location.ResourceID == "" || !e.Location.Addr.IsValid() {
			t.Errorf("%s: finished %s on %+v", where, e.AttemptID, e.Location)
		}
		for _, pb := range e.IOMetrics.ResultPartitionBytes {
			if pb.Partition.PartitionNum != v.SubtaskIndex || len(pb.SubpartitionBytes) == 0 {
				t.Errorf("%s: %s produced partition %s with %d subpartitions", where, e.AttemptID, pb.Partition, len(pb.SubpartitionBytes))
			}
		}
	case *VertexReset:
		for _, v := range e.Vertices {
			if _, ok := initialized[v.JobVertexID]; !ok {
				t.Errorf("%s: reset %s of a vertex not initialized before", where, v)
			}
		}
	}
}
