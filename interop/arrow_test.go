package interop

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/jobevent/jobevent/pkg/format"
)

// allKinds is a segment's worth of events with every kind and every
// optional field, in each of its states: partitions absent, empty and
// listed; coordinators with empty and binary state, and none; an error
// present and empty; recovering true and false.
func allKinds() []format.Event {
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 123456789, time.UTC)
	g := &format.Graph{
		Vertices: []format.Vertex{
			{ID: "src", Operator: "text_source", Parallelism: 2, MaxParallelism: 8, Coordinator: format.CoordinatorBatchSnapshot},
			{ID: "count", Operator: "key_by_count", Parallelism: 0, MaxParallelism: 4, Coordinator: format.CoordinatorNone},
			{ID: "sink", Operator: "sink", Parallelism: 1, MaxParallelism: 1, Coordinator: format.CoordinatorNoBatchSnapshot},
		},
		Edges: []format.Edge{
			{From: "src", To: "count", Pattern: format.PatternAllToAll},
			{From: "count", To: "sink", Pattern: format.PatternPointwise},
		},
	}
	events := []format.Event{
		{Kind: format.KindJobSubmitted, Graph: g},
		{Kind: format.KindMasterStarted, Master: "127.0.0.1:7070", Recovering: false},
		{Kind: format.KindVertexInitialized, Vertex: "src", Parallelism: 2},
		{Kind: format.KindSubtaskStarted, Vertex: "src", Subtask: 0, Attempt: 0, Worker: "w1"},
		{Kind: format.KindSubtaskFinished, Vertex: "src", Subtask: 0, Attempt: 0, Worker: "w1",
			RecordsIn: 10, RecordsOut: 20, BytesIn: 300, BytesOut: 400}, // partitions absent
		{Kind: format.KindSubtaskFinished, Vertex: "src", Subtask: 1, Attempt: 3, Worker: "w2",
			RecordsOut: 1 << 40, BytesOut: -1, Partitions: []format.Partition{}}, // none
		{Kind: format.KindSubtaskFinished, Vertex: "count", Subtask: 0, Attempt: 1, Worker: "w1", RecordsIn: 7,
			Partitions: []format.Partition{{Consumer: "sink", Bytes: 1024, Records: 7}, {Consumer: "other", Bytes: 0, Records: 0}}},
		{Kind: format.KindSubtaskFailed, Vertex: "src", Subtask: 1, Attempt: 0, Worker: "w2", Error: "disk full: \"/tmp\" ü"},
		{Kind: format.KindSubtaskFailed, Vertex: "src", Subtask: 1, Attempt: 1, Worker: ""}, // empty error
		{Kind: format.KindSubtasksReset, Subtasks: []format.SubtaskRef{{Vertex: "src", Subtask: 1}, {Vertex: "count", Subtask: 0}}, Reason: "failure"},
		{Kind: format.KindSubtasksReset, Subtasks: []format.SubtaskRef{}, Reason: format.ReasonRecovery},
		{Kind: format.KindSnapshot, Coordinators: map[string][]byte{"src": {0x00, 0x01, 0xff, 's'}, "a": {}}},
		{Kind: format.KindSnapshot, Coordinators: map[string][]byte{}},
		{Kind: format.KindMasterStarted, Master: "10.0.0.1:1", Recovering: true},
		{Kind: format.KindJobFinished, Status: format.StatusFinished},
		{Kind: format.KindJobFinished, Status: format.StatusFailed, Error: "too many failures"},
	}
	for i := range events {
		events[i].Seq = int64(i + 1)
		events[i].Time = t0.Add(time.Duration(i) * time.Millisecond)
		events[i].Epoch = 1
		events[i].Job = "wordcount"
	}
	return events
}

// readArrow reads a segment with arrow-go's Parquet reader into one
// record.
func readArrow(t *testing.T, data []byte) (arrow.Record, *file.Reader) {
	t.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("arrow-go cannot open the segment: %v", err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatalf("arrow-go cannot read the segment: %v", err)
	}
	t.Cleanup(tbl.Release)
	tr := array.NewTableReader(tbl, tbl.NumRows())
	t.Cleanup(tr.Release)
	if !tr.Next() {
		t.Fatal("no record batch")
	}
	rec := tr.Record()
	rec.Retain()
	t.Cleanup(rec.Release)
	return rec, pf
}

// wantTypes are the Arrow types arrow-go gives each column, with
// nullability: the schema of docs/format.md §3 as another implementation
// reads it.
var wantTypes = []struct {
	name     string
	typ      string
	nullable bool
}{
	{"seq", "int64", false},
	{"time", "timestamp[ns, tz=UTC]", false},
	{"epoch", "int32", false},
	{"kind", "utf8", false},
	{"job", "utf8", false},
	{"graph", "struct<vertices: list<element: struct<id: utf8, operator: utf8, parallelism: int32, max_parallelism: int32, coordinator: utf8>>, edges: list<element: struct<from: utf8, to: utf8, pattern: utf8>>>", true},
	{"master", "utf8", true},
	{"recovering", "bool", true},
	{"vertex", "utf8", true},
	{"subtask", "int32", true},
	{"parallelism", "int32", true},
	{"attempt", "int32", true},
	{"worker", "utf8", true},
	{"records_in", "int64", true},
	{"records_out", "int64", true},
	{"bytes_in", "int64", true},
	{"bytes_out", "int64", true},
	{"partitions", "list<element: struct<consumer: utf8, bytes: int64, records: int64>>", true},
	{"error", "utf8", true},
	{"subtasks", "list<element: struct<vertex: utf8, subtask: int32>>", true},
	{"reason", "utf8", true},
	{"coordinators", "list<element: struct<vertex: utf8, state: binary>>", true},
	{"status", "utf8", true},
}

// TestArrow_Schema: every column has the documented type and
// nullability, and the footer holds the schema version.
func TestArrow_Schema(t *testing.T) {
	var buf bytes.Buffer
	if err := format.EncodeSegment(&buf, allKinds()); err != nil {
		t.Fatal(err)
	}
	rec, pf := readArrow(t, buf.Bytes())
	schema := rec.Schema()
	if schema.NumFields() != len(wantTypes) {
		t.Fatalf("columns = %d, want %d: %s", schema.NumFields(), len(wantTypes), schema)
	}
	for i, w := range wantTypes {
		f := schema.Field(i)
		if f.Name != w.name || typeString(f.Type) != w.typ || f.Nullable != w.nullable {
			t.Errorf("column %d = %s %s (nullable %v), want %s %s (nullable %v)", i, f.Name, typeString(f.Type), f.Nullable, w.name, w.typ, w.nullable)
		}
	}
	if v := pf.MetaData().KeyValueMetadata().FindValue(format.SchemaVersionKey); v == nil || *v != format.SchemaVersion {
		t.Fatalf("footer %s = %v, want %q", format.SchemaVersionKey, v, format.SchemaVersion)
	}
}

// typeString renders a type without the nullability of list elements
// and struct fields, which pqarrow reports as "required" noise.
func typeString(dt arrow.DataType) string {
	switch t := dt.(type) {
	case *arrow.ListType:
		return "list<" + t.ElemField().Name + ": " + typeString(t.Elem()) + ">"
	case *arrow.StructType:
		s := "struct<"
		for i, f := range t.Fields() {
			if i > 0 {
				s += ", "
			}
			s += f.Name + ": " + typeString(f.Type)
		}
		return s + ">"
	}
	return dt.String()
}

// TestArrow_Values: every value and every NULL of every column, read by
// arrow-go, is what the event holds (docs/format.md §3: a kind-specific
// column is non-NULL exactly for the kinds that have the field).
func TestArrow_Values(t *testing.T) {
	events := allKinds()
	var buf bytes.Buffer
	if err := format.EncodeSegment(&buf, events); err != nil {
		t.Fatal(err)
	}
	rec, _ := readArrow(t, buf.Bytes())
	if int(rec.NumRows()) != len(events) {
		t.Fatalf("rows = %d, want %d", rec.NumRows(), len(events))
	}
	for i := range events {
		want := expectedRow(&events[i])
		for c := 0; c < int(rec.NumCols()); c++ {
			name := rec.ColumnName(c)
			got := value(rec.Column(c), i)
			if !reflect.DeepEqual(got, want[name]) {
				t.Errorf("seq %d %s: column %s = %#v, want %#v", events[i].Seq, events[i].Kind, name, got, want[name])
			}
		}
	}
	// The states the format tells apart, spelled out.
	parts := rec.Column(17).(*array.List)
	if !parts.IsNull(4) || parts.IsNull(5) || listLen(parts, 5) != 0 || listLen(parts, 6) != 2 {
		t.Fatal("partitions: want NULL when absent, an empty list for [], two entries when listed")
	}
	coords := rec.Column(21).(*array.List)
	state := coords.ListValues().(*array.Struct).Field(1)
	if _, ok := state.(*array.Binary); !ok {
		t.Fatalf("coordinator state is %T, want binary", state)
	}
	if coords.IsNull(12) || listLen(coords, 12) != 0 || !coords.IsNull(13) {
		t.Fatal("coordinators: want an empty list for {}, NULL outside snapshots")
	}
}

func listLen(l *array.List, i int) int {
	start, end := l.ValueOffsets(i)
	return int(end - start)
}

// expectedRow returns the value of each column for e: nil for NULL.
func expectedRow(e *format.Event) map[string]any {
	m := map[string]any{
		"seq": e.Seq, "time": e.Time.UnixNano(), "epoch": e.Epoch, "kind": string(e.Kind), "job": e.Job,
	}
	switch e.Kind {
	case format.KindJobSubmitted:
		var vs, es []any
		for _, v := range e.Graph.Vertices {
			vs = append(vs, map[string]any{"id": v.ID, "operator": v.Operator, "parallelism": v.Parallelism,
				"max_parallelism": v.MaxParallelism, "coordinator": v.Coordinator})
		}
		for _, ed := range e.Graph.Edges {
			es = append(es, map[string]any{"from": ed.From, "to": ed.To, "pattern": ed.Pattern})
		}
		m["graph"] = map[string]any{"vertices": vs, "edges": es}
	case format.KindMasterStarted:
		m["master"], m["recovering"] = e.Master, e.Recovering
	case format.KindVertexInitialized:
		m["vertex"], m["parallelism"] = e.Vertex, e.Parallelism
	case format.KindSubtaskStarted, format.KindSubtaskFinished, format.KindSubtaskFailed:
		m["vertex"], m["subtask"], m["attempt"], m["worker"] = e.Vertex, e.Subtask, e.Attempt, e.Worker
	}
	switch e.Kind {
	case format.KindSubtaskFinished:
		m["records_in"], m["records_out"], m["bytes_in"], m["bytes_out"] = e.RecordsIn, e.RecordsOut, e.BytesIn, e.BytesOut
		if e.Partitions != nil {
			ps := []any{}
			for _, p := range e.Partitions {
				ps = append(ps, map[string]any{"consumer": p.Consumer, "bytes": p.Bytes, "records": p.Records})
			}
			m["partitions"] = ps
		}
	case format.KindSubtaskFailed:
		m["error"] = e.Error
	case format.KindSubtasksReset:
		rs := []any{}
		for _, r := range e.Subtasks {
			rs = append(rs, map[string]any{"vertex": r.Vertex, "subtask": r.Subtask})
		}
		m["subtasks"], m["reason"] = rs, e.Reason
	case format.KindSnapshot:
		cs := []any{}
		for _, id := range sortedKeys(e.Coordinators) {
			cs = append(cs, map[string]any{"vertex": id, "state": "bin:" + fmt.Sprintf("%x", e.Coordinators[id])})
		}
		m["coordinators"] = cs
	case format.KindJobFinished:
		m["status"], m["error"] = e.Status, e.Error
	}
	return m
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// value converts element i of an Arrow array to plain Go: nil for NULL,
// []any for lists, map[string]any for structs, "bin:<hex>" for binary.
func value(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch a := a.(type) {
	case *array.Int64:
		return a.Value(i)
	case *array.Int32:
		return a.Value(i)
	case *array.Boolean:
		return a.Value(i)
	case *array.String:
		return a.Value(i)
	case *array.Binary:
		return "bin:" + fmt.Sprintf("%x", a.Value(i))
	case *array.Timestamp:
		return int64(a.Value(i))
	case *array.List:
		start, end := a.ValueOffsets(i)
		out := []any{}
		for j := start; j < end; j++ {
			out = append(out, value(a.ListValues(), int(j)))
		}
		if len(out) == 0 {
			return []any{}
		}
		return out
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		m := make(map[string]any, a.NumField())
		for f := 0; f < a.NumField(); f++ {
			m[st.Field(f).Name] = value(a.Field(f), i)
		}
		return m
	}
	return fmt.Sprintf("unhandled %T", a)
}

// segmentFixtures are pkg/format's committed segments of its sample log,
// one per schema version written so far (1.0: data page v2; 1.1: data
// page v1).
var segmentFixtures = map[string]string{
	"1.0": "../pkg/format/testdata/sample-v1.0.parquet",
	"1.1": "../pkg/format/testdata/sample-v1.1.parquet",
}

// readFixtures returns the fixtures' contents by version, and checks that
// the current version has one.
func readFixtures(t *testing.T) map[string][]byte {
	t.Helper()
	if _, ok := segmentFixtures[format.SchemaVersion]; !ok {
		t.Fatalf("no fixture of the current schema version %s", format.SchemaVersion)
	}
	out := make(map[string][]byte)
	for v, path := range segmentFixtures {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		out[v] = data
	}
	return out
}

// TestArrow_EveryVersion: arrow-go reads the segments of every schema
// version, and every value and NULL is what jobevent decodes.
func TestArrow_EveryVersion(t *testing.T) {
	for version, data := range readFixtures(t) {
		t.Run(version, func(t *testing.T) {
			sr, err := format.OpenSegment(data)
			if err != nil {
				t.Fatal(err)
			}
			var events []format.Event
			for {
				e, err := sr.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				events = append(events, e)
			}
			rec, pf := readArrow(t, data)
			if v := pf.MetaData().KeyValueMetadata().FindValue(format.SchemaVersionKey); v == nil || *v != version {
				t.Fatalf("footer %s = %v, want %q", format.SchemaVersionKey, v, version)
			}
			if int(rec.NumRows()) != len(events) {
				t.Fatalf("rows = %d, want %d", rec.NumRows(), len(events))
			}
			for i := range events {
				want := expectedRow(&events[i])
				for c := 0; c < int(rec.NumCols()); c++ {
					name := rec.ColumnName(c)
					if got := value(rec.Column(c), i); !reflect.DeepEqual(got, want[name]) {
						t.Errorf("seq %d %s: column %s = %#v, want %#v", events[i].Seq, events[i].Kind, name, got, want[name])
					}
				}
			}
		})
	}
}
