package flink

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/jobevent/jobevent/pkg/format"
)

// haFixture is an HA cluster directory real Flink wrote (the harness's
// ZooKeeper HA runs), copied from testdata/flink.
type haFixture struct {
	dir, job, version string
	source            string // the source vertex
	kind              string
	assumptions       int
}

var haFixtures = []haFixture{
	{"testdata/ha/1.20.5/default", "f043fbf3716451f321f850445cb9f161", "1.20", "cbc357ccb763df2852fee8c4fc7d55f2", format.CoordinatorNoBatchSnapshot, 1},
	{"testdata/ha/2.3.0/default", "748595b8a8ac2bf3f050a2c021b904d2", "2.x", "cbc357ccb763df2852fee8c4fc7d55f2", format.CoordinatorBatchSnapshot, 0},
}

func TestReadHA_RealFlink(t *testing.T) {
	for _, f := range haFixtures {
		t.Run(f.version, func(t *testing.T) {
			fsys := os.DirFS(f.dir)
			info, err := ReadHA(context.Background(), fsys, f.job)
			if err != nil || info == nil {
				t.Fatalf("ReadHA = %v, %v", info, err)
			}
			if info.Version != f.version || info.Plan.JobID != f.job {
				t.Errorf("version %q job %s, want %q %s", info.Version, info.Plan.JobID, f.version, f.job)
			}
			_, seen, err := finishOrder(context.Background(), fsys, f.job)
			if err != nil || len(seen) == 0 {
				t.Fatalf("finishOrder: %v, %d vertices", err, len(seen))
			}
			for _, id := range seen {
				n := info.Plan.node(id.String())
				if n == nil {
					t.Errorf("vertex %s of the log is not in the HA plan", id)
					continue
				}
				if n.Name() == "" {
					t.Errorf("vertex %s has no name", id)
				}
			}
			if got := info.Coordinators[f.source]; got != f.kind {
				t.Errorf("coordinator of %s = %q, want %q (%v)", f.source, got, f.kind, info.Coordinators)
			}
			for id, kind := range info.Coordinators {
				if id != f.source && kind != format.CoordinatorNone {
					t.Errorf("coordinator of %s = %q, want none", id, kind)
				}
			}
			if len(info.Coordinators) != len(info.Plan.Nodes) {
				t.Errorf("coordinators = %v, want one per vertex", info.Coordinators)
			}
			if len(info.Assumptions) != f.assumptions {
				t.Errorf("assumptions = %q, want %d", info.Assumptions, f.assumptions)
			}
			for _, n := range info.Plan.Nodes {
				for _, in := range n.Inputs {
					if !hexID32(in.DataSet) || in.Pattern == "" || info.Plan.node(in.ID) == nil {
						t.Errorf("vertex %s input %+v: want a dataset, a pattern and a known producer", n.ID, in)
					}
				}
			}
			if info.Config["execution.runtime-mode"] != "BATCH" {
				t.Errorf("config = %v, want execution.runtime-mode BATCH", info.Config)
			}
		})
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// hashGenFile returns the plan file of a committed HashGen case, and its
// truth.
func hashGenFile(t *testing.T, version, c string) (string, []byte, string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", "hashgen", version, c, "submitted*"))
	if len(files) != 1 {
		t.Fatalf("case %s/%s: %d plan files", version, c, len(files))
	}
	truth := readFile(t, filepath.Join(filepath.Dir(files[0]), "truth.json"))
	job := string(truth[strings.Index(string(truth), `"job":"`)+7:][:32])
	return filepath.Base(files[0]), readFile(t, files[0]), job
}

func TestReadHA_SharedDir(t *testing.T) {
	n1, d1, j1 := hashGenFile(t, "1.20", "case-0000")
	n2, d2, j2 := hashGenFile(t, "2.x", "case-0001")
	fsys := fstest.MapFS{
		n1:                   {Data: d1},
		n2:                   {Data: d2},
		"submittedJobGraphx": {Data: []byte("not a plan")},
		"unrelated":          {Data: []byte("x")},
		j1 + "/job-events":   {Mode: os.ModeDir},
	}
	ctx := context.Background()
	for _, c := range []struct{ job, version string }{{j1, "1.20"}, {j2, "2.x"}} {
		info, err := ReadHA(ctx, fsys, c.job)
		if err != nil || info == nil {
			t.Fatalf("ReadHA(%s) = %v, %v", c.job, info, err)
		}
		if info.Plan.JobID != c.job || info.Version != c.version {
			t.Errorf("ReadHA(%s): job %s version %s, want %s", c.job, info.Plan.JobID, info.Version, c.version)
		}
	}
	if info, err := ReadHA(ctx, fsys, strings.Repeat("0", 32)); info != nil || err != nil {
		t.Errorf("ReadHA(unknown job) = %v, %v, want nil, nil", info, err)
	}
	if _, err := ReadHA(ctx, fsys, ""); err == nil {
		t.Error("ReadHA(\"\") over three plan files: no error")
	}
	if info, err := ReadHA(ctx, fstest.MapFS{}, j1); info != nil || err != nil {
		t.Errorf("ReadHA(empty dir) = %v, %v, want nil, nil", info, err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ReadHA(cancelled, fsys, j1); err == nil {
		t.Error("ReadHA with a cancelled context: no error")
	}
}

// TestReadHA_StreamGraphWithoutLog reads a 2.x StreamGraph whose job has no
// log yet: the ids follow creation order, and an assumption says so.
func TestReadHA_StreamGraphWithoutLog(t *testing.T) {
	name, data, job := hashGenFile(t, "2.x", "case-0002")
	info, err := ReadHA(context.Background(), fstest.MapFS{name: {Data: data}}, job)
	if err != nil || info == nil {
		t.Fatalf("ReadHA = %v, %v", info, err)
	}
	if len(info.Assumptions) != 1 || !strings.Contains(info.Assumptions[0].Text, "creation order") {
		t.Errorf("assumptions = %q, want one about creation order", info.Assumptions)
	}
	for _, n := range info.Plan.Nodes {
		if !hexID32(n.ID) {
			t.Errorf("node %q has id %q", n.Name(), n.ID)
		}
	}
}

func mustID(t *testing.T, s string) ID {
	t.Helper()
	id, err := parseID(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestOrderOf(t *testing.T) {
	a := mustID(t, "0000000000000000000000000000000a")
	b := mustID(t, "0000000000000000000000000000000b")
	fin := func(v ID, k int32) Event {
		return &VertexFinished{AttemptID: ExecutionAttemptID{Vertex: ExecutionVertexID{JobVertexID: v, SubtaskIndex: k}}}
	}
	events := []Event{
		&JobVertexInitialized{JobVertexID: a, Parallelism: 2},
		&JobVertexInitialized{JobVertexID: b, Parallelism: 1},
		fin(a, 0),
		&VertexReset{Vertices: []ExecutionVertexID{{JobVertexID: a, SubtaskIndex: 0}}},
		fin(a, 1),
		fin(b, 0), // b completes first: a's subtask 0 was reset
		fin(a, 0),
		fin(a, 1),
	}
	order, seen := orderOf(events)
	if len(order) != 2 || order[0] != b || order[1] != a {
		t.Errorf("order = %v, want [b a]", order)
	}
	if len(seen) != 2 || seen[0] != a {
		t.Errorf("seen = %v, want [a b]", seen)
	}
}

// TestResolve2x_Mismatch checks the fallback: a log naming a vertex the
// derived plan lacks leaves the plan without ids, with an assumption.
func TestResolve2x_Mismatch(t *testing.T) {
	name, data, _ := hashGenFile(t, "2.x", "case-0000")
	info, err := ParseHA(name, data)
	if err != nil {
		t.Fatal(err)
	}
	info.File = name
	stranger := mustID(t, "0123456789abcdef0123456789abcdef")
	info.apply2x(nil, []ID{stranger})
	if len(info.Assumptions) != 1 || !strings.Contains(info.Assumptions[0].Text, "differ from the log") {
		t.Fatalf("assumptions = %q", info.Assumptions)
	}
	for _, n := range info.Plan.Nodes {
		if n.ID != "" || n.Name() == "" {
			t.Errorf("node %+v: want no id and a name", n)
		}
	}
	if len(info.Coordinators) != 0 {
		t.Errorf("coordinators = %v, want none without ids", info.Coordinators)
	}
}

func TestReadHA_Shuffle(t *testing.T) {
	info, err := ReadHA(context.Background(), os.DirFS("testdata/ha/2.3.0/default"), "748595b8a8ac2bf3f050a2c021b904d2")
	if err != nil || info == nil {
		t.Fatalf("ReadHA = %v, %v", info, err)
	}
	if info.ShuffleSnapshotClass != "org.apache.flink.runtime.shuffle.EmptyShuffleMasterSnapshot" || info.Shuffle != ShuffleNetty {
		t.Errorf("shuffle %s from %q, want netty from EmptyShuffleMasterSnapshot", info.Shuffle, info.ShuffleSnapshotClass)
	}
	celeborn := fstest.MapFS{
		"submittedExecutionPlan8c0fbfa8974f": {Data: readFile(t, "testdata/ha/2.3.0/default/submittedExecutionPlan8c0fbfa8974f")},
		"shuffleMaster-snapshot/default":     {Data: celebornSnapshot()},
	}
	info, err = ReadHA(context.Background(), celeborn, "748595b8a8ac2bf3f050a2c021b904d2")
	if err != nil || info == nil {
		t.Fatalf("ReadHA = %v, %v", info, err)
	}
	if info.Shuffle != ShuffleCeleborn || !info.Shuffle.SurvivesLostTaskManager() {
		t.Errorf("shuffle = %s from %q, want celeborn", info.Shuffle, info.ShuffleSnapshotClass)
	}
}

// celebornSnapshot is a shuffle master snapshot file holding an object of
// a Celeborn class with no fields (as a stream writes one).
func celebornSnapshot() []byte {
	name := "org.apache.celeborn.plugin.flink.CelebornShuffleMasterSnapshot"
	s := []byte{0xac, 0xed, 0x00, 0x05, 0x73, 0x72, 0x00, byte(len(name))}
	s = append(s, name...)
	s = append(s, 0, 0, 0, 0, 0, 0, 0, 1, 0x02, 0, 0, 0x78, 0x70)
	return append([]byte{0, 0, 0, byte(len(s))}, s...)
}
