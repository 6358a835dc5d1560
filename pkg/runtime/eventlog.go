package runtime

import (
	"context"

	"github.com/jobevent/jobevent/pkg/format"
)

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
