package replay

import "testing"

// TestRanges checks the arithmetic ranges against the formulas of
// docs/recovery.md (Partitions) applied to every pair, for all small m and n.
func TestRanges(t *testing.T) {
	reads := func(i, m, j, n int32) bool {
		if m >= n {
			return j*m/n <= i && i < (j+1)*m/n
		}
		lo := (i*n + m - 1) / m
		hi := ((i+1)*n + m - 1) / m
		return lo <= j && j < hi
	}
	for m := int32(1); m <= 12; m++ {
		for n := int32(1); n <= 12; n++ {
			for i := int32(0); i < m; i++ {
				lo, hi := consumers(true, i, m, n)
				for j := int32(0); j < n; j++ {
					if got, want := j >= lo && j < hi, reads(i, m, j, n); got != want {
						t.Fatalf("m=%d n=%d: consumers(%d) = [%d,%d), reads(%d) = %v", m, n, i, lo, hi, j, want)
					}
				}
			}
			for j := int32(0); j < n; j++ {
				lo, hi := producers(true, j, m, n)
				for i := int32(0); i < m; i++ {
					if got, want := i >= lo && i < hi, reads(i, m, j, n); got != want {
						t.Fatalf("m=%d n=%d: producers(%d) = [%d,%d), reads(%d) = %v", m, n, j, lo, hi, i, want)
					}
				}
			}
		}
	}
	if lo, hi := ConsumerRange("all_to_all", 3, 4, 7); lo != 0 || hi != 7 {
		t.Fatalf("all-to-all consumers = [%d,%d)", lo, hi)
	}
	if lo, hi := ProducerRange("pointwise", 9, 4, 7); lo != hi {
		t.Fatalf("out of range = [%d,%d), want empty", lo, hi)
	}
	// Large parallelisms do not overflow.
	if lo, hi := consumers(true, MaxParallelism-1, MaxParallelism, MaxParallelism-1); lo != MaxParallelism-2 || hi != MaxParallelism-1 {
		t.Fatalf("large consumers = [%d,%d)", lo, hi)
	}
}
