package runtime

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/internal/testenv"
)

type collect struct{ records []Record }

func (c *collect) Emit(r Record) error { c.records = append(c.records, r); return nil }

// readAllSplits runs an enumerator to the end over parallelism subtasks
// and returns what each subtask read.
func readAllSplits(t *testing.T, src Source, parallelism int, dir string) [][]Record {
	t.Helper()
	ctx := testenv.Context(t)
	enum, err := src.NewEnumerator(parallelism)
	if err != nil {
		t.Fatal(err)
	}
	buckets := newBucketOpener(dir)
	defer buckets.Close()
	if err := enum.Start(ctx, &VertexContext{Job: "j", Vertex: "s", buckets: buckets}); err != nil {
		t.Fatal(err)
	}
	out := make([][]Record, parallelism)
	for i := 0; i < parallelism; i++ {
		task := &Task{Job: "j", Vertex: "s", Subtask: i, buckets: buckets}
		c := &collect{}
		for {
			split, ok, err := enum.NextSplit(i)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			if err := src.ReadSplit(ctx, task, split, c); err != nil {
				t.Fatal(err)
			}
		}
		out[i] = c.records
	}
	return out
}

// TestTextSource_Splits checks that every line is read exactly once, for
// split sizes from one byte to more than a file, with lines of every
// length, a missing final newline and CRLF endings.
func TestTextSource_Splits(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"a.txt":   "one\ntwo two\n\nthree three three\nfour\n",
		"b.txt":   "no newline at the end",
		"c.txt":   "crlf\r\nline\r\n",
		".hidden": "skipped\n",
	}
	var want []string
	for name, text := range files {
		os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
		if !strings.HasPrefix(name, ".") {
			for _, l := range strings.SplitAfter(text, "\n") {
				if l != "" {
					want = append(want, strings.TrimRight(l, "\r\n"))
				}
			}
		}
	}
	sort.Strings(want)
	for _, size := range []int{1, 2, 3, 5, 8, 13, 40, 1000} {
		for _, p := range []int{1, 3} {
			op, err := newTextSource(Args{"input": dir, "split_size": int64(size)})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, recs := range readAllSplits(t, op.(Source), p, "") {
				for _, r := range recs {
					got = append(got, r.Value.Text())
				}
			}
			sort.Strings(got)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("split size %d, parallelism %d: lines\n%q\nwant\n%q", size, p, got, want)
			}
		}
	}
}

func TestSequence_Splits(t *testing.T) {
	t.Parallel()
	op, err := newSequence(Args{"from": int64(-5), "to": int64(94), "splits": int64(7)})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]int{}
	for i, recs := range readAllSplits(t, op.(Source), 3, "") {
		for _, r := range recs {
			seen[r.Value.Int64()]++
			if r.Key != r.Value {
				t.Fatalf("record %+v: want key = value", r)
			}
		}
		if len(recs) == 0 {
			t.Errorf("subtask %d read nothing", i)
		}
	}
	for n := int64(-5); n <= 94; n++ {
		if seen[n] != 1 {
			t.Fatalf("%d read %d times", n, seen[n])
		}
	}
	if len(seen) != 100 {
		t.Fatalf("read %d numbers, want 100", len(seen))
	}
}

// TestSplitAssigner_SnapshotRestore: a restored enumerator hands out
// exactly the splits not assigned at the snapshot, plus those given back.
func TestSplitAssigner_SnapshotRestore(t *testing.T) {
	t.Parallel()
	op, _ := newSequence(Args{"to": int64(99), "splits": int64(6)})
	src := op.(Source)
	enum, _ := src.NewEnumerator(2)
	enum.Start(testenv.Context(t), nil)
	first, _, _ := enum.NextSplit(0)  // split 0 → subtask 0
	second, _, _ := enum.NextSplit(1) // split 1 → subtask 1
	snap, err := enum.(BatchSnapshotter).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	restored, _ := src.NewEnumerator(2)
	if err := restored.(BatchSnapshotter).Restore(snap); err != nil {
		t.Fatal(err)
	}
	restored.AddSplitsBack(1) // subtask 1 is rerun: split 1 comes back
	var got [][]byte
	for {
		s, ok, _ := restored.NextSplit(1)
		if !ok {
			break
		}
		got = append(got, s)
	}
	if len(got) != 3 || string(got[0]) != string(second) {
		t.Fatalf("subtask 1 gets %d splits starting %s, want 3 starting with %s", len(got), got[0], second)
	}
	if s, _, _ := restored.NextSplit(0); string(s) == string(first) {
		t.Fatal("subtask 0's split handed out again though it was kept")
	}
	bad, _ := src.NewEnumerator(3)
	if err := bad.(BatchSnapshotter).Restore(snap); err == nil {
		t.Fatal("restore of a snapshot taken at another parallelism succeeded")
	}
}
