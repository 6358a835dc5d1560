package runtime

import (
	"fmt"
	"strings"

	"github.com/jobevent/jobevent/pkg/format"
)

// validateGraph checks the edges against the vertices: known ends, no self
// loops or duplicate edges, no cycles, sources without inputs and
// transforms with at least one.
func (s *Spec) validateGraph() error {
	index := map[string]int{}
	for i, v := range s.Vertices {
		index[v.ID] = i
	}
	inputs := make([]int, len(s.Vertices))
	seen := map[[2]string]bool{}
	for i, e := range s.Edges {
		field := fmt.Sprintf("edges[%d]", i)
		lineErr := func(sub, format string, args ...any) error {
			return &specError{File: s.File, Line: s.edgeLines[i], Field: field + sub, Msg: fmt.Sprintf(format, args...)}
		}
		if _, ok := index[e.From]; !ok {
			return lineErr(".from", "unknown vertex %q", e.From)
		}
		to, ok := index[e.To]
		if !ok {
			return lineErr(".to", "unknown vertex %q", e.To)
		}
		if e.From == e.To {
			return lineErr("", "vertex %q feeds itself", e.From)
		}
		if seen[[2]string{e.From, e.To}] {
			return lineErr("", "duplicate edge %s → %s", e.From, e.To)
		}
		seen[[2]string{e.From, e.To}] = true
		inputs[to]++
	}
	for i, v := range s.Vertices {
		_, isSource := v.op.(Source)
		field := fmt.Sprintf("vertices[%d]", i)
		switch {
		case isSource && inputs[i] > 0:
			return &specError{File: s.File, Line: v.Line, Field: field, Msg: fmt.Sprintf("source %q (operator %s) cannot have inputs", v.ID, v.Operator)}
		case !isSource && inputs[i] == 0:
			return &specError{File: s.File, Line: v.Line, Field: field, Msg: fmt.Sprintf("vertex %q (operator %s) has no inputs and is not a source", v.ID, v.Operator)}
		}
	}
	if cycle := s.findCycle(index); cycle != nil {
		v := s.Vertices[index[cycle[0]]]
		return &specError{File: s.File, Line: v.Line, Field: "edges", Msg: "cycle " + strings.Join(cycle, " → ")}
	}
	return nil
}

// findCycle returns the vertices of a cycle (first repeated at the end),
// or nil when the graph is acyclic.
func (s *Spec) findCycle(index map[string]int) []string {
	out := make([][]int, len(s.Vertices))
	for _, e := range s.Edges {
		out[index[e.From]] = append(out[index[e.From]], index[e.To])
	}
	const (
		white = iota
		grey
		black
	)
	color := make([]int, len(s.Vertices))
	var stack []int
	var cycle []string
	var visit func(int) bool
	visit = func(u int) bool {
		color[u] = grey
		stack = append(stack, u)
		for _, w := range out[u] {
			if color[w] == grey {
				start := 0
				for i, x := range stack {
					if x == w {
						start = i
					}
				}
				for _, x := range stack[start:] {
					cycle = append(cycle, s.Vertices[x].ID)
				}
				cycle = append(cycle, s.Vertices[w].ID)
				return true
			}
			if color[w] == white && visit(w) {
				return true
			}
		}
		stack = stack[:len(stack)-1]
		color[u] = black
		return false
	}
	for u := range s.Vertices {
		if color[u] == white && visit(u) {
			return cycle
		}
	}
	return nil
}

// Graph returns the job graph as recorded in job_submitted.
func (s *Spec) Graph() *format.Graph {
	g := &format.Graph{}
	for _, v := range s.Vertices {
		g.Vertices = append(g.Vertices, format.Vertex{
			ID: v.ID, Operator: v.Operator, Parallelism: v.Parallelism,
			MaxParallelism: v.MaxParallelism, Coordinator: v.Coordinator,
		})
	}
	for _, e := range s.Edges {
		g.Edges = append(g.Edges, format.Edge{From: e.From, To: e.To, Pattern: e.Pattern})
	}
	return g
}

// Vertex returns the vertex with the given id, or nil.
func (s *Spec) Vertex(id string) *VertexSpec {
	for i := range s.Vertices {
		if s.Vertices[i].ID == id {
			return &s.Vertices[i]
		}
	}
	return nil
}
