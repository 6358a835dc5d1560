package cputime

import "testing"

var sink int

// TestProcess: the CPU time grows while the process works.
func TestProcess(t *testing.T) {
	before := Process()
	for i := 0; i < 200_000_000; i++ {
		sink ^= i * i
	}
	if after := Process(); after <= before {
		t.Fatalf("CPU time did not move while working: %v, then %v", before, after)
	}
}
