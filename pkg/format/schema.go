package format

import (
	"fmt"
	"math"
	"time"
)

// row is one event as a Parquet row. The column names, types and
// encodings are part of the format (docs/format.md): common columns are
// required; a kind-specific column is non-NULL exactly for the kinds that
// have the field, zero values included.
type row struct {
	Seq   int64  `parquet:"seq,delta"`
	Time  int64  `parquet:"time,delta,timestamp(nanosecond)"`
	Epoch int32  `parquet:"epoch,delta"`
	Kind  string `parquet:"kind,dict"`
	Job   string `parquet:"job,dict"`

	Graph *graphRow `parquet:"graph,optional"`

	Master     *string `parquet:"master,optional,dict"`
	Recovering *bool   `parquet:"recovering,optional"`

	Vertex      *string `parquet:"vertex,optional,dict"`
	Subtask     *int32  `parquet:"subtask,optional"`
	Parallelism *int32  `parquet:"parallelism,optional"`
	Attempt     *int32  `parquet:"attempt,optional"`
	Worker      *string `parquet:"worker,optional,dict"`

	RecordsIn  *int64         `parquet:"records_in,optional"`
	RecordsOut *int64         `parquet:"records_out,optional"`
	BytesIn    *int64         `parquet:"bytes_in,optional"`
	BytesOut   *int64         `parquet:"bytes_out,optional"`
	Partitions []partitionRow `parquet:"partitions,optional,list"`

	Error *string `parquet:"error,optional,dict"`

	Subtasks []subtaskRow `parquet:"subtasks,optional,list"`
	Reason   *string      `parquet:"reason,optional,dict"`

	Coordinators []coordinatorRow `parquet:"coordinators,optional,list"`

	Status *string `parquet:"status,optional,dict"`
}

type graphRow struct {
	Vertices []vertexRow `parquet:"vertices,list"`
	Edges    []edgeRow   `parquet:"edges,list"`
}

type vertexRow struct {
	ID             string `parquet:"id,dict"`
	Operator       string `parquet:"operator,dict"`
	Parallelism    int32  `parquet:"parallelism"`
	MaxParallelism int32  `parquet:"max_parallelism"`
	Coordinator    string `parquet:"coordinator,dict"`
}

type edgeRow struct {
	From    string `parquet:"from,dict"`
	To      string `parquet:"to,dict"`
	Pattern string `parquet:"pattern,dict"`
}

type partitionRow struct {
	Consumer string `parquet:"consumer,dict"`
	Bytes    int64  `parquet:"bytes,delta"`
	Records  int64  `parquet:"records,delta"`
}

type subtaskRow struct {
	Vertex  string `parquet:"vertex,dict"`
	Subtask int32  `parquet:"subtask,delta"`
}

type coordinatorRow struct {
	Vertex string `parquet:"vertex,dict"`
	State  []byte `parquet:"state"`
}

// Segment time range: nanoseconds since 1970 in an int64.
var (
	minSegmentTime = time.Unix(0, math.MinInt64).UTC()
	maxSegmentTime = time.Unix(0, math.MaxInt64).UTC()
)

// timeNanos converts t for the time column. A zero Time is stored as 0
// (1970-01-01T00:00:00Z).
func timeNanos(t time.Time) (int64, error) {
	if t.IsZero() {
		return 0, nil
	}
	if t.Before(minSegmentTime) || t.After(maxSegmentTime) {
		return 0, fmt.Errorf("time %s: %w", t.UTC().Format(time.RFC3339Nano), ErrTimeRange)
	}
	return t.UnixNano(), nil
}

// toRow converts e to its row; scratch provides the pointer targets so that
// a batch of rows costs few allocations.
func toRow(e *Event, r *row, s *rowScratch) error {
	ns, err := timeNanos(e.Time)
	if err != nil {
		return err
	}
	*r = row{Seq: e.Seq, Time: ns, Epoch: e.Epoch, Kind: string(e.Kind), Job: e.Job}
	for _, f := range kindFields[e.Kind] {
		setRowField(e, r, f, s)
	}
	return nil
}

// rowScratch holds the values that a row's pointers point to.
type rowScratch struct {
	str          [4]string
	i32          [3]int32
	i64          [4]int64
	b            bool
	ns, n32, n64 int
}

func (s *rowScratch) s(v string) *string { p := &s.str[s.ns]; *p = v; s.ns++; return p }
func (s *rowScratch) i32p(v int32) *int32 {
	p := &s.i32[s.n32]
	*p = v
	s.n32++
	return p
}
func (s *rowScratch) i64p(v int64) *int64 {
	p := &s.i64[s.n64]
	*p = v
	s.n64++
	return p
}

func setRowField(e *Event, r *row, f field, s *rowScratch) {
	switch f {
	case fieldGraph:
		r.Graph = graphToRow(e.Graph)
	case fieldMaster:
		r.Master = s.s(e.Master)
	case fieldRecovering:
		s.b = e.Recovering
		r.Recovering = &s.b
	case fieldVertex:
		r.Vertex = s.s(e.Vertex)
	case fieldSubtask:
		r.Subtask = s.i32p(e.Subtask)
	case fieldParallelism:
		r.Parallelism = s.i32p(e.Parallelism)
	case fieldAttempt:
		r.Attempt = s.i32p(e.Attempt)
	case fieldWorker:
		r.Worker = s.s(e.Worker)
	case fieldRecordsIn:
		r.RecordsIn = s.i64p(e.RecordsIn)
	case fieldRecordsOut:
		r.RecordsOut = s.i64p(e.RecordsOut)
	case fieldBytesIn:
		r.BytesIn = s.i64p(e.BytesIn)
	case fieldBytesOut:
		r.BytesOut = s.i64p(e.BytesOut)
	case fieldPartitions:
		if e.Partitions != nil {
			r.Partitions = make([]partitionRow, len(e.Partitions))
			for i, p := range e.Partitions {
				r.Partitions[i] = partitionRow(p)
			}
		}
	case fieldError:
		r.Error = s.s(e.Error)
	case fieldSubtasks:
		r.Subtasks = make([]subtaskRow, len(e.Subtasks))
		for i, st := range e.Subtasks {
			r.Subtasks[i] = subtaskRow(st)
		}
	case fieldReason:
		r.Reason = s.s(e.Reason)
	case fieldCoordinators:
		r.Coordinators = make([]coordinatorRow, 0, len(e.Coordinators))
		for _, k := range sortedKeys(e.Coordinators) {
			st := e.Coordinators[k]
			if st == nil {
				st = []byte{}
			}
			r.Coordinators = append(r.Coordinators, coordinatorRow{Vertex: k, State: st})
		}
	case fieldStatus:
		r.Status = s.s(e.Status)
	}
}

func graphToRow(g *Graph) *graphRow {
	gr := &graphRow{Vertices: []vertexRow{}, Edges: []edgeRow{}}
	if g == nil {
		return gr
	}
	for _, v := range g.Vertices {
		v.Coordinator = coordinatorOrDefault(v.Coordinator)
		gr.Vertices = append(gr.Vertices, vertexRow(v))
	}
	for _, ed := range g.Edges {
		ed.Pattern = patternOrDefault(ed.Pattern)
		gr.Edges = append(gr.Edges, edgeRow(ed))
	}
	return gr
}

// fromRow converts a row back to an event in normal form (see Normalize).
func fromRow(r *row) (Event, error) {
	e := Event{Seq: r.Seq, Time: time.Unix(0, r.Time).UTC(), Epoch: r.Epoch, Kind: Kind(r.Kind), Job: r.Job}
	if !e.Kind.Valid() {
		return Event{}, fmt.Errorf("seq %d: unknown kind %q", r.Seq, r.Kind)
	}
	for _, f := range kindFields[e.Kind] {
		if err := getRowField(&e, r, f); err != nil {
			return Event{}, fmt.Errorf("seq %d: %w", r.Seq, err)
		}
	}
	return e, nil
}

func getRowField(e *Event, r *row, f field) error {
	var null bool
	switch f {
	case fieldGraph:
		null = r.Graph == nil
		e.Graph = graphFromRow(r.Graph)
	case fieldMaster:
		null = loadString(&e.Master, r.Master)
	case fieldRecovering:
		null = r.Recovering == nil
		if !null {
			e.Recovering = *r.Recovering
		}
	case fieldVertex:
		null = loadString(&e.Vertex, r.Vertex)
	case fieldSubtask:
		null = loadInt32(&e.Subtask, r.Subtask)
	case fieldParallelism:
		null = loadInt32(&e.Parallelism, r.Parallelism)
	case fieldAttempt:
		null = loadInt32(&e.Attempt, r.Attempt)
	case fieldWorker:
		null = loadString(&e.Worker, r.Worker)
	case fieldRecordsIn:
		null = loadInt64(&e.RecordsIn, r.RecordsIn)
	case fieldRecordsOut:
		null = loadInt64(&e.RecordsOut, r.RecordsOut)
	case fieldBytesIn:
		null = loadInt64(&e.BytesIn, r.BytesIn)
	case fieldBytesOut:
		null = loadInt64(&e.BytesOut, r.BytesOut)
	case fieldPartitions:
		if r.Partitions != nil {
			e.Partitions = make([]Partition, len(r.Partitions))
			for i, p := range r.Partitions {
				e.Partitions[i] = Partition(p)
			}
		}
	case fieldError:
		null = loadString(&e.Error, r.Error)
	case fieldSubtasks:
		null = r.Subtasks == nil
		if len(r.Subtasks) > 0 {
			e.Subtasks = make([]SubtaskRef, len(r.Subtasks))
			for i, st := range r.Subtasks {
				e.Subtasks[i] = SubtaskRef(st)
			}
		}
	case fieldReason:
		null = loadString(&e.Reason, r.Reason)
	case fieldCoordinators:
		null = r.Coordinators == nil
		e.Coordinators = make(map[string][]byte, len(r.Coordinators))
		for _, c := range r.Coordinators {
			if _, dup := e.Coordinators[c.Vertex]; dup {
				return fmt.Errorf("column coordinators: duplicate vertex %q", c.Vertex)
			}
			var st []byte
			if len(c.State) > 0 {
				st = append([]byte(nil), c.State...)
			}
			e.Coordinators[c.Vertex] = st
		}
	case fieldStatus:
		null = loadString(&e.Status, r.Status)
	}
	if null {
		return fmt.Errorf("column %s: NULL in a %s event", fieldNames[f], e.Kind)
	}
	return nil
}

func loadString(dst *string, p *string) (null bool) {
	if p == nil {
		return true
	}
	*dst = *p
	return false
}

func loadInt32(dst *int32, p *int32) (null bool) {
	if p == nil {
		return true
	}
	*dst = *p
	return false
}

func loadInt64(dst *int64, p *int64) (null bool) {
	if p == nil {
		return true
	}
	*dst = *p
	return false
}

func graphFromRow(gr *graphRow) *Graph {
	g := &Graph{}
	if gr == nil {
		return g
	}
	if len(gr.Vertices) > 0 {
		g.Vertices = make([]Vertex, len(gr.Vertices))
		for i, v := range gr.Vertices {
			g.Vertices[i] = Vertex(v)
			g.Vertices[i].Coordinator = coordinatorOrDefault(v.Coordinator)
		}
	}
	if len(gr.Edges) > 0 {
		g.Edges = make([]Edge, len(gr.Edges))
		for i, ed := range gr.Edges {
			g.Edges[i] = Edge(ed)
			g.Edges[i].Pattern = patternOrDefault(ed.Pattern)
		}
	}
	return g
}
