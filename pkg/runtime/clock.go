package runtime

import (
	"context"
	"time"

	"github.com/jobevent/jobevent/pkg/format"
)

// Clock is the runtime's time source: event times, restart delays,
// snapshot pauses, heartbeats and recovery timeouts. It has the method set
// of blob.Clock, so one fake drives both in tests. Implementations must
// be safe for concurrent use.
type Clock interface {
	Now() time.Time
	// After returns a channel that receives once, when d has passed.
	After(d time.Duration) <-chan time.Time
}

type wallClock struct{}

func (wallClock) Now() time.Time                         { return time.Now() }
func (wallClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// EventLog is where a master writes its events: a *blob.Writer, or
// NullLog for measuring what recording costs. Append assigns the seq;
// Flush returns once everything appended is durable; Err reports a
// persistent failure or fencing.
type EventLog interface {
	Append(e format.Event) (int64, error)
	Flush(ctx context.Context) error
	Err() error
}

// NullLog is an EventLog that keeps nothing: it only numbers the events.
// Benchmarks compare a run on it with a run on a real log.
type NullLog struct {
	next int64
}

// NewNullLog returns a NullLog whose first event gets seq next.
func NewNullLog(next int64) *NullLog { return &NullLog{next: next} }

// Append numbers e and drops it.
func (l *NullLog) Append(format.Event) (int64, error) {
	seq := l.next
	l.next++
	return seq, nil
}

// Flush does nothing.
func (l *NullLog) Flush(context.Context) error { return nil }

// Err returns nil.
func (l *NullLog) Err() error { return nil }
