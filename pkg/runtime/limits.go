package runtime

import (
	"fmt"

	"github.com/jobevent/jobevent/pkg/format"
)

// splitPlanner is a source that knows up front how many splits it will
// hand out (the sequence source's splits argument).
type splitPlanner interface {
	plannedSplits(parallelism int) int
}

func (s *sequence) plannedSplits(parallelism int) int {
	if s.splits > 0 {
		return s.splits
	}
	return parallelism
}

// checkLimits refuses a valid job whose size the runtime does not bound
// otherwise: more vertices than job-event.limits.max-vertices, a source
// with more splits than job-event.limits.max-splits, or edges whose
// consumers fetch more slices than job-event.limits.max-subpartitions.
// Each limit is a setting: a job that needs more raises it in its spec.
func (s *Spec) checkLimits() error {
	st := s.Settings
	if n := len(s.Vertices); n > st.MaxVertices {
		return &specError{File: s.File, Field: "vertices", Msg: fmt.Sprintf("%d vertices, more than %s (%d); raise it in settings if the job needs them",
			n, KeyMaxVertices, st.MaxVertices)}
	}
	width := make(map[string]int64, len(s.Vertices))
	for i, v := range s.Vertices {
		width[v.ID] = int64(v.Parallelism)
		if v.Parallelism == 0 {
			width[v.ID] = int64(v.MaxParallelism)
		}
		if sp, ok := v.op.(splitPlanner); ok {
			if n := sp.plannedSplits(int(v.Parallelism)); n > st.MaxSplits {
				return &specError{File: s.File, Line: v.Line, Field: fmt.Sprintf("vertices[%d].args.splits", i),
					Msg: fmt.Sprintf("%d splits, more than %s (%d): every snapshot of the source carries their assignment; raise it in settings if the job needs them",
						n, KeyMaxSplits, st.MaxSplits)}
			}
		}
	}
	var total int64
	for i, e := range s.Edges {
		from, to := width[e.From], width[e.To]
		n := max(from, to)
		if e.Pattern == format.PatternAllToAll {
			n = from * to // widths are int32: no overflow
		}
		if n > st.MaxSubpartitions-total {
			return &specError{File: s.File, Line: s.edgeLines[i], Field: fmt.Sprintf("edges[%d]", i),
				Msg: fmt.Sprintf("%s %s → %s makes %d subpartitions (%d × %d; %d with the edges before it), more than %s (%d); raise it in settings if the job needs them",
					e.Pattern, e.From, e.To, n, from, to, total+n, KeyMaxSubpartitions, st.MaxSubpartitions)}
		}
		total += n
	}
	return nil
}
