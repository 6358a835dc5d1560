package runtime

import "github.com/jobevent/jobevent/pkg/format"

// inputSlice is what one consumer subtask reads from one producer subtask
// over one edge: key groups [From, To) of the partition.
type inputSlice struct {
	Producer int
	From, To int
}

// edgeInputs returns the slices consumer j of n reads over an edge from m
// producers whose partitions have groups key groups (docs/format.md):
//
//   - all_to_all: every producer, key groups keyGroupRange(j, n, groups);
//   - pointwise, m ≥ n: producers [⌊j·m/n⌋, ⌊(j+1)·m/n⌋), every group;
//   - pointwise, m < n: producer i = ⌊j·m/n⌋ feeds consumers
//     [⌈i·n/m⌉, ⌈(i+1)·n/m⌉); j reads its share of i's key groups.
func edgeInputs(pattern string, m, n, j, groups int) []inputSlice {
	if pattern == format.PatternAllToAll {
		from, to := keyGroupRange(j, n, groups)
		out := make([]inputSlice, m)
		for i := range out {
			out[i] = inputSlice{Producer: i, From: from, To: to}
		}
		return out
	}
	if m >= n {
		lo, hi := j*m/n, (j+1)*m/n
		out := make([]inputSlice, 0, hi-lo)
		for i := lo; i < hi; i++ {
			out = append(out, inputSlice{Producer: i, From: 0, To: groups})
		}
		return out
	}
	i := j * m / n
	a, b := ceilDiv(i*n, m), ceilDiv((i+1)*n, m)
	from, to := keyGroupRange(j-a, b-a, groups)
	return []inputSlice{{Producer: i, From: from, To: to}}
}

// edgeConsumers returns the consumer subtasks [lo, hi) that read producer i
// of m over an edge to n consumers.
func edgeConsumers(pattern string, m, n, i int) (lo, hi int) {
	switch {
	case pattern == format.PatternAllToAll:
		return 0, n
	case m >= n:
		// Consumer j reads [⌊j·m/n⌋, ⌊(j+1)·m/n⌋): the j with
		// ⌊j·m/n⌋ ≤ i < ⌊(j+1)·m/n⌋.
		j := (i*n + n - 1) / m
		for j > 0 && (j*m)/n > i {
			j--
		}
		for (j+1)*m/n <= i {
			j++
		}
		return j, j + 1
	default:
		return ceilDiv(i*n, m), ceilDiv((i+1)*n, m)
	}
}

// keyGroupRange returns the key groups [from, to) of part k of parts, the
// ranges of Flink's KeyGroupRangeAssignment: contiguous, covering every
// group, in order.
func keyGroupRange(k, parts, groups int) (from, to int) {
	from = (k*groups + parts - 1) / parts
	to = ((k+1)*groups-1)/parts + 1
	return from, to
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// edgeGroups returns the number of key groups of the partitions on an edge
// from m producers to a consumer of parallelism n (0 when auto) and max
// parallelism maxP. All-to-all edges and auto consumers use maxP, so that
// any parallelism decided later reads contiguous ranges; a pointwise edge
// to a fixed consumer needs only as many as a producer has consumers.
func edgeGroups(pattern string, m, n, maxP int) int {
	switch {
	case pattern == format.PatternAllToAll || n == 0:
		return max(maxP, 1)
	case m >= n:
		return 1
	default:
		return ceilDiv(n, m)
	}
}
