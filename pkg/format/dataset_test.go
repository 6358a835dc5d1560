package format

import (
	"reflect"
	"testing"
)

// datasetLine is a job_submitted of a Flink-shaped graph: one dataset read
// by two vertices, two datasets between the same two vertices, an edge
// with explicit (balanced) ranges and a dataset no edge reads yet.
const datasetLine = `{"seq":1,"time":"1970-01-01T00:00:00.000000000Z","epoch":1,"kind":"job_submitted","job":"j","graph":{"vertices":[` +
	`{"id":"src","operator":"","parallelism":2,"max_parallelism":2,"coordinator":"batch_snapshot"},` +
	`{"id":"a","operator":"","parallelism":2,"max_parallelism":2,"coordinator":"none"},` +
	`{"id":"b","operator":"","parallelism":2,"max_parallelism":2,"coordinator":"none"}],"edges":[` +
	`{"from":"src","to":"a","pattern":"all_to_all","dataset":"d1"},` +
	`{"from":"src","to":"b","pattern":"all_to_all","dataset":"d1"},` +
	`{"from":"src","to":"b","pattern":"pointwise","dataset":"d2"},` +
	`{"from":"a","to":"b","pattern":"all_to_all"}],` +
	`"ranges":[{"edge":2,"subtask":0,"first":0,"last":1},{"edge":2,"subtask":1,"first":1,"last":1}],` +
	`"datasets":[{"id":"d3","producer":"a"}]}}` + "\n" +
	`{"seq":2,"time":"1970-01-01T00:00:00.000000000Z","epoch":1,"kind":"master_started","job":"j","master":"m","recovering":false}` + "\n"

// TestGraphDatasets_RoundTrip: edge datasets, ranges and graph datasets
// (schema 1.2) read from canonical JSONL, write back byte for byte, and
// survive a Parquet segment of SchemaVersionDatasets, whole and projected
// on the graph.
func TestGraphDatasets_RoundTrip(t *testing.T) {
	events, err := decodeJSONL([]byte(datasetLine))
	if err != nil {
		t.Fatal(err)
	}
	g := events[0].Graph
	if len(g.Datasets) != 1 || g.Edges[1].Dataset != "d1" || len(g.Ranges) != 2 || g.Ranges[1].Edge != 2 || g.Edges[3].Dataset != "" {
		t.Fatalf("graph = %+v", g)
	}
	if got := string(encodeJSON(events)); got != datasetLine {
		t.Fatalf("JSONL round trip:\n%s\nwant\n%s", got, datasetLine)
	}
	got, err := decodeAll(encode(t, events))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, events) {
		t.Fatalf("segment round trip: graph %+v, want %+v", got[0].Graph, g)
	}
	sr, err := OpenSegment(encode(t, events))
	if err != nil {
		t.Fatal(err)
	}
	if sr.Version() != SchemaVersionDatasets {
		t.Fatalf("version %s, want %s", sr.Version(), SchemaVersionDatasets)
	}
	// Without datasets the same events make a segment of SchemaVersion,
	// without the columns that hold them.
	plain := []Event{events[1]}
	if sp, err := OpenSegment(encode(t, plain)); err != nil || sp.Version() != SchemaVersion {
		t.Fatalf("a segment without datasets: %v, version %v", err, sp)
	}
	sr.Project(FieldGraph | FieldKind | FieldSeq)
	buf := make([]Event, 4)
	n, _ := sr.Read(buf)
	if n != 2 || !reflect.DeepEqual(buf[0].Graph, g) {
		t.Fatalf("projected read: %d events, graph %+v", n, buf[0].Graph)
	}
}
