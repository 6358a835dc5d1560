package blob

import "github.com/jobevent/jobevent/pkg/format"

// chunkLen is the number of events in one chunk of an eventQueue.
const chunkLen = 1024

// eventQueue is a FIFO of events kept in fixed-size chunks, so that a push
// never copies the events already queued however long the queue gets (a
// master can append faster than segments upload). Consumed chunks are kept
// for reuse in free. Not safe for concurrent use.
type eventQueue struct {
	chunks [][]format.Event // the last one may be partly filled
	head   int              // events of chunks[0] already popped
	n      int              // events queued
	free   [][]format.Event
}

func (q *eventQueue) push(e format.Event) {
	if k := len(q.chunks); k == 0 || len(q.chunks[k-1]) == chunkLen {
		var c []format.Event
		if f := len(q.free); f > 0 {
			c, q.free = q.free[f-1], q.free[:f-1]
		} else {
			c = make([]format.Event, 0, chunkLen)
		}
		q.chunks = append(q.chunks, c)
	}
	last := &q.chunks[len(q.chunks)-1]
	*last = append(*last, e)
	q.n++
}

// pop removes and returns the oldest event; the queue must not be empty.
func (q *eventQueue) pop() format.Event {
	c := q.chunks[0]
	e := c[q.head]
	c[q.head] = format.Event{}
	q.head++
	q.n--
	if q.head == len(c) {
		q.chunks[0] = nil
		q.chunks = q.chunks[1:]
		q.head = 0
		if cap(c) == chunkLen && len(q.free) < 16 {
			q.free = append(q.free, c[:0])
		}
	}
	return e
}
