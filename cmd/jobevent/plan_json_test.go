package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobevent/jobevent/internal/loggen"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// encoderJSON is the reference rendering of a plan: encoding/json through
// writeJSON, what replay --dry-run --format json printed before
// writePlanJSON streamed it.
func encoderJSON(t *testing.T, p *replay.RecoveryPlan) string {
	t.Helper()
	var b bytes.Buffer
	if err := writeJSON(&b, p); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestReplayPlanJSON_Strings(t *testing.T) {
	odd := "a<b>&c\"d\\e\n\t\x01\x7f é \u2028\u2029 \xff end"
	cases := map[string]*replay.RecoveryPlan{
		"nil slices": {Job: "j"},
		"empty":      {Job: "", Vertices: []replay.VertexPlan{}, Subtasks: []replay.SubtaskPlan{}},
		"odd strings": {
			Job: odd, LastSeq: -7, Epoch: 1 << 30,
			Vertices: []replay.VertexPlan{
				{Vertex: odd, Parallelism: 3, Initialized: true, Deferred: true},
				{Vertex: "later", Parallelism: 9},
			},
			Subtasks: []replay.SubtaskPlan{
				{Vertex: odd, Subtask: 2, Decision: replay.DecisionRerun, Attempt: 4, Reasons: []string{odd, replay.ReasonPartitionLost}},
				{Vertex: "v", Decision: replay.Decision(odd)},
				{Vertex: "v", Subtask: 1, Decision: replay.DecisionKeep, Reasons: []string{}},
			},
			Summary: replay.Summary{Keep: 1, Rerun: 2, Run: 3},
			Ended:   odd, FullRestart: odd,
		},
	}
	for name, p := range cases {
		t.Run(name, func(t *testing.T) {
			var got bytes.Buffer
			if err := replay.WritePlanJSON(&got, p, nil); err != nil {
				t.Fatal(err)
			}
			if want := encoderJSON(t, p); got.String() != want {
				t.Fatalf("writePlanJSON =\n%s\nwant\n%s", got.String(), want)
			}
		})
	}
}

func TestReplayPlanJSON_WriteError(t *testing.T) {
	p := &replay.RecoveryPlan{Job: "j", Subtasks: make([]replay.SubtaskPlan, 10_000)}
	err := replay.WritePlanJSON(failingWriter{}, p, nil)
	if !errors.Is(err, errDiskFull) {
		t.Fatalf("error = %v, want %v", err, errDiskFull)
	}
}

var errDiskFull = errors.New("disk full")

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errDiskFull }

// TestReplayDryRun_JSONDifferential runs replay --dry-run --format json on
// generated logs of several shapes and sizes, with and without what-if
// flags, and compares its bytes with the reference: the state folded from
// the generated events, A built by BuildAvailability, PlanRecovery, and
// encoding/json.
func TestReplayDryRun_JSONDifferential(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bench := loggen.BenchOptions(3, 2000, 20_000)
	wideStopped := loggen.WideOptions(8000)
	wideStopped.StopAfter = 6000
	shapes := map[string]loggen.Options{
		"small":      {Seed: 1},
		"failures":   {Seed: 2, Vertices: 7, Sources: 2, MaxParallelism: 6, FailureRate: 0.2, PartitionLossRate: 0.1, Failovers: 2, LoseWorkerOnFailover: true},
		"stopped":    {Seed: 5, Vertices: 6, MaxParallelism: 12, FailureRate: 0.1, AutoFraction: 0.5, StopAfter: 400},
		"bench":      bench,
		"wide":       wideStopped,
		"wide-ended": loggen.WideOptions(2000),
	}
	for name, o := range shapes {
		t.Run(name, func(t *testing.T) {
			events := loggen.Events(o)
			url := importGenerated(t, "replay-diff-"+name, o)
			g := events[0].Graph
			src, mid := g.Vertices[0].ID, events[len(events)/2].Seq
			avail := availableFile(t, events)
			for _, flags := range [][]string{
				nil,
				{"--lost-worker", "w1"},
				{"--lost-worker", "w2", "--lost-worker", "nobody"},
				{"--lost-partition", src + "/0"},
				{"--no-workers"},
				{"--available", avail},
				{"--available", avail, "--lost-worker", "w3"},
				{"--at", fmt.Sprint(mid)},
				{"--at", fmt.Sprint(mid), "--lost-worker", "w1"},
			} {
				args := append([]string{"jobevent", "replay", url, "--dry-run", "--format", "json"}, flags...)
				var out, errb bytes.Buffer
				if code := runMain(ctx, args, strings.NewReader(""), &out, &errb); code != 0 {
					t.Fatalf("%v: exit %d: %s", flags, code, errb.String())
				}
				if want := encoderJSON(t, referencePlan(t, events, flags)); out.String() != want {
					t.Fatalf("%v: the output differs from the reference (%d bytes, want %d)", flags, out.Len(), len(want))
				}
			}
		})
	}
}

// referencePlan computes the plan of flags the way replay --dry-run did
// before it was made faster.
func referencePlan(t *testing.T, events []format.Event, flags []string) *replay.RecoveryPlan {
	t.Helper()
	var o replay.AvailabilityOptions
	var at int64
	for k := 0; k < len(flags); k++ {
		switch flags[k] {
		case "--lost-worker":
			k++
			o.LostWorkers = append(o.LostWorkers, flags[k])
		case "--lost-partition":
			k++
			ref, err := parseSubtaskRef(flags[k])
			if err != nil {
				t.Fatal(err)
			}
			o.LostPartitions = append(o.LostPartitions, ref)
		case "--no-workers":
			o.NoWorkers = true
		case "--available":
			k++
			locs, err := readAvailable(flags[k])
			if err != nil {
				t.Fatal(err)
			}
			o.Available = locs
		case "--at":
			k++
			fmt.Sscan(flags[k], &at)
		}
	}
	st, err := replay.Fold(&replay.SliceSource{Events: events}, at)
	if err != nil {
		t.Fatal(err)
	}
	avail, err := replay.BuildAvailability(st, o)
	if err != nil {
		t.Fatal(err)
	}
	return replay.PlanRecovery(st, avail, replay.PlanOptions{})
}

// availableFile writes an --available file listing every other partition
// of the subtasks a plan of the whole log keeps.
func availableFile(t *testing.T, events []format.Event) string {
	t.Helper()
	st, err := replay.Fold(&replay.SliceSource{Events: events}, 0)
	if err != nil {
		t.Fatal(err)
	}
	locs := []replay.PartitionLoc{}
	n := 0
	for _, k := range replay.Plan(st, replay.AllRecorded(st)).Kept() {
		for _, p := range k.Partitions {
			if n++; n%2 == 0 {
				locs = append(locs, p)
			}
		}
	}
	data, err := json.Marshal(locs)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "available.json")
	if err := os.WriteFile(path, data, 0o666); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReplayPlanJSON_Names: with names, every row of a named vertex has a
// "name" after its "vertex", as encoding/json writes an omitempty field
// there; rows of vertices without a name have none.
func TestReplayPlanJSON_Names(t *testing.T) {
	p := &replay.RecoveryPlan{Job: "j",
		Vertices: []replay.VertexPlan{{Vertex: "a1", Parallelism: 2, Initialized: true}, {Vertex: "b2"}},
		Subtasks: []replay.SubtaskPlan{{Vertex: "a1", Decision: replay.DecisionKeep, Reasons: []string{}},
			{Vertex: "a1", Subtask: 1, Decision: replay.DecisionRerun, Attempt: 1, Reasons: []string{replay.ReasonPartitionLost}}},
		Summary: replay.Summary{Keep: 1, Rerun: 1}}
	names := map[string]string{"a1": "Source: numbers -> src"}
	type vertex struct {
		Vertex      string `json:"vertex"`
		Name        string `json:"name,omitempty"`
		Parallelism *int32 `json:"parallelism"`
		Initialized bool   `json:"initialized"`
		Deferred    bool   `json:"deferred"`
	}
	type subtask struct {
		Vertex   string          `json:"vertex"`
		Name     string          `json:"name,omitempty"`
		Subtask  int32           `json:"subtask"`
		Decision replay.Decision `json:"decision"`
		Attempt  int32           `json:"attempt"`
		Reasons  []string        `json:"reasons"`
	}
	want := struct {
		Job      string         `json:"job"`
		LastSeq  int64          `json:"last_seq"`
		Epoch    int32          `json:"epoch"`
		Vertices []vertex       `json:"vertices"`
		Subtasks []subtask      `json:"subtasks"`
		Summary  replay.Summary `json:"summary"`
	}{Job: "j", Summary: p.Summary}
	for _, v := range p.Vertices {
		fv := vertex{Vertex: v.Vertex, Name: names[v.Vertex], Initialized: v.Initialized}
		if v.Initialized {
			fv.Parallelism = &v.Parallelism
		}
		want.Vertices = append(want.Vertices, fv)
	}
	for _, s := range p.Subtasks {
		want.Subtasks = append(want.Subtasks, subtask{s.Vertex, names[s.Vertex], s.Subtask, s.Decision, s.Attempt, s.Reasons})
	}
	var enc, got bytes.Buffer
	if err := writeJSON(&enc, want); err != nil {
		t.Fatal(err)
	}
	if err := replay.WritePlanJSON(&got, p, names); err != nil {
		t.Fatal(err)
	}
	if got.String() != enc.String() {
		t.Fatalf("WritePlanJSON with names =\n%s\nwant\n%s", got.String(), enc.String())
	}
}
