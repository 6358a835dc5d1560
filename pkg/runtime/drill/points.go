package drill

import (
	"fmt"
	"sort"

	"github.com/jobevent/jobevent/pkg/format"
)

// selectPoints returns the crash points of a clean log: the seqs of at
// when given; else every seq when n is 0 or less, otherwise n evenly
// spaced seqs from the first to the last plus the vertex boundaries; in
// seq order.
func selectPoints(events []format.Event, n int, at []int64) []Point {
	if len(events) == 0 {
		return nil
	}
	bySeq := make(map[int64]*format.Event, len(events))
	for i := range events {
		bySeq[events[i].Seq] = &events[i]
	}
	boundary := boundaries(events)
	first, last := events[0].Seq, events[len(events)-1].Seq
	chosen := map[int64]bool{}
	switch {
	case len(at) > 0:
		for _, seq := range at {
			chosen[seq] = true
		}
	case n <= 0:
		for _, e := range events {
			chosen[e.Seq] = true
		}
	case n == 1:
		chosen[first+(last-first)/2] = true
	default:
		span := last - first
		for i := int64(0); i < int64(n); i++ {
			chosen[first+(i*span+int64(n-1)/2)/int64(n-1)] = true
		}
	}
	if len(at) == 0 {
		for seq := range boundary {
			chosen[seq] = true
		}
	}
	seqs := make([]int64, 0, len(chosen))
	for seq := range chosen {
		if bySeq[seq] != nil {
			seqs = append(seqs, seq)
		}
	}
	sort.Slice(seqs, func(i, j int) bool { return seqs[i] < seqs[j] })
	points := make([]Point, len(seqs))
	for i, seq := range seqs {
		points[i] = Point{Seq: seq, Event: describe(bySeq[seq]), Boundary: boundary[seq]}
	}
	return points
}

// boundaries returns the seqs of the vertex_initialized events and of the
// last subtask_finished of each vertex.
func boundaries(events []format.Event) map[int64]bool {
	out := map[int64]bool{}
	lastFinish := map[string]int64{}
	for _, e := range events {
		switch e.Kind {
		case format.KindVertexInitialized:
			out[e.Seq] = true
		case format.KindSubtaskFinished:
			lastFinish[e.Vertex] = e.Seq
		}
	}
	for _, seq := range lastFinish {
		out[seq] = true
	}
	return out
}

// describe names an event for people: its kind and what it is about.
func describe(e *format.Event) string {
	switch e.Kind {
	case format.KindVertexInitialized:
		return fmt.Sprintf("%s %s", e.Kind, e.Vertex)
	case format.KindSubtaskStarted, format.KindSubtaskFinished, format.KindSubtaskFailed:
		return fmt.Sprintf("%s %s/%d", e.Kind, e.Vertex, e.Subtask)
	case format.KindSubtasksReset:
		return fmt.Sprintf("%s (%d, %s)", e.Kind, len(e.Subtasks), e.Reason)
	case format.KindJobFinished:
		return fmt.Sprintf("%s %s", e.Kind, e.Status)
	}
	return string(e.Kind)
}
