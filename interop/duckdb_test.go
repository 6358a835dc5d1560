package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/format"
)

// duckOutput is what duckdb/check.mjs prints.
type duckOutput struct {
	Statements []struct {
		SQL  string           `json:"sql"`
		Rows []map[string]any `json:"rows"`
	} `json:"statements"`
	Log    []map[string]any `json:"log"`
	Stored any              `json:"stored"`
}

// TestDuckDB runs the queries of docs/format.md §5 with DuckDB over two
// logs — one written by "jobevent import" with fenced rows, one imported
// in small segments plus a compacted segment covering some of them (a
// compaction that crashed before deleting its parts) — and checks that
// the view returns exactly the events jobevent reads, each seq once, in
// order, and that the raw queries count the rows as stored. It needs
// node and interop/duckdb/node_modules ("npm ci" there); without them it
// is skipped, except in CI (CI=true), where it fails.
func TestDuckDB(t *testing.T) {
	node := requireDuckDB(t)
	bin := buildJobevent(t)
	fenced := filepath.Join(t.TempDir(), "fenced")
	runOK(t, bin, "import", "../testdata/logs/zombie.jsonl", fenced)
	compacted := filepath.Join(t.TempDir(), "compacted")
	importCompacted(t, "../testdata/logs/zombie.jsonl", compacted)
	for name, dir := range map[string]string{"fenced": fenced, "compacted": compacted} {
		t.Run(name, func(t *testing.T) {
			out := runDuckDB(t, node, dir)
			events := dumpEvents(t, bin, dir)
			checkView(t, out, events)
			checkRaw(t, out, dir, len(events))
		})
	}
}

func requireDuckDB(t *testing.T) string {
	t.Helper()
	skip := func(msg string) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s; CI must run this test", msg)
		}
		t.Skip(msg + ": skipping the DuckDB check")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		skip("node is not installed")
	}
	if _, err := os.Stat("duckdb/node_modules/@duckdb/node-api"); err != nil {
		skip("@duckdb/node-api is not installed (run: cd interop/duckdb && npm ci)")
	}
	return node
}

// buildJobevent builds the jobevent command of the parent module.
func buildJobevent(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "jobevent")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/jobevent")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/jobevent: %v\n%s", err, out)
	}
	return bin
}

func runOK(t *testing.T, name string, args ...string) []byte {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes()
}

// importCompacted imports a JSONL log in segments of 4 events, then
// writes one segment covering the second and third segments of the last
// epoch, as compaction does before it deletes the parts.
func importCompacted(t *testing.T, jsonl, dir string) {
	t.Helper()
	ctx := context.Background()
	f, err := os.Open(jsonl)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	log, err := blob.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	if _, err := blob.Import(ctx, log, format.NewJSONReader(f), blob.ImportOptions{SegmentEvents: 4}); err != nil {
		t.Fatal(err)
	}
	segs, err := log.Segments(ctx)
	if err != nil {
		t.Fatal(err)
	}
	last := segs[len(segs)-1].Epoch
	var parts []blob.SegmentInfo
	for _, s := range segs {
		if s.Epoch == last {
			parts = append(parts, s)
		}
	}
	if len(parts) < 3 {
		t.Fatalf("epoch %d has %d segments, want at least 3", last, len(parts))
	}
	var cover []format.Event
	for _, p := range parts[1:3] {
		sr, err := log.OpenSegment(ctx, p.Key)
		if err != nil {
			t.Fatal(err)
		}
		for {
			e, err := sr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			cover = append(cover, e)
		}
	}
	if _, err := log.WriteSegment(ctx, cover); err != nil {
		t.Fatal(err)
	}
}

func runDuckDB(t *testing.T, node, dir string) duckOutput {
	t.Helper()
	doc, err := filepath.Abs("../docs/format.md")
	if err != nil {
		t.Fatal(err)
	}
	var out duckOutput
	if err := json.Unmarshal(runOK(t, node, "duckdb/check.mjs", doc, dir), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// dumpEvents returns the events "jobevent dump" reads from dir.
func dumpEvents(t *testing.T, bin, dir string) []format.Event {
	t.Helper()
	r := format.NewJSONReader(bytes.NewReader(runOK(t, bin, "dump", dir, "--format", "json")))
	var events []format.Event
	for {
		e, err := r.Next()
		if errors.Is(err, io.EOF) {
			return events
		}
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
	}
}

// str renders a JSON value of DuckDB's rows: numbers may come as strings
// (BIGINT) or numbers; NULL is "NULL".
func str(v any) string {
	if v == nil {
		return "NULL"
	}
	return fmt.Sprint(v)
}

// statement returns the rows of the documented statement that starts
// with prefix.
func statement(t *testing.T, out duckOutput, prefix string) []map[string]any {
	t.Helper()
	for _, s := range out.Statements {
		if strings.HasPrefix(s.SQL, prefix) {
			return s.Rows
		}
	}
	t.Fatalf("docs/format.md has no statement starting with %q", prefix)
	return nil
}

// checkView compares the documented view with the events jobevent reads.
func checkView(t *testing.T, out duckOutput, events []format.Event) {
	t.Helper()
	var got, want []string
	for _, r := range out.Log {
		got = append(got, fmt.Sprintf("%s/%s/%s/%s", str(r["seq"]), str(r["epoch"]), str(r["kind"]), str(r["vertex"])))
	}
	finished := make(map[string]int)
	var perEdge []string
	for _, e := range events {
		vertex := "NULL"
		switch e.Kind {
		case format.KindVertexInitialized, format.KindSubtaskStarted, format.KindSubtaskFinished, format.KindSubtaskFailed:
			vertex = e.Vertex
		}
		want = append(want, fmt.Sprintf("%d/%d/%s/%s", e.Seq, e.Epoch, e.Kind, vertex))
		if e.Kind == format.KindSubtaskFinished {
			finished[e.Vertex]++
			perEdge = append(perEdge, fmt.Sprintf("%d %s %d %d %v", e.Seq, e.Vertex, e.Subtask, e.Attempt, e.Partitions == nil))
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the view reads\n%s\nwant what jobevent reads\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	counts := make(map[string]int)
	for _, r := range statement(t, out, "SELECT vertex, count(*) FROM log") {
		var n int
		fmt.Sscan(str(r["count_star()"]), &n)
		counts[str(r["vertex"])] = n
	}
	if !reflect.DeepEqual(counts, finished) {
		t.Fatalf("finished per vertex through the view = %v, want %v", counts, finished)
	}
	var gotEdge []string
	for _, r := range statement(t, out, "SELECT seq, vertex, subtask, attempt, partitions IS NULL") {
		gotEdge = append(gotEdge, fmt.Sprintf("%s %s %s %s %s", str(r["seq"]), str(r["vertex"]), str(r["subtask"]), str(r["attempt"]), str(r["one_per_edge"])))
	}
	if strings.Join(gotEdge, "\n") != strings.Join(perEdge, "\n") {
		t.Fatalf("finished events through the view:\n%s\nwant\n%s", strings.Join(gotEdge, "\n"), strings.Join(perEdge, "\n"))
	}
}

// checkRaw compares the raw queries over the segments with the rows the
// segments hold, read with pkg/format; read is the number of events
// jobevent reads, which must be fewer.
func checkRaw(t *testing.T, out duckOutput, dir string, read int) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "events", "*.parquet"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no segments in %s: %v", dir, err)
	}
	stored, finished := 0, make(map[string]int)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sr, err := format.OpenSegment(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for {
			e, err := sr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			stored++
			if e.Kind == format.KindSubtaskFinished {
				finished[e.Vertex]++
			}
		}
	}
	if stored <= read {
		t.Fatalf("%d rows stored for %d read: the log has no fenced rows or covered segments to skip", stored, read)
	}
	if str(out.Stored) != fmt.Sprint(stored) {
		t.Fatalf("DuckDB counts %s stored rows, want %d", str(out.Stored), stored)
	}
	counts := make(map[string]int)
	for _, r := range statement(t, out, "SELECT vertex, count(*) FROM 'events/*.parquet'") {
		var n int
		fmt.Sscan(str(r["count_star()"]), &n)
		counts[str(r["vertex"])] = n
	}
	if !reflect.DeepEqual(counts, finished) {
		t.Fatalf("raw finished per vertex = %v, want %v as stored", counts, finished)
	}
}
