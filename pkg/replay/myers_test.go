package replay

import (
	"math/rand"
	"testing"
)

// lcsLen is the textbook dynamic program.
func lcsLen(a, b []int) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			switch {
			case a[i] == b[j]:
				dp[i][j] = dp[i+1][j+1] + 1
			case dp[i+1][j] > dp[i][j+1]:
				dp[i][j] = dp[i+1][j]
			default:
				dp[i][j] = dp[i][j+1]
			}
		}
	}
	return dp[0][0]
}

// TestAlignHunks_LCS checks on random sequences that the hunks leave a
// common subsequence as long as the longest one.
func TestAlignHunks_LCS(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 500; trial++ {
		a := make([]int, rng.Intn(30))
		b := make([]int, rng.Intn(30))
		for i := range a {
			a[i] = rng.Intn(4)
		}
		for i := range b {
			b[i] = rng.Intn(4)
		}
		hunks := alignHunks(a, b)
		matched, i, j := 0, 0, 0
		for _, h := range append(hunks, hunk{len(a), len(a), len(b), len(b)}) {
			if h.a0-i != h.b0-j {
				t.Fatalf("a=%v b=%v: hunks %v leave unequal gaps", a, b, hunks)
			}
			for ; i < h.a0; i, j = i+1, j+1 {
				if a[i] != b[j] {
					t.Fatalf("a=%v b=%v: hunks %v match %d with %d", a, b, hunks, a[i], b[j])
				}
				matched++
			}
			i, j = h.a1, h.b1
		}
		if want := lcsLen(a, b); matched != want {
			t.Fatalf("a=%v b=%v: matched %d, LCS %d", a, b, matched, want)
		}
	}
}

// TestMyers_Limit gives up past maxD edits.
func TestMyers_Limit(t *testing.T) {
	a := []int{1, 2, 3, 4}
	b := []int{5, 6, 7, 8}
	if _, ok := myers(a, b, 7); ok {
		t.Fatal("myers found 8 edits within 7")
	}
	if m, ok := myers(a, b, 8); !ok || len(m) != 0 {
		t.Fatalf("myers = %v, %v; want no match within 8 edits", m, ok)
	}
}
