package drill

import "testing"

func TestVerdict_String(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v    Verdict
		want string
	}{
		{Verdict{Points: 35, Faults: 5, Cases: 175, OK: true}, "35 points, 5 faults: all predictions matched, output identical"},
		{Verdict{Points: 1, Faults: 1, Cases: 1, OK: true}, "1 point, 1 fault: all predictions matched, output identical"},
		{Verdict{Points: 4, Faults: 2, Cases: 8, Mismatched: 2, OutputDiffers: 1, InvalidLog: 1, Failed: 3},
			"4 points, 2 faults: 3 of 8 cases FAILED (2 predictions mismatched, 1 output differ, 1 recovered log invalid)"},
		{Verdict{Points: 4, Faults: 2, Cases: 8, Errors: 1, Failed: 1},
			"4 points, 2 faults: 1 of 8 cases FAILED (1 with run errors)"},
	} {
		if got := tc.v.String(); got != tc.want {
			t.Errorf("verdict = %q, want %q", got, tc.want)
		}
	}
}

func TestResult_CurveAndExposure(t *testing.T) {
	t.Parallel()
	r := &Result{
		Faults: []Fault{FaultMaster, FaultWorker},
		Points: []Point{{Seq: 3, Event: "a"}, {Seq: 9, Event: "b"}},
		Cases: []Case{
			{Point: 3, Fault: FaultMaster, RedoneSubtasks: 1, RedoneBytes: 10, Match: true, OutputIdentical: true},
			{Point: 3, Fault: FaultWorker, RedoneSubtasks: 2, RedoneBytes: 50, Match: true, OutputIdentical: true},
			{Point: 9, Fault: FaultMaster, RedoneSubtasks: 4, RedoneBytes: 40, Problems: []string{"x"}, OutputIdentical: true},
			{Point: 9, Fault: FaultWorker, RedoneSubtasks: 3, RedoneBytes: 50, Match: true, OutputIdentical: true},
		},
	}
	r.Curve = r.curve()
	if got := r.Curve[1].Redone[FaultMaster]; got != (Cost{Subtasks: 4, Bytes: 40}) {
		t.Fatalf("curve at 9, master = %+v, want 4 subtasks, 40 bytes", got)
	}
	if p, ok := r.MostExposed(FaultMaster); !ok || p.Seq != 9 {
		t.Fatalf("most exposed to master = %d, %v, want 9", p.Seq, ok)
	}
	if p, ok := r.MostExposed(FaultWorker); !ok || p.Seq != 9 {
		t.Fatalf("most exposed to worker = %d, %v, want 9 (equal bytes, more subtasks)", p.Seq, ok)
	}
	if _, ok := r.MostExposed(FaultDouble); ok {
		t.Fatal("most exposed to a fault not drilled: found")
	}
	v := r.verdict()
	if v.OK || v.Failed != 1 || v.Mismatched != 1 {
		t.Fatalf("verdict = %+v, want 1 failed, 1 mismatched", v)
	}
}
