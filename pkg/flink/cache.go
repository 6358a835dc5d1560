package flink

import (
	"github.com/jobevent/jobevent/pkg/format"
)

// cacheLimit bounds how many events Open keeps for Events to replay
// without reading the files again: a log of more events is read a second
// time, so that memory stays bounded whatever the log's size. An event is
// a few hundred bytes; the records it stands for are kilobytes.
const cacheLimit = 1 << 20

// eventCache holds the events of every record Open read, projected to the
// fields the mapping uses (the payloads and the decoded fields no event
// carries are dropped), so that Events is one pass over memory.
type eventCache struct {
	files  []string       // file names, in order
	recs   []cachedRecord // one per record
	events []format.Event // the records' events, without master_started
	ids    map[ID]string  // JobVertexID -> its string, shared by every event
	names  map[string]string
}

// cachedRecord is where a record was and which of the cache's events are
// its own: events[start:end].
type cachedRecord struct {
	file       int32
	off        int64
	start, end int32
}

func newEventCache() *eventCache {
	return &eventCache{ids: map[ID]string{}, names: map[string]string{}}
}

// add appends the events of rec; it reports false, and drops what it
// held, once the log has more events than the cache keeps.
func (c *eventCache) add(rec *Record) bool {
	if len(c.files) == 0 || c.files[len(c.files)-1] != rec.File {
		c.files = append(c.files, rec.File)
	}
	start := len(c.events)
	c.events = appendRecordEvents(c.events, rec.Event, c.vertex, c.intern)
	if len(c.events) > cacheLimit {
		return false
	}
	c.recs = append(c.recs, cachedRecord{file: int32(len(c.files) - 1), off: rec.Offset, start: int32(start), end: int32(len(c.events))})
	return true
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
			out = append(out, format.Event{Kind: format.KindSnapshot, Coordinators: coordinators(e.CoordinatorSnapshots)})
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
