package logsource

import (
	"testing"

	"github.com/jobevent/jobevent/pkg/flink"
)

// TestAssumptionNotices: a --coordinator settles the source-kind
// assumption of its vertex only, not another assumption whose text
// happens to name that vertex.
func TestAssumptionNotices(t *testing.T) {
	const v, w = "cbc357ccb763df2852fee8c4fc7d55f2", "90bea66de1c231edf33913ecd54406c1"
	as := []flink.Assumption{
		{Vertex: v, Kind: flink.AssumedSourceKind, Text: "vertex " + v + ": source class X is not in the Flink 2.x table"},
		{Vertex: w, Kind: flink.AssumedSourceKind, Text: "vertex " + w + ": source class Y is not in the Flink 2.x table"},
		{Kind: flink.AssumedVertexIDs, Text: "the JobVertexIDs derived from the StreamGraph differ from the log's (1 unknown, e.g. " + v + ")"},
	}
	got := assumptionNotices(as, map[string]string{v: "batch_snapshot"})
	if len(got) != 2 || got[0].Message != "Flink log: "+as[1].Text || got[1].Message != "Flink log: "+as[2].Text {
		t.Errorf("notices = %+v, want vertex %s's and the ids'", got, w)
	}
	if got := assumptionNotices(as, nil); len(got) != 3 {
		t.Errorf("no flags: %d notices, want 3", len(got))
	}
}
