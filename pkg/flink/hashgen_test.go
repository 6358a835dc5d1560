package flink

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// hashGenTruth is truth.json as interop/flink's HashGen writes it.
type hashGenTruth struct {
	Version     string   `json:"version"`
	Job         string   `json:"job"`
	FinishOrder []string `json:"finish_order"`
	Vertices    []struct {
		ID          string `json:"id"`
		Name        string `json:"name"`
		Parallelism int32  `json:"parallelism"`
		Inputs      []struct {
			Producer string `json:"producer"`
			DataSet  string `json:"dataset"`
			Pattern  string `json:"pattern"`
			Ship     string `json:"ship"`
		} `json:"inputs"`
	} `json:"vertices"`
}

// checkHashGenCase reads one HashGen case and compares the plan ParseHA
// derives (for 2.x in the truth's finish order) with the JobGraph Flink
// built, vertex by vertex.
func checkHashGenCase(t *testing.T, dir string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "truth.json"))
	if err != nil {
		t.Fatal(err)
	}
	var truth hashGenTruth
	if err := json.Unmarshal(raw, &truth); err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "submitted*"))
	if len(files) != 1 {
		t.Fatalf("%s: %d submitted* files, want 1", dir, len(files))
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	info, err := ParseHA(filepath.Base(files[0]), data)
	if err != nil {
		t.Fatalf("%s: ParseHA: %v", dir, err)
	}
	if info.Version != truth.Version {
		t.Fatalf("%s: version %q, want %q", dir, info.Version, truth.Version)
	}
	if info.Version == "2.x" {
		var order []ID
		for _, s := range truth.FinishOrder {
			id, err := parseID(s)
			if err != nil {
				t.Fatal(err)
			}
			order = append(order, id)
		}
		if unknown := info.build2x(order); len(unknown) > 0 {
			t.Errorf("%s: finish order names vertices not built: %v", dir, unknown)
		}
	}
	if info.Plan.JobID != truth.Job {
		t.Errorf("%s: job %s, want %s", dir, info.Plan.JobID, truth.Job)
	}
	got := map[string]PlanNode{}
	for _, n := range info.Plan.Nodes {
		got[n.ID] = n
	}
	var want, have []string
	for _, v := range truth.Vertices {
		want = append(want, v.ID+" "+v.Name)
		n, ok := got[v.ID]
		if !ok {
			continue
		}
		have = append(have, n.ID+" "+n.Description)
		if n.Parallelism != v.Parallelism {
			t.Errorf("%s: vertex %s %q: parallelism %d, want %d", dir, v.ID, v.Name, n.Parallelism, v.Parallelism)
		}
		var gi, wi []string
		for _, in := range n.Inputs {
			gi = append(gi, in.ID+" "+in.Pattern+" "+in.ShipStrategy+" "+in.DataSet)
		}
		for _, in := range v.Inputs {
			ds := in.DataSet
			if truth.Version == "2.x" {
				ds = "" // 2.x datasets are derived from the producer's id (graph.go)
			}
			wi = append(wi, in.Producer+" "+in.Pattern+" "+in.Ship+" "+ds)
		}
		if strings.Join(gi, "\n") != strings.Join(wi, "\n") {
			t.Errorf("%s: vertex %s %q: inputs\n%s\nwant\n%s", dir, v.ID, v.Name, strings.Join(gi, "\n"), strings.Join(wi, "\n"))
		}
	}
	sort.Strings(want)
	sort.Strings(have)
	if strings.Join(have, "\n") != strings.Join(want, "\n") || len(info.Plan.Nodes) != len(truth.Vertices) {
		var all []string
		for _, n := range info.Plan.Nodes {
			all = append(all, n.ID+" "+n.Description)
		}
		sort.Strings(all)
		t.Errorf("%s: vertices\n%s\nwant\n%s", dir, strings.Join(all, "\n"), strings.Join(want, "\n"))
	}
}

func hashGenCases(t *testing.T, root string) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(root, "*", "case-*"))
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob(filepath.Join(root, "case-*"))
	return append(dirs, more...)
}

// TestHashGen checks the committed sample of HashGen cases (both Flink
// versions): every JobVertexID, name, parallelism and input.
func TestHashGen(t *testing.T) {
	dirs := hashGenCases(t, filepath.Join("testdata", "hashgen"))
	if len(dirs) == 0 {
		t.Fatal("no HashGen cases under testdata/hashgen")
	}
	for _, d := range dirs {
		checkHashGenCase(t, d)
	}
}

// TestHashGenAll checks a full HashGen output (interop/flink/hashgen.sh)
// named by JOBEVENT_FLINK_HASHGEN: a CI step, skipped without it.
func TestHashGenAll(t *testing.T) {
	root := os.Getenv("JOBEVENT_FLINK_HASHGEN")
	if root == "" {
		t.Skip("JOBEVENT_FLINK_HASHGEN is not set")
	}
	dirs := hashGenCases(t, root)
	if len(dirs) == 0 {
		t.Fatalf("no HashGen cases under %s", root)
	}
	for _, d := range dirs {
		checkHashGenCase(t, d)
	}
	t.Logf("%d cases", len(dirs))
}
