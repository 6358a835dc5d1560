package replay_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/internal/testlog"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

func fold(t *testing.T, events []format.Event) *replay.State {
	t.Helper()
	st, err := replay.Fold(&replay.SliceSource{Events: events}, 0)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func paths(r *replay.DiffResult) string {
	var p []string
	for _, d := range r.Differences {
		p = append(p, d.Path)
	}
	return strings.Join(p, "; ")
}

// TestDiff_Same finds nothing between a log and itself re-timed.
func TestDiff_Same(t *testing.T) {
	a := testlog.Read(t, filepath.Join(validateCases, "good.jsonl"))
	b := testlog.Read(t, filepath.Join(validateCases, "good.jsonl"))
	for i := range b {
		b[i].Time = b[i].Time.Add(3600e9)
	}
	if r := replay.Diff(fold(t, a), fold(t, b)); !r.Equal() {
		t.Fatalf("Diff = %s, want none", paths(r))
	}
	r, err := replay.DiffEvents(&replay.SliceSource{Events: a}, &replay.SliceSource{Events: b})
	if err != nil || !r.Equal() {
		t.Fatalf("DiffEvents = %s, %v; want none", paths(r), err)
	}
}

// TestDiff_State names each semantic difference with its values.
func TestDiff_State(t *testing.T) {
	a := testlog.Read(t, filepath.Join(validateCases, "good.jsonl"))
	b := testlog.Read(t, filepath.Join(validateCases, "good.jsonl"))
	b[0].Graph = &format.Graph{Vertices: append([]format.Vertex(nil), b[0].Graph.Vertices...), Edges: b[0].Graph.Edges}
	b[0].Graph.Vertices[2].MaxParallelism = 8 // agg
	b[22].Parallelism = 3                     // agg initialized with 3, not 2
	b[25].RecordsOut = 2400                   // agg/0
	b[30].Status = format.StatusCanceled      // job_finished
	r := replay.Diff(fold(t, a), fold(t, b))
	// agg/2 never ran in b, so sink/0, which read all of agg, reruns there.
	want := "vertex agg max_parallelism; vertex agg parallelism; subtask sink/0 decision; subtask sink/0 attempt; " +
		"subtask agg/2 decision; subtask agg/2 attempt; subtask agg/0 records_out; job status"
	if got := paths(r); got != want {
		t.Fatalf("Diff paths = %s\nwant %s", got, want)
	}
	byPath := make(map[string]replay.Difference)
	for _, d := range r.Differences {
		byPath[d.Path] = d
	}
	if d := byPath["vertex agg parallelism"]; d.A != int32(2) || d.B != int32(3) {
		t.Fatalf("parallelism difference = %+v, want 2 and 3", d)
	}
	if d := byPath["subtask agg/2 decision"]; d.A != nil || d.B != "run" {
		t.Fatalf("decision difference = %+v, want absent and run", d)
	}
	data, err := json.Marshal(r)
	if err != nil || !strings.Contains(string(data), `{"path":"job status","a":"finished","b":"canceled"}`) {
		t.Fatalf("JSON = %s, %v", data, err)
	}
}

// TestDiffEvents_Align reports an inserted event whole and a changed one
// field by field, ignoring the seqs shifted by the insertion.
func TestDiffEvents_Align(t *testing.T) {
	a := testlog.Read(t, filepath.Join(validateCases, "good.jsonl"))
	b := testlog.Read(t, filepath.Join(validateCases, "good.jsonl"))
	extra := format.Event{Kind: format.KindSnapshot, Epoch: 1, Job: "wordcount", Coordinators: map[string][]byte{"src": []byte("{}")}}
	b = append(b[:8], append([]format.Event{extra}, b[8:]...)...)
	for i := range b {
		b[i].Seq = int64(i + 1)
	}
	b[16].Worker = "w9" // map/0's finish, seq 17 in b, 16 in a
	r, err := replay.DiffEvents(&replay.SliceSource{Events: a}, &replay.SliceSource{Events: b})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := paths(r), "event snapshot; event subtask_finished map/0 worker"; got != want {
		t.Fatalf("paths = %s, want %s", got, want)
	}
	d := r.Differences[1]
	if string(d.A.(json.RawMessage)) != `"w1"` || string(d.B.(json.RawMessage)) != `"w9"` || d.SeqA != 16 || d.SeqB != 17 {
		t.Fatalf("worker difference = %+v", d)
	}
	if r.Differences[0].A != nil || r.Differences[0].SeqB != 9 {
		t.Fatalf("inserted snapshot = %+v, want only in b at seq 9", r.Differences[0])
	}
}

// TestDiffEvents_Error returns the error of a source.
func TestDiffEvents_Error(t *testing.T) {
	if _, err := replay.DiffEvents(errSource{format.ErrCorrupt}, &replay.SliceSource{}); err == nil {
		t.Fatal("DiffEvents ignored the error of log a")
	}
}
