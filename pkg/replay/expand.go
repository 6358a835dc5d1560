package replay

import (
	"sort"

	"github.com/jobevent/jobevent/pkg/format"
)

// ExpandReset returns the subtasks a running master resets when it resets
// refs: typically the producer of a partition a consumer could not find
// (partition-not-found). The result holds refs themselves, closed to a
// fixed point over the downstream consumers that are finished or running
// (pointwise edges: only the consumer subtasks that read them), and over
// the deferred vertices: the first time a subtask of a vertex in deferred
// is in the set, all its subtasks are, and the vertex is deleted from
// deferred (the expansion happens once). Refs that do not name a subtask
// of an initialized vertex are ignored. The result is sorted by vertex
// order, then subtask; the master logs it as one subtasks_reset.
//
// ExpandReset only reads s (and writes deferred).
func (s *State) ExpandReset(refs []format.SubtaskRef, deferred map[string]bool) []format.SubtaskRef {
	in := make([]bool, len(s.sub))
	done := make([]bool, len(s.topo.edges))
	var queue, visited []int32
	add := func(x int32) {
		if !in[x] {
			in[x] = true
			queue = append(queue, x)
			visited = append(visited, x)
		}
	}
	for _, r := range refs {
		if v := s.topo.vertex(r.Vertex); v >= 0 && r.Subtask >= 0 && r.Subtask < s.vs[v].parallelism {
			add(s.vs[v].base + r.Subtask)
		}
	}
	for len(queue) > 0 {
		x := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		v := s.sub[x].vertex
		vs := &s.vs[v]
		if id := s.topo.ids[v]; deferred[id] {
			delete(deferred, id)
			for y := vs.base; y < vs.base+vs.parallelism; y++ {
				add(y)
			}
		}
		for _, ei := range s.topo.out[v] {
			e := &s.topo.edges[ei]
			cv := &s.vs[e.to]
			all := e.allToAll(vs.parallelism, cv.parallelism)
			if cv.parallelism == 0 || (all && done[ei]) {
				continue
			}
			done[ei] = all
			var buf [1]span
			for _, sp := range e.consumerSpans(x-vs.base, vs.parallelism, cv.parallelism, &buf) {
				for y := cv.base + sp[0]; y < cv.base+sp[1]; y++ {
					if st := &s.sub[y]; st.finSeq > 0 || st.status == stRunning {
						add(y)
					}
				}
			}
		}
	}
	sort.Slice(visited, func(a, b int) bool {
		va, vb := s.sub[visited[a]].vertex, s.sub[visited[b]].vertex
		return va < vb || (va == vb && visited[a] < visited[b])
	})
	out := make([]format.SubtaskRef, len(visited))
	for k, x := range visited {
		out[k] = s.ref(x)
	}
	return out
}
