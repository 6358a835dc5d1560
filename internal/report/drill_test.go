package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/pkg/runtime/drill"
)

// drillResult is a small drill result: two points, two faults, one case
// failed.
func drillResult() *drill.Result {
	r := &drill.Result{
		Job: "wc<script>", Spec: "jobs/wc.yaml", Seed: 7, Events: 40,
		Faults: []drill.Fault{drill.FaultMaster, drill.FaultWorker},
		Points: []drill.Point{{Seq: 3, Event: "vertex_initialized src", Boundary: true}, {Seq: 20, Event: "subtask_finished count/1"}},
		Cases: []drill.Case{
			{Point: 3, Fault: drill.FaultMaster, Match: true, OutputIdentical: true, Predicted: []string{"src/0"}, Actual: []string{"src/0"}, Problems: []string{}},
			{Point: 3, Fault: drill.FaultWorker, Match: true, OutputIdentical: true, Problems: []string{}},
			{Point: 20, Fault: drill.FaultMaster, Match: true, OutputIdentical: true, RedoneSubtasks: 2, RedoneBytes: 3000, RecoveryMs: 12.5, Problems: []string{}},
			{Point: 20, Fault: drill.FaultWorker, OutputIdentical: true, RedoneSubtasks: 5, RedoneBytes: 9000,
				Problems: []string{"recovery after seq 20 (epoch 2): started but not predicted: count/1 <b>"},
				Kept:     "/tmp/keep/wc-20-worker", Repro: []string{"set -e", "jobevent run jobs/wc.yaml --seed 7 --crash-after-seq 20 || test $? -eq 3"}},
		},
		Curve: []drill.CurvePoint{
			{Seq: 3, Event: "vertex_initialized src", Boundary: true, Redone: map[drill.Fault]drill.Cost{drill.FaultMaster: {}, drill.FaultWorker: {}}},
			{Seq: 20, Event: "subtask_finished count/1", Redone: map[drill.Fault]drill.Cost{drill.FaultMaster: {Subtasks: 2, Bytes: 3000}, drill.FaultWorker: {Subtasks: 5, Bytes: 9000}}},
		},
		Verdict: drill.Verdict{Points: 2, Faults: 2, Cases: 4, Mismatched: 1, Failed: 1},
	}
	return r
}

func TestWriteDrillHTML(t *testing.T) {
	var b bytes.Buffer
	if err := WriteDrillHTML(&b, drillResult()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		"<title>jobevent drill: wc&lt;script&gt;</title>",
		"2 points, 2 faults: 1 of 4 cases FAILED (1 prediction mismatched)",
		`<svg class="dc"`, "bytes redone per crash point", "subtasks redone per crash point",
		`<polyline class="line" stroke="#2563eb"`, `<circle class="fail"`,
		"seq 20 (subtask_finished count/1), worker: 5 subtasks, 8.8 KiB redone — FAILED",
		">src</text>", // the vertex boundary
		"started but not predicted: count/1 &lt;b&gt;",
		"jobevent run jobs/wc.yaml --seed 7 --crash-after-seq 20 || test $? -eq 3",
		"worker: after seq 20 (subtask_finished count/1), 5 subtasks and 8.8 KiB redone",
		"<td>12.5</td>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, bad := range []string{"<script>", "count/1 <b>", "https://", "<link", "src="} {
		if strings.Contains(page, bad) {
			t.Errorf("page has %q", bad)
		}
	}
}

func TestWriteDrillHTML_Empty(t *testing.T) {
	var b bytes.Buffer
	r := &drill.Result{Job: "none", Verdict: drill.Verdict{OK: true}}
	if err := WriteDrillHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "0 points, 0 faults: all predictions matched") {
		t.Fatalf("page of an empty drill:\n%s", b.String())
	}
}

func TestDrillAxisCeil(t *testing.T) {
	for _, tc := range []struct {
		v, bytes, subtasks float64
	}{
		{0, 4, 4},
		{3, 4, 4},
		{679, 1024, 680},
		{1300, 2048, 1300},
		{6000, 8192, 6000},
		{9000, 16384, 9000},
		{840 << 10, 1 << 20, 840 << 10},
	} {
		if got := drillBytesCeil(tc.v); got != tc.bytes {
			t.Errorf("bytes ceil of %v = %v, want %v", tc.v, got, tc.bytes)
		}
		if got := drillSubtasksAxis.ceil(tc.v); got != tc.subtasks {
			t.Errorf("subtasks ceil of %v = %v, want %v", tc.v, got, tc.subtasks)
		}
	}
}
