package runtime

import (
	"testing"

	"github.com/jobevent/jobevent/pkg/format"
)

// TestEdgeInputs checks the wiring against docs/format.md by brute force:
// pointwise m ≥ n, consumer j reads producers [⌊j·m/n⌋, ⌊(j+1)·m/n⌋);
// m < n, producer i feeds consumers [⌈i·n/m⌉, ⌈(i+1)·n/m⌉); all-to-all,
// every producer. Every key group of every producer's partition is read by
// exactly one consumer subtask (of the consumers it feeds).
func TestEdgeInputs(t *testing.T) {
	t.Parallel()
	for m := 1; m <= 9; m++ {
		for n := 1; n <= 9; n++ {
			for _, pattern := range []string{format.PatternPointwise, format.PatternAllToAll} {
				groups := max(n, 4)
				read := map[[2]int]int{} // (producer, group) → readers
				for j := 0; j < n; j++ {
					for _, s := range edgeInputs(pattern, m, n, j, groups) {
						if pattern == format.PatternPointwise && !feeds(m, n, s.Producer, j) {
							t.Fatalf("%s m=%d n=%d: consumer %d reads producer %d it is not wired to", pattern, m, n, j, s.Producer)
						}
						lo, hi := edgeConsumers(pattern, m, n, s.Producer)
						if j < lo || j >= hi {
							t.Fatalf("%s m=%d n=%d: edgeConsumers(%d) = [%d,%d) misses consumer %d", pattern, m, n, s.Producer, lo, hi, j)
						}
						for g := s.From; g < s.To; g++ {
							read[[2]int{s.Producer, g}]++
						}
					}
				}
				for i := 0; i < m; i++ {
					for g := 0; g < groups; g++ {
						if read[[2]int{i, g}] != 1 {
							t.Fatalf("%s m=%d n=%d: producer %d group %d read %d times, want once", pattern, m, n, i, g, read[[2]int{i, g}])
						}
					}
				}
			}
		}
	}
}

// feeds reports whether producer i of m feeds consumer j of n over a
// pointwise edge, straight from docs/format.md.
func feeds(m, n, i, j int) bool {
	if m >= n {
		return j*m/n <= i && i < (j+1)*m/n
	}
	lo := (i*n + m - 1) / m
	hi := ((i+1)*n + m - 1) / m
	return lo <= j && j < hi
}

func TestKeyGroupRange(t *testing.T) {
	t.Parallel()
	for groups := 1; groups <= 40; groups++ {
		for parts := 1; parts <= groups; parts++ {
			next := 0
			for k := 0; k < parts; k++ {
				from, to := keyGroupRange(k, parts, groups)
				if from != next || to < from {
					t.Fatalf("groups=%d parts=%d: part %d is [%d,%d), want it to start at %d", groups, parts, k, from, to, next)
				}
				next = to
			}
			if next != groups {
				t.Fatalf("groups=%d parts=%d: ranges end at %d", groups, parts, next)
			}
		}
	}
}
