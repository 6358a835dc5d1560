package flink

import (
	"fmt"
	"strings"
)

// renderRecord prints a record as testdata/gen/common/jobeventsgen/Main.java
// writes each line of expected.txt.
func renderRecord(r *Record) string {
	head := fmt.Sprintf("%s@%d %d ", r.File, r.Offset, r.Type)
	switch e := r.Event.(type) {
	case *VertexFinished:
		return head + renderFinished(e)
	case *VertexReset:
		ids := make([]string, len(e.Vertices))
		for i, v := range e.Vertices {
			ids[i] = v.String()
		}
		return head + "[" + strings.Join(ids, ", ") + "]"
	case *JobVertexInitialized:
		return head + renderInitialized(e)
	}
	return head + fmt.Sprintf("%T", r.Event)
}

func renderFinished(e *VertexFinished) string {
	var b strings.Builder
	addr := e.Location.Addr.AsSlice()
	fmt.Fprintf(&b, "%s tm=%s addr=%x:%d parts={", e.AttemptID, e.Location.ResourceID, addr, e.Location.DataPort)
	for i, p := range e.IOMetrics.ResultPartitionBytes {
		if i > 0 {
			b.WriteByte(' ')
		}
		s := make([]string, len(p.SubpartitionBytes))
		for j, n := range p.SubpartitionBytes {
			s[j] = fmt.Sprint(n)
		}
		fmt.Fprintf(&b, "%s=%s", p.Partition, strings.Join(s, ","))
	}
	b.WriteString("} acc={")
	if e.Accumulators == nil {
		b.WriteString("null")
	}
	for i, a := range e.Accumulators {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%s", a.Name, a.Class)
	}
	b.WriteString("} coord={")
	for i, c := range e.CoordinatorSnapshots {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%x", c.OperatorID, c.State)
	}
	fmt.Fprintf(&b, "} snapshot=%t", e.SnapshotPoint)
	return b.String()
}

func renderInitialized(e *JobVertexInitialized) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s p=%d inputs={", e.JobVertexID, e.Parallelism)
	for i, in := range e.Inputs {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s:", in.DataSetID)
		for _, s := range in.Subtasks {
			g := make([]string, len(s.Groups))
			for j, cg := range s.Groups {
				g[j] = fmt.Sprintf("%d-%d/%d-%d", cg.Partitions.Start, cg.Partitions.End, cg.Subpartitions.Start, cg.Subpartitions.End)
			}
			fmt.Fprintf(&b, " %d=[%s]", s.SubtaskIndex, strings.Join(g, " "))
		}
	}
	b.WriteByte('}')
	return b.String()
}
