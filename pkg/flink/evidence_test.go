package flink

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/internal/flinkfixture"
)

// records is a recordReader over records in memory.
type records []*Record

func (r *records) Next() (*Record, error) {
	if len(*r) == 0 {
		return nil, io.EOF
	}
	rec := (*r)[0]
	*r = (*r)[1:]
	return rec, nil
}

// finished is a finished record of vertex v by the JobMaster of graph g,
// a snapshot point holding the states of ops when snap.
func finished(g, v int64, snap bool, ops ...int64) *Record {
	f := &VertexFinished{SnapshotPoint: snap}
	f.AttemptID.ExecutionGraphID = ID{Lower: g}
	f.AttemptID.Vertex.JobVertexID = ID{Lower: v}
	for _, op := range ops {
		f.CoordinatorSnapshots = append(f.CoordinatorSnapshots, CoordinatorSnapshot{OperatorID: ID{Lower: op}})
	}
	return &Record{Event: f}
}

func TestCoordinatorEvidence(t *testing.T) {
	id := func(n int64) string { return ID{Lower: n}.String() }
	const jm1, jm2 = 1, 2
	const src, other, late, trimmed, idle = 10, 11, 12, 13, 14
	const srcOp, otherOp, lateOp, trimmedOp, idleOp = 20, 21, 22, 23, 24
	log := records{
		{Event: &JobVertexInitialized{JobVertexID: ID{Lower: idle}}},
		// src finishes; the snapshot point covering it lacks its coordinator.
		finished(jm1, src, false),
		finished(jm1, other, true, otherOp),
		// A later snapshot point covers only late: src's and idle's
		// coordinators are absent from it, which says nothing of them.
		finished(jm1, late, true, lateOp),
		// trimmed finishes with no snapshot point after it in its
		// JobMaster's records; the next JobMaster's snapshot covers
		// only its own finishes.
		finished(jm1, trimmed, false),
		finished(jm2, late, true),
	}
	ev, err := ReadCoordinatorEvidence(&log)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		vertex, op      int64
		supports, known bool
	}{
		{src, srcOp, false, true},
		{other, otherOp, true, true},
		{late, lateOp, true, true}, // present in one of the two covering it
		{trimmed, trimmedOp, false, false},
		{idle, idleOp, false, false},
	} {
		s, k := ev.Supports(id(c.vertex), id(c.op))
		if s != c.supports || k != c.known {
			t.Errorf("vertex %d op %d: supports %v known %v, want %v %v", c.vertex, c.op, s, k, c.supports, c.known)
		}
	}
	if _, k := ev.Supports(id(src), ""); k {
		t.Error("an unknown OperatorID is known")
	}
}

// TestSettle: the log's evidence settles a Source class no table knows,
// and only that: the table wins where it knows the class, and a vertex no
// snapshot point covers stays assumed.
func TestSettle(t *testing.T) {
	const custom = "com.example.MySource"
	seq := "org.apache.flink.api.connector.source.lib.NumberSequenceSource"
	id := func(n int64) string { return ID{Lower: n}.String() }
	h := &HAInfo{Version: "1.20", Plan: &JobPlan{Nodes: []PlanNode{{ID: id(1)}, {ID: id(2)}, {ID: id(3)}, {ID: id(4)}}},
		Sources:     map[string][]string{id(1): {custom}, id(2): {custom}, id(3): {custom}, id(4): {seq}},
		Operators:   map[string][]string{id(1): {id(11)}, id(2): {id(12)}, id(3): {id(13)}, id(4): {id(14)}},
		Assumptions: []Assumption{{Kind: AssumedVertexIDs, Text: "ids"}},
	}
	h.kinds()
	if len(h.Assumptions) != 4 || !h.AssumesSourceKind() || h.Assumptions[3].Text != "ids" {
		t.Fatalf("before: %v", h.Assumptions)
	}
	log := records{
		finished(7, 1, true),     // 1 without: absent
		finished(7, 2, true, 12), // 2 with: present
		finished(7, 4, true),     // 4: the table says it has, whatever the log
	}
	ev, err := ReadCoordinatorEvidence(&log)
	if err != nil {
		t.Fatal(err)
	}
	h.Settle(ev)
	want := map[string]string{id(1): "no_batch_snapshot", id(2): "batch_snapshot", id(3): "no_batch_snapshot", id(4): "batch_snapshot"}
	for v, k := range want {
		if h.Coordinators[v] != k {
			t.Errorf("vertex %s: %q, want %q", v, h.Coordinators[v], k)
		}
	}
	if len(h.Assumptions) != 2 || h.Assumptions[0].Vertex != id(3) || h.Assumptions[0].Kind != AssumedSourceKind || h.Assumptions[1].Text != "ids" {
		t.Errorf("after: %+v, want vertex 3's kind and the ids", h.Assumptions)
	}
}

// TestCoordinatorEvidence_RealFlink: on every run of real Flink, what the
// log's snapshot points say of each source coordinator the table knows is
// what the table says, so the OperatorIDs read from the HA plan are the
// ones Flink snapshots under; and the harness's own source without batch
// snapshots is settled by the log.
func TestCoordinatorEvidence_RealFlink(t *testing.T) {
	settled, agreed := 0, map[string]int{}
	for _, sc := range flinkfixture.Scenarios(t) {
		if sc.HACluster == "" {
			continue
		}
		t.Run(sc.Key(), func(t *testing.T) {
			info, err := ReadHA(context.Background(), os.DirFS(sc.HACluster), sc.JobID)
			if err != nil || info == nil {
				t.Fatalf("ReadHA = %v, %v", info, err)
			}
			r, err := NewReader(os.DirFS(sc.JobEvents))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			ev, err := ReadCoordinatorEvidence(r)
			if err != nil {
				t.Fatal(err)
			}
			for v, srcs := range info.Sources {
				for k, src := range srcs {
					supports, known := ev.Supports(v, info.Operators[v][k])
					want, inTable := batchSnapshotSources[info.Version][src]
					switch {
					case !known:
					case inTable && supports != want:
						t.Errorf("vertex %s %s: the log says batch snapshots %v, the table %v", v, src, supports, want)
					case inTable:
						agreed[info.Version]++
					case !inTable && strings.HasSuffix(src, ".NoBatchSnapshotSource"):
						if supports {
							t.Errorf("vertex %s %s: the log says it has batch snapshots", v, src)
						}
						settled++
					}
				}
			}
			info.Settle(ev)
			if info.AssumesSourceKind() {
				t.Errorf("still assumed: %v", info.Assumptions)
			}
		})
	}
	if settled == 0 {
		t.Error("no run settles the harness's source without batch snapshots")
	}
	if agreed["1.20"] == 0 || agreed["2.x"] == 0 {
		t.Errorf("the log and the table agree on %v coordinators by version: want some on both", agreed)
	}
}
