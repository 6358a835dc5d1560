package flink_test

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/internal/flinkfixture"
	"github.com/jobevent/jobevent/pkg/flink"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// truth is what the harness (interop/flink) recorded of a real Flink
// failover: which subtasks Flink deployed again, and the attempt each
// finished with.
type truth struct {
	FlinkVersion     string   `json:"flink_version"`
	Scenario         string   `json:"scenario"`
	Failovers        int      `json:"failovers"`
	LostTaskManagers []string `json:"lost_taskmanagers"`
	Vertices         []struct {
		ID                    string `json:"vertex_id"`
		Name                  string `json:"name"`
		Parallelism           int32  `json:"parallelism"`
		InitializedAtFailover bool   `json:"initialized_at_failover"`
	} `json:"vertices"`
	Subtasks []struct {
		Vertex   string `json:"vertex_id"`
		Subtask  int32  `json:"subtask"`
		RanAgain bool   `json:"ran_again"`
		Attempt  int32  `json:"attempt"`
	} `json:"subtasks"`
}

func readTruth(t *testing.T, sc flinkfixture.Scenario) *truth {
	data, err := os.ReadFile(sc.Truth)
	if err != nil {
		t.Fatal(err)
	}
	var tr truth
	if err := json.Unmarshal(data, &tr); err != nil {
		t.Fatalf("truth.json: %v", err)
	}
	return &tr
}

// options returns the side information an operator would give: the plan,
// and the coordinator kind of the sources whose enumerator does not
// support batch snapshots (the harness names them so).
func options(t *testing.T, sc flinkfixture.Scenario, tr *truth) flink.Options {
	data, err := os.ReadFile(sc.Plan)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := flink.ParsePlan(data)
	if err != nil {
		t.Fatal(err)
	}
	opts := flink.Options{Plan: plan, Coordinators: map[string]string{}}
	for _, v := range tr.Vertices {
		if strings.Contains(v.Name, "no batch snapshot") {
			opts.Coordinators[v.ID] = format.CoordinatorNoBatchSnapshot
		}
	}
	return opts
}

// fold reads a Flink log into a State set to the Flink profile.
func fold(t *testing.T, l *flink.Log) *replay.State {
	src, err := l.Events()
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	s, err := replay.Fold(src, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.Skipped() > 0 {
		t.Fatalf("the fold skipped %d events: %v", s.Skipped(), s.SkipErrors())
	}
	s.SetProfile(replay.ProfileFlink)
	return s
}

// TestPredict_RealFlink: for every harness scenario, the dry run of the
// job-events directory copied at the (last) failover says, subtask by
// subtask, what Flink did after it: kept (not deployed again) or rerun,
// and with which attempt.
func TestPredict_RealFlink(t *testing.T) {
	for _, sc := range flinkfixture.Scenarios(t) {
		t.Run(sc.Key(), func(t *testing.T) {
			tr := readTruth(t, sc)
			l, err := flink.Open(os.DirFS(sc.JobEvents), options(t, sc, tr))
			if err != nil {
				t.Fatal(err)
			}
			s := fold(t, l)
			avail, err := replay.BuildAvailability(s, replay.AvailabilityOptions{LostWorkers: tr.LostTaskManagers})
			if err != nil {
				t.Fatal(err)
			}
			plan := replay.Plan(s, avail)
			got := map[string]string{}
			for _, st := range plan.Subtasks {
				got[fmt.Sprintf("%s/%d", st.Vertex, st.Subtask)] = decision(st.Decision != replay.DecisionKeep, st.Attempt)
			}
			var diffs []string
			for _, st := range tr.Subtasks {
				key := fmt.Sprintf("%s/%d", st.Vertex, st.Subtask)
				if want := decision(st.RanAgain, st.Attempt); got[key] != want {
					diffs = append(diffs, fmt.Sprintf("%s: predicted %q, Flink %q", key, got[key], want))
				}
				delete(got, key)
			}
			for key, d := range got {
				diffs = append(diffs, fmt.Sprintf("%s: predicted %q, not in the truth", key, d))
			}
			sort.Strings(diffs)
			checkDiffs(t, sc, diffs)
		})
	}
}

// checkDiffs fails the test when the dry run differs from what Flink did,
// unless the scenario is listed as known wrong (then it skips, and fails
// when the listed scenario is predicted right, unless it is unstable: take
// it off the list).
func checkDiffs(t *testing.T, sc flinkfixture.Scenario, diffs []string) {
	t.Helper()
	reason, unstable := sc.KnownWrong()
	switch {
	case len(diffs) > 0 && reason != "":
		t.Skipf("known wrong (%s): the dry run differs from what Flink did:\n  %s", reason, strings.Join(diffs, "\n  "))
	case len(diffs) > 0:
		t.Fatalf("%s: the dry run differs from what Flink did:\n  %s", sc.Key(), strings.Join(diffs, "\n  "))
	case reason != "" && !unstable:
		t.Errorf("%s is listed as known wrong (%s) but the dry run equals what Flink did: take it off the list", sc.Key(), reason)
	}
}

func decision(rerun bool, attempt int32) string {
	if rerun {
		return fmt.Sprintf("rerun attempt %d", attempt)
	}
	return fmt.Sprintf("keep attempt %d", attempt)
}

// TestGraph_RealFlink: the graph derived from a real log has the plan's
// vertices with their parallelism, and an edge for every input of every
// vertex initialized at the failover, from the plan's producer.
func TestGraph_RealFlink(t *testing.T) {
	for _, sc := range flinkfixture.Scenarios(t) {
		t.Run(sc.Key(), func(t *testing.T) {
			tr := readTruth(t, sc)
			opts := options(t, sc, tr)
			l, err := flink.Open(os.DirFS(sc.JobEvents), opts)
			if err != nil {
				t.Fatal(err)
			}
			g := l.Graph()
			ids := map[string]format.Vertex{}
			for _, v := range g.Vertices {
				ids[v.ID] = v
			}
			edges := map[string]bool{}
			for _, e := range g.Edges {
				edges[e.From+">"+e.To] = true
			}
			s := fold(t, l)
			for _, n := range opts.Plan.Nodes {
				v, ok := ids[n.ID]
				if !ok {
					t.Errorf("plan vertex %s (%s) missing from the derived graph", n.ID, n.Name())
					continue
				}
				if v.Operator != n.Name() {
					t.Errorf("vertex %s named %q, want %q", n.ID, v.Operator, n.Name())
				}
				p, initialized := s.Parallelism(n.ID)
				if !initialized {
					continue
				}
				if p != n.Parallelism {
					t.Errorf("vertex %s parallelism %d, plan %d", n.ID, p, n.Parallelism)
				}
				for _, in := range n.Inputs {
					if !edges[in.ID+">"+n.ID] {
						t.Errorf("edge %s -> %s of the plan missing from the derived graph", in.ID, n.ID)
					}
				}
			}
		})
	}
}

// TestEvents_RealFlink: the events of a real log fold without a skipped
// event, seqs count from 1 without a gap, and each record's source key
// names its file and offset.
func TestEvents_RealFlink(t *testing.T) {
	for _, sc := range flinkfixture.Scenarios(t) {
		dir := sc.JobEvents
		l, err := flink.Open(os.DirFS(dir), flink.Options{})
		if err != nil {
			t.Fatal(err)
		}
		src, err := l.Events()
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		for {
			e, err := src.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			n++
			if e.Seq != n {
				t.Fatalf("%s: event %d has seq %d", dir, n, e.Seq)
			}
			if n > 2 && !strings.HasPrefix(src.Key(), "events.") {
				t.Fatalf("%s: seq %d key %q, want events.N@offset", dir, n, src.Key())
			}
		}
		src.Close()
	}
}

// TestValidate_RealFlink: validate's rules that apply to a Flink log find
// no error in any harness log (every one is a valid job), and the graph
// names every dataset its initialized vertices read (the REST plan names
// none for the edges into the others).
func TestValidate_RealFlink(t *testing.T) {
	skipped := map[string]bool{replay.RuleFinishWithoutStart: true, replay.RuleAttemptOverlap: true, replay.RuleSnapshotCoordinator: true}
	for _, sc := range flinkfixture.Scenarios(t) {
		tr := readTruth(t, sc)
		l, err := flink.Open(os.DirFS(sc.JobEvents), options(t, sc, tr))
		if err != nil {
			t.Fatal(err)
		}
		src, err := l.Events()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range replay.Validate(src, replay.ValidateOptions{}) {
			if f.Severity == replay.SeverityError && !skipped[f.Rule] {
				t.Errorf("%s: %s", sc.Key(), f)
			}
		}
		src.Close()
		for _, e := range l.Graph().Edges {
			if v := l.Graph().Vertex(e.To); e.Dataset == "" && v != nil && v.Parallelism > 0 {
				t.Errorf("%s: edge %s -> %s names no dataset", sc.Key(), e.From, e.To)
			}
		}
	}
}
