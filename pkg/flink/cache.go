package flink

import (
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
	buf    []format.Event
}

// cacheChunk is how many records a chunk of the cache holds.
const cacheChunk = 4096

// cachedRecord is where a record was and its events: one, or a finished
// event and the snapshot it is a point of (snapshot set, with the
// coordinators' states; the snapshot event holds nothing else).
type cachedRecord struct {
	file     int32
	snapshot bool
	off      int64
	ev       format.Event
	coords   map[string][]byte
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
	c.buf = appendRecordEvents(c.buf[:0], rec.Event, c.vertex, c.intern)
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
		cr.ev = c.buf[0]
	}
	c.n++
	return true
}

// appendEvents appends the events of the i-th record.
func (c *eventCache) appendEvents(out []format.Event, i int) []format.Event {
	cr := c.record(i)
	if cr.ev.Kind == "" {
		return out
	}
	out = append(out, cr.ev)
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

// intern returns s, or the equal string already held.
func (c *eventCache) intern(s string) string {
	if t, ok := c.names[s]; ok {
		return t
	}
	c.names[s] = s
	return s
}

// appendRecordEvents appends the events that stand for a decoded record
// (without the master_started of a new incarnation), naming vertices with
// vertex and interning worker names with intern.
func appendRecordEvents(out []format.Event, ev Event, vertex func(ID) string, intern func(string) string) []format.Event {
	switch e := ev.(type) {
	case *JobVertexInitialized:
		out = append(out, format.Event{Kind: format.KindVertexInitialized, Vertex: vertex(e.JobVertexID), Parallelism: e.Parallelism})
	case *VertexFinished:
		v := e.AttemptID.Vertex
		m := e.IOMetrics
		out = append(out, format.Event{
			Kind: format.KindSubtaskFinished, Vertex: vertex(v.JobVertexID), Subtask: v.SubtaskIndex,
			Attempt: e.AttemptID.AttemptNumber, Worker: intern(e.Location.ResourceID),
			RecordsIn: m.NumRecordsIn, RecordsOut: m.NumRecordsOut, BytesIn: m.NumBytesIn, BytesOut: m.NumBytesOut,
		})
		if e.SnapshotPoint {
			m := make(map[string][]byte, len(e.CoordinatorSnapshots))
			for _, cs := range e.CoordinatorSnapshots {
				m[vertex(cs.OperatorID)] = cs.State
			}
			out = append(out, format.Event{Kind: format.KindSnapshot, Coordinators: m})
		}
	case *VertexReset:
		refs := make([]format.SubtaskRef, len(e.Vertices))
		for i, v := range e.Vertices {
			refs[i] = format.SubtaskRef{Vertex: vertex(v.JobVertexID), Subtask: v.SubtaskIndex}
		}
		out = append(out, format.Event{Kind: format.KindSubtasksReset, Subtasks: refs, Reason: ReasonFlink})
	}
	return out
}
