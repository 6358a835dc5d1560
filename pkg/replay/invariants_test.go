package replay_test

import (
	"testing"

	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// reads reports whether consumer subtask j of n reads producer subtask i
// of m, straight from the formulas of docs/recovery.md (Partitions).
func reads(pattern string, i, m, j, n int32) bool {
	if pattern != format.PatternPointwise {
		return true
	}
	if m >= n {
		lo, hi := int64(j)*int64(m)/int64(n), (int64(j)+1)*int64(m)/int64(n)
		return int64(i) >= lo && int64(i) < hi
	}
	ceil := func(a, b int64) int64 { return (a + b - 1) / b }
	lo, hi := ceil(int64(i)*int64(n), int64(m)), ceil((int64(i)+1)*int64(n), int64(m))
	return int64(j) >= lo && int64(j) < hi
}

// checkInvariants checks the sanity properties (docs/recovery.md) of a plan.
func checkInvariants(t *testing.T, st *replay.State, avail replay.Availability, plan *replay.RecoveryPlan) {
	t.Helper()
	g := st.Graph()
	if g == nil {
		return
	}
	rows := make(map[format.SubtaskRef]replay.SubtaskPlan)
	var sum replay.Summary
	for _, r := range plan.Subtasks {
		ref := format.SubtaskRef{Vertex: r.Vertex, Subtask: r.Subtask}
		if _, dup := rows[ref]; dup {
			t.Fatalf("%s has two decisions", ref)
		}
		rows[ref] = r
		switch r.Decision {
		case replay.DecisionKeep:
			sum.Keep++
		case replay.DecisionRerun:
			sum.Rerun++
		case replay.DecisionRun:
			sum.Run++
		}
		if r.Reasons == nil || (r.Decision == replay.DecisionRerun) != (len(r.Reasons) > 0) {
			t.Fatalf("%s %s has reasons %v", ref, r.Decision, r.Reasons)
		}
	}
	if sum != plan.Summary {
		t.Fatalf("summary = %+v, counted %+v", plan.Summary, sum)
	}
	n := 0
	for _, v := range g.Vertices {
		p, ok := st.Parallelism(v.ID)
		for i := int32(0); i < p; i++ {
			if _, has := rows[format.SubtaskRef{Vertex: v.ID, Subtask: i}]; !has {
				t.Fatalf("%s/%d has no decision", v.ID, i)
			}
		}
		if ok {
			n += int(p)
		}
	}
	if n != len(plan.Subtasks) {
		t.Fatalf("plan has %d subtasks, the initialized vertices %d", len(plan.Subtasks), n)
	}
	kept := func(v string, i int32) bool {
		return rows[format.SubtaskRef{Vertex: v, Subtask: i}].Decision == replay.DecisionKeep
	}
	checkKeptOutputs(t, st, avail, kept)
	checkKeptInputs(t, st, kept)
	checkResets(t, st, plan)
}

// checkKeptOutputs: a kept subtask's needed outputs are available.
func checkKeptOutputs(t *testing.T, st *replay.State, avail replay.Availability, kept func(string, int32) bool) {
	t.Helper()
	for _, f := range st.Finished() {
		if !kept(f.Vertex, f.Subtask) {
			continue
		}
		m, _ := st.Parallelism(f.Vertex)
		for _, p := range f.Partitions {
			n, ok := st.Parallelism(p.Consumer)
			needed := !ok
			for j := int32(0); ok && j < n && !needed; j++ {
				needed = reads(pattern(st.Graph(), f.Vertex, p.Consumer), f.Subtask, m, j, n) && !kept(p.Consumer, j)
			}
			if needed && !avail[p.PartitionID] {
				t.Fatalf("kept %s needs partition %+v, which is not available", f.SubtaskRef, p.PartitionID)
			}
		}
	}
}

// checkKeptInputs: a kept subtask reads only kept producers.
func checkKeptInputs(t *testing.T, st *replay.State, kept func(string, int32) bool) {
	t.Helper()
	for _, e := range st.Graph().Edges {
		m, ok1 := st.Parallelism(e.From)
		n, ok2 := st.Parallelism(e.To)
		if !ok1 || !ok2 {
			continue
		}
		for j := int32(0); j < n; j++ {
			if !kept(e.To, j) {
				continue
			}
			for i := int32(0); i < m; i++ {
				if reads(e.Pattern, i, m, j, n) && !kept(e.From, i) {
					t.Fatalf("kept %s/%d reads %s/%d, which reruns", e.To, j, e.From, i)
				}
			}
		}
	}
}

// checkResets: Resets are exactly the finished entries that rerun.
func checkResets(t *testing.T, st *replay.State, plan *replay.RecoveryPlan) {
	t.Helper()
	inMap := make(map[format.SubtaskRef]bool)
	for _, f := range st.Finished() {
		inMap[f.SubtaskRef] = true
	}
	want := 0
	for _, r := range plan.Subtasks {
		if r.Decision == replay.DecisionRerun && inMap[format.SubtaskRef{Vertex: r.Vertex, Subtask: r.Subtask}] {
			want++
		}
	}
	resets := plan.Resets()
	for _, r := range resets {
		if !inMap[r] {
			t.Fatalf("Resets has %s, which is not finished", r)
		}
	}
	if len(resets) != want {
		t.Fatalf("Resets has %d subtasks, want %d", len(resets), want)
	}
}

func pattern(g *format.Graph, from, to string) string {
	for _, e := range g.Edges {
		if e.From == from && e.To == to {
			return e.Pattern
		}
	}
	return ""
}
