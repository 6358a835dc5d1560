package format

// SegmentFits reports whether EncodeSegment certainly succeeds for a
// segment of e alone and writes at most maxBytes bytes: e's kind is known,
// its time is one a segment holds, and a bound of its encoded size,
// reckoned as if nothing compressed, is at most maxBytes. It is cheap and
// conservative: false does not mean that encoding e fails. Import uses it
// to know that input it has read can no longer be refused. SegmentFits is
// safe for concurrent use.
func SegmentFits(e *Event, maxBytes int) bool {
	if _, ok := e.Kind.fieldSet(); !ok {
		return false
	}
	if t := e.Time; !t.IsZero() && (t.Before(minSegmentTime) || t.After(maxSegmentTime)) {
		return false // timeNanos's error, without formatting it
	}
	return segmentBound(e) <= maxBytes
}

// Allowances of segmentBound: segmentOverhead for what a segment holds
// besides its values (magic, footer with the schema, column chunks and
// page index, a page header and a dictionary page per column), and
// valueOverhead for what each value takes beyond its own bytes (a length
// prefix or a fixed-width number, its levels, a dictionary index).
// TestSegmentBound holds them against events made to compress badly.
const (
	segmentOverhead = 64 << 10
	valueOverhead   = 16
)

// segmentBound bounds the size of the segment of e alone. It counts every
// field, whether e's kind has it or not, each column once even when NULL,
// and 1/128 of the bytes more for compression that cannot shrink them.
func segmentBound(e *Event) int {
	bytes := len(e.Kind) + len(e.Job) + len(e.Master) + len(e.Vertex) + len(e.Worker) +
		len(e.Error) + len(e.Reason) + len(e.Status)
	values := numColumns
	if g := e.Graph; g != nil {
		for i := range g.Vertices {
			v := &g.Vertices[i]
			bytes += len(v.ID) + len(v.Operator) + len(coordinatorOrDefault(v.Coordinator))
		}
		for i := range g.Edges {
			ed := &g.Edges[i]
			bytes += len(ed.From) + len(ed.To) + len(patternOrDefault(ed.Pattern)) + len(ed.Dataset)
		}
		for i := range g.Datasets {
			bytes += len(g.Datasets[i].ID) + len(g.Datasets[i].Producer)
		}
		values += len(vertexCols)*len(g.Vertices) + len(edgeCols)*len(g.Edges) +
			len(rangeCols)*len(g.Ranges) + len(datasetCols)*len(g.Datasets)
	}
	for i := range e.Partitions {
		bytes += len(e.Partitions[i].Consumer)
	}
	for i := range e.Subtasks {
		bytes += len(e.Subtasks[i].Vertex)
	}
	for k, state := range e.Coordinators {
		bytes += len(k) + len(state)
	}
	values += len(partitionCols)*len(e.Partitions) + len(subtaskCols)*len(e.Subtasks) +
		len(coordinatorCols)*len(e.Coordinators)
	return segmentOverhead + values*valueOverhead + bytes + bytes/128
}
