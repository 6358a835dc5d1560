package interop

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/jobevent/jobevent/pkg/format"
)

// TestDuckDB_EveryVersion: DuckDB reads the segments of every schema
// version (pkg/format's committed fixtures) and a segment written now, and
// every row is what jobevent decodes. Like TestDuckDB, it needs node and
// interop/duckdb/node_modules.
func TestDuckDB_EveryVersion(t *testing.T) {
	node := requireDuckDB(t)
	var versions, files []string
	for v, data := range readFixtures(t) {
		path := filepath.Join(t.TempDir(), "sample-v"+v+".parquet")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		versions, files = append(versions, v), append(files, path)
	}
	sort.Sort(byFirst{versions, files})
	versions = append(versions, "new "+format.SchemaVersion)
	files = append(files, writeSegment(t, allKinds()))

	var out [][]map[string]any
	if err := json.Unmarshal(runOK(t, node, append([]string{"duckdb/read.mjs"}, files...)...), &out); err != nil {
		t.Fatal(err)
	}
	if len(out) != len(files) {
		t.Fatalf("DuckDB read %d files, want %d", len(out), len(files))
	}
	for i, rows := range out {
		t.Run(versions[i], func(t *testing.T) {
			events := decodeFile(t, files[i])
			if len(rows) != len(events) {
				t.Fatalf("DuckDB reads %d rows, want %d", len(rows), len(events))
			}
			for j := range events {
				want := duckRow(&events[j])
				for col, w := range want {
					if got := str(rows[j][col]); got != w {
						t.Errorf("seq %d %s: column %s = %s, want %s", events[j].Seq, events[j].Kind, col, got, w)
					}
				}
			}
		})
	}
}

// byFirst sorts two slices by the first.
type byFirst struct{ keys, vals []string }

func (s byFirst) Len() int           { return len(s.keys) }
func (s byFirst) Less(i, j int) bool { return s.keys[i] < s.keys[j] }
func (s byFirst) Swap(i, j int) {
	s.keys[i], s.keys[j] = s.keys[j], s.keys[i]
	s.vals[i], s.vals[j] = s.vals[j], s.vals[i]
}

func writeSegment(t *testing.T, events []format.Event) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "new.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := format.EncodeSegment(f, events); err != nil {
		t.Fatal(err)
	}
	return path
}

func decodeFile(t *testing.T, path string) []format.Event {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sr, err := format.OpenSegment(data)
	if err != nil {
		t.Fatal(err)
	}
	var events []format.Event
	for {
		e, err := sr.Next()
		if errors.Is(err, io.EOF) {
			return events
		}
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
	}
}

// duckColumns are the columns duckdb/read.mjs prints.
var duckColumns = []string{"seq", "time", "epoch", "kind", "job", "master", "recovering", "vertex",
	"subtask", "parallelism", "attempt", "worker", "records_in", "records_out", "bytes_in", "bytes_out",
	"partitions", "error", "subtasks", "reason", "coordinators", "status", "graph_vertices", "graph_edges"}

// duckRow is the row duckdb/read.mjs prints for e, rendered with str:
// the expected Arrow row (expectedRow), lists as their length or -1 for
// NULL, time as epoch microseconds (DuckDB reads the nanosecond
// timestamps as microseconds).
func duckRow(e *format.Event) map[string]string {
	want := expectedRow(e)
	row := make(map[string]string)
	for _, col := range duckColumns {
		row[col] = str(want[col])
	}
	for _, col := range []string{"partitions", "subtasks", "coordinators"} {
		row[col] = "-1"
		if l, ok := want[col].([]any); ok {
			row[col] = fmt.Sprint(len(l))
		}
	}
	row["time"] = fmt.Sprint(e.Time.UnixMicro())
	row["graph_vertices"], row["graph_edges"] = "-1", "-1"
	if e.Kind == format.KindJobSubmitted {
		row["graph_vertices"], row["graph_edges"] = fmt.Sprint(len(e.Graph.Vertices)), fmt.Sprint(len(e.Graph.Edges))
	}
	return row
}
