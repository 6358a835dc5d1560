package progress

import "github.com/jobevent/jobevent/pkg/format"

// SubtaskCount follows the events of a job and counts its subtasks: how
// many are finished (a finish counts until a reset takes it back) and, once
// every vertex's parallelism is known, how many there are. It is what the
// progress line of a run shows. The zero value is ready to use; it is not
// safe for concurrent use.
type SubtaskCount struct {
	vertices []string         // in job_submitted order
	par      map[string]int32 // parallelism; 0 = decided at run time, not yet known
	finished map[format.SubtaskRef]bool
}

// Apply folds one event into the count. Events it does not need are
// ignored, and so are events that do not fit (a finish of an unknown
// vertex still counts: the total then catches up when it is initialized).
func (c *SubtaskCount) Apply(e *format.Event) {
	if c.par == nil {
		c.par = make(map[string]int32)
		c.finished = make(map[format.SubtaskRef]bool)
	}
	switch e.Kind {
	case format.KindJobSubmitted:
		if e.Graph == nil || len(c.vertices) > 0 {
			return
		}
		for _, v := range e.Graph.Vertices {
			if _, dup := c.par[v.ID]; !dup {
				c.vertices = append(c.vertices, v.ID)
			}
			c.par[v.ID] = max(v.Parallelism, 0)
		}
	case format.KindVertexInitialized:
		if _, ok := c.par[e.Vertex]; !ok {
			c.vertices = append(c.vertices, e.Vertex)
		}
		c.par[e.Vertex] = max(e.Parallelism, 0)
	case format.KindSubtaskFinished:
		c.finished[format.SubtaskRef{Vertex: e.Vertex, Subtask: e.Subtask}] = true
	case format.KindSubtasksReset:
		for _, r := range e.Subtasks {
			delete(c.finished, r)
		}
	}
}

// Finished returns the number of subtasks finished and not reset since.
func (c *SubtaskCount) Finished() int64 { return int64(len(c.finished)) }

// Total returns the number of subtasks of the job, or 0 while it is not
// known: before job_submitted, or while a vertex whose parallelism is
// decided at run time is not initialized.
func (c *SubtaskCount) Total() int64 {
	var n int64
	for _, v := range c.vertices {
		p := c.par[v]
		if p <= 0 {
			return 0
		}
		n += int64(p)
	}
	return n
}
