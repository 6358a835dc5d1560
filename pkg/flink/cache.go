package flink

import (
	"bytes"

	"github.com/jobevent/jobevent/pkg/format"
)

// cacheLimit bounds how many events Open keeps for Events to replay
// without reading the files again: a log of more events is read a second
// time, so that memory stays bounded whatever the log's size. An event is
// about 330 bytes with its place in the files, plus a snapshot's coordinator
// states (100k events of a real run: about 75 MB live); the records it
// stands for are kilobytes.
const cacheLimit = 1 << 18

// eventCache holds the events of every record Open read, projected to the
// fields the mapping uses (the payloads and the decoded fields no event
// carries are dropped), so that Events is one pass over memory.
type eventCache struct {
	files  []string         // file names, in order
	chunks [][]cachedRecord // the records, cacheChunk a chunk, so that none is copied to grow
	n      int              // records
	events int              // events held, without master_started
	ids    map[ID]string    // JobVertexID -> its string, shared by every event
	names  map[string]string
	coords map[string][]byte // the last snapshot's coordinator states, shared while they stay the same
	buf    []format.Event
}

// cacheChunk is how many records a chunk of the cache holds.
const cacheChunk = 4096

// cachedRecord is where a record was and its events: none (a record that
// stands for no event), one, or a finished event and the snapshot it is a
// point of (snapshot set; the snapshot event holds the coordinators'
// states and nothing else). It holds only the fields the events use.
type cachedRecord struct {
	file        int32
	snapshot    bool
	off         int64
	kind        format.Kind
	vertex      string
	worker      string
	subtask     int32
	attempt     int32
	parallelism int32
	recordsIn   int64
	recordsOut  int64
	bytesIn     int64
	bytesOut    int64
	subtasks    []format.SubtaskRef
	coords      map[string][]byte
}

// record returns the i-th record.
func (c *eventCache) record(i int) *cachedRecord { return &c.chunks[i/cacheChunk][i%cacheChunk] }

func newEventCache() *eventCache {
	return &eventCache{ids: map[ID]string{}, names: map[string]string{}}
}

// add appends the events of rec; it reports false, and drops what it
// held, once the log has more events than the cache keeps.
func (c *eventCache) add(rec *Record) bool {
	if len(c.files) == 0 || c.files[len(c.files)-1] != rec.File {
		c.files = append(c.files, rec.File)
	}
	c.buf = appendRecordEvents(c.buf[:0], rec.Event, c)
	if c.events += len(c.buf); c.events > cacheLimit {
		return false
	}
	if c.n%cacheChunk == 0 {
		c.chunks = append(c.chunks, make([]cachedRecord, 0, cacheChunk))
	}
	last := &c.chunks[len(c.chunks)-1]
	*last = append(*last, cachedRecord{file: int32(len(c.files) - 1), off: rec.Offset})
	cr := &(*last)[len(*last)-1]
	switch len(c.buf) {
	case 2:
		cr.snapshot, cr.coords = true, c.buf[1].Coordinators
		fallthrough
	case 1:
		e := &c.buf[0]
		cr.kind, cr.vertex, cr.worker = e.Kind, e.Vertex, e.Worker
		cr.subtask, cr.attempt, cr.parallelism = e.Subtask, e.Attempt, e.Parallelism
		cr.recordsIn, cr.recordsOut, cr.bytesIn, cr.bytesOut = e.RecordsIn, e.RecordsOut, e.BytesIn, e.BytesOut
		cr.subtasks = e.Subtasks
	}
	c.n++
	return true
}

// appendEvents appends the events of the i-th record.
func (c *eventCache) appendEvents(out []format.Event, i int) []format.Event {
	cr := c.record(i)
	if cr.kind == "" {
		return out
	}
	e := format.Event{Kind: cr.kind, Vertex: cr.vertex, Worker: cr.worker,
		Subtask: cr.subtask, Attempt: cr.attempt, Parallelism: cr.parallelism,
		RecordsIn: cr.recordsIn, RecordsOut: cr.recordsOut, BytesIn: cr.bytesIn, BytesOut: cr.bytesOut,
		Subtasks: cr.subtasks}
	if cr.kind == format.KindSubtasksReset {
		e.Reason = ReasonFlink
	}
	out = append(out, e)
	if cr.snapshot {
		out = append(out, format.Event{Kind: format.KindSnapshot, Coordinators: cr.coords})
	}
	return out
}

// vertex returns the string of a JobVertexID, one string per vertex.
func (c *eventCache) vertex(id ID) string {
	s, ok := c.ids[id]
	if !ok {
		s = id.String()
		c.ids[id] = s
	}
	return s
}

// worker returns s, or the equal string already held.
func (c *eventCache) worker(s string) string {
	if t, ok := c.names[s]; ok {
		return t
	}
	c.names[s] = s
	return s
}

// coordinators returns the states of snaps by vertex: the map of the last
// snapshot when they are the same (a coordinator's state changes far less
// often than subtasks finish; the events' maps are never written).
func (c *eventCache) coordinators(snaps []CoordinatorSnapshot) map[string][]byte {
	if c.coords != nil && c.sameCoordinators(snaps) {
		return c.coords
	}
	c.coords = make(map[string][]byte, len(snaps))
	for _, cs := range snaps {
		c.coords[c.vertex(cs.OperatorID)] = cs.State
	}
	return c.coords
}

// sameCoordinators reports whether snaps, a few snapshots of distinct
// coordinators, hold the states of c.coords.
func (c *eventCache) sameCoordinators(snaps []CoordinatorSnapshot) bool {
	if len(snaps) != len(c.coords) || len(snaps) > 16 {
		return false
	}
	for i, cs := range snaps {
		st, ok := c.coords[c.vertex(cs.OperatorID)]
		if !ok || (st == nil) != (cs.State == nil) || !bytes.Equal(st, cs.State) {
			return false
		}
		for _, prev := range snaps[:i] {
			if prev.OperatorID == cs.OperatorID {
				return false // the map holds fewer
			}
		}
	}
	return true
}

// names is how appendRecordEvents names what events hold.
type names interface {
	vertex(ID) string                                     // a JobVertexID
	worker(string) string                                 // a TaskManager's resource id
	coordinators([]CoordinatorSnapshot) map[string][]byte // states by vertex
}

// plainNames names every event afresh.
type plainNames struct{}

func (plainNames) vertex(id ID) string    { return id.String() }
func (plainNames) worker(s string) string { return s }
func (plainNames) coordinators(snaps []CoordinatorSnapshot) map[string][]byte {
	m := make(map[string][]byte, len(snaps))
	for _, cs := range snaps {
		m[cs.OperatorID.String()] = cs.State
	}
	return m
}

// appendRecordEvents appends the events that stand for a decoded record
// (without the master_started of a new incarnation), named by n.
func appendRecordEvents(out []format.Event, ev Event, n names) []format.Event {
	switch e := ev.(type) {
	case *JobVertexInitialized:
		out = append(out, format.Event{Kind: format.KindVertexInitialized, Vertex: n.vertex(e.JobVertexID), Parallelism: e.Parallelism})
	case *VertexFinished:
		v := e.AttemptID.Vertex
		m := e.IOMetrics
		out = append(out, format.Event{
			Kind: format.KindSubtaskFinished, Vertex: n.vertex(v.JobVertexID), Subtask: v.SubtaskIndex,
			Attempt: e.AttemptID.AttemptNumber, Worker: n.worker(e.Location.ResourceID),
			RecordsIn: m.NumRecordsIn, RecordsOut: m.NumRecordsOut, BytesIn: m.NumBytesIn, BytesOut: m.NumBytesOut,
		})
		if e.SnapshotPoint {
			out = append(out, format.Event{Kind: format.KindSnapshot, Coordinators: n.coordinators(e.CoordinatorSnapshots)})
		}
	case *VertexReset:
		refs := make([]format.SubtaskRef, len(e.Vertices))
		for i, v := range e.Vertices {
			refs[i] = format.SubtaskRef{Vertex: n.vertex(v.JobVertexID), Subtask: v.SubtaskIndex}
		}
		out = append(out, format.Event{Kind: format.KindSubtasksReset, Subtasks: refs, Reason: ReasonFlink})
	}
	return out
}
