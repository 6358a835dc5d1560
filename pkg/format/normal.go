package format

// Normalize puts e into the normal form that JSONReader and SegmentReader
// return, so that events can be compared with reflect.DeepEqual after a
// round trip: Time in UTC; fields that do not belong to the kind zeroed; for
// job_submitted a non-nil Graph whose empty lists are nil, an empty
// coordinator "none" and an empty edge pattern "all_to_all"; for
// subtasks_reset nil Subtasks when empty; for snapshot a non-nil
// Coordinators map whose empty states are nil. Partitions keep their nil
// (absent) versus empty distinction. Normalize does not change a valid
// event's meaning.
func (e *Event) Normalize() {
	n := Event{Seq: e.Seq, Time: e.Time.UTC(), Epoch: e.Epoch, Kind: e.Kind, Job: e.Job}
	if e.Time.IsZero() {
		n.Time = e.Time
	}
	for _, f := range kindFields[e.Kind] {
		copyField(&n, e, f)
	}
	*e = n
}

func copyField(dst, src *Event, f field) {
	switch f {
	case fieldGraph:
		dst.Graph = normalGraph(src.Graph)
	case fieldMaster:
		dst.Master = src.Master
	case fieldRecovering:
		dst.Recovering = src.Recovering
	case fieldVertex:
		dst.Vertex = src.Vertex
	case fieldSubtask:
		dst.Subtask = src.Subtask
	case fieldParallelism:
		dst.Parallelism = src.Parallelism
	case fieldAttempt:
		dst.Attempt = src.Attempt
	case fieldWorker:
		dst.Worker = src.Worker
	case fieldRecordsIn:
		dst.RecordsIn = src.RecordsIn
	case fieldRecordsOut:
		dst.RecordsOut = src.RecordsOut
	case fieldBytesIn:
		dst.BytesIn = src.BytesIn
	case fieldBytesOut:
		dst.BytesOut = src.BytesOut
	case fieldPartitions:
		dst.Partitions = src.Partitions
	case fieldError:
		dst.Error = src.Error
	case fieldSubtasks:
		if len(src.Subtasks) > 0 {
			dst.Subtasks = src.Subtasks
		}
	case fieldReason:
		dst.Reason = src.Reason
	case fieldCoordinators:
		dst.Coordinators = make(map[string][]byte, len(src.Coordinators))
		for k, v := range src.Coordinators {
			if len(v) == 0 {
				v = nil
			}
			dst.Coordinators[k] = v
		}
	case fieldStatus:
		dst.Status = src.Status
	}
}

// normalGraph returns a copy of g (nil: an empty graph) with nil empty lists
// and the default coordinator and pattern filled in.
func normalGraph(g *Graph) *Graph {
	n := &Graph{}
	if g == nil {
		return n
	}
	if len(g.Vertices) > 0 {
		n.Vertices = make([]Vertex, len(g.Vertices))
		for i, v := range g.Vertices {
			v.Coordinator = coordinatorOrDefault(v.Coordinator)
			n.Vertices[i] = v
		}
	}
	if len(g.Edges) > 0 {
		n.Edges = make([]Edge, len(g.Edges))
		for i, ed := range g.Edges {
			ed.Pattern = patternOrDefault(ed.Pattern)
			n.Edges[i] = ed
		}
	}
	if len(g.Ranges) > 0 {
		n.Ranges = g.Ranges
	}
	if len(g.Datasets) > 0 {
		n.Datasets = g.Datasets
	}
	return n
}
