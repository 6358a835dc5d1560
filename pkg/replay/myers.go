package replay

// hunk is a place where two sequences differ: a[a0:a1] is replaced by
// b[b0:b1]; one of the ranges may be empty.
type hunk struct{ a0, a1, b0, b1 int }

// alignHunks aligns a and b on a longest common subsequence and returns
// the hunks between the matches, in order. The common prefix and suffix
// are matched first; the middle with Myers' greedy O(ND) algorithm, up to
// MaxEventEdits edits, past which the middle is one hunk.
func alignHunks(a, b []int) []hunk {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(ma) == 0 && len(mb) == 0 {
		return nil
	}
	matches, ok := myers(ma, mb, MaxEventEdits)
	if !ok {
		return []hunk{{pre, pre + len(ma), pre, pre + len(mb)}}
	}
	var out []hunk
	i, j := 0, 0
	for _, m := range append(matches, [2]int{len(ma), len(mb)}) {
		if m[0] > i || m[1] > j {
			out = append(out, hunk{pre + i, pre + m[0], pre + j, pre + m[1]})
		}
		i, j = m[0]+1, m[1]+1
	}
	return out
}

// myers returns the matched index pairs of a shortest edit script of a
// into b, in order, or false when it needs more than maxD edits.
func myers(a, b []int, maxD int) ([][2]int, bool) {
	n, m := len(a), len(b)
	maxD = min(maxD, n+m)
	off := maxD + 1
	v := make([]int, 2*maxD+3) // v[off+k]: furthest x on diagonal k = x - y
	var trace [][]int          // trace[d][k+d+1]: v before step d, k in [-d-1, d+1]
	for d := 0; d <= maxD; d++ {
		trace = append(trace, append([]int(nil), v[off-d-1:off+d+2]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1] // down: an insertion
			} else {
				x = v[off+k-1] + 1 // right: a deletion
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, n, m, d, k), true
			}
		}
	}
	return nil, false
}

// backtrack walks the trace back from (n, m), reached at step d on
// diagonal k, and returns the diagonal moves: the matches.
func backtrack(trace [][]int, n, m, d, k int) [][2]int {
	var rev [][2]int
	x, y := n, m
	for ; d > 0; d-- {
		prev := func(k int) int { return trace[d][k+d+1] }
		var pk, sx int
		if k == -d || (k != d && prev(k-1) < prev(k+1)) {
			pk = k + 1
			sx = prev(pk)
		} else {
			pk = k - 1
			sx = prev(pk) + 1
		}
		for sy := sx - k; x > sx && y > sy; {
			x, y = x-1, y-1
			rev = append(rev, [2]int{x, y})
		}
		x = prev(pk)
		y = x - pk
		k = pk
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		rev = append(rev, [2]int{x, y})
	}
	out := make([][2]int, len(rev))
	for i := range rev {
		out[i] = rev[len(rev)-1-i]
	}
	return out
}
