package replay

import (
	"errors"
	"fmt"
	"io"

	"github.com/jobevent/jobevent/pkg/format"
)

// Source is a stream of events in log order: a blob.Reader, a JSONL
// reader, a generator. Next returns io.EOF after the last event.
//
// A source may also implement Keyer (where the last event came from) and
// Noticer (what it passed over); Validate uses both, Fold neither.
type Source interface {
	Next() (format.Event, error)
}

// Keyer is implemented by sources that know where the last event returned
// came from: an object key, or a file path.
type Keyer interface {
	Key() string
}

// Noticer is implemented by sources that pass over things without failing
// (torn tails, fenced rows, unknown objects). Notices drains the notices
// gathered so far.
type Noticer interface {
	Notices() []format.Notice
}

// Fold applies the events of src to a new State, up to and including the
// event with seq until (0: all of them), and returns it. Events Apply
// cannot apply are skipped (see State.Skipped); fenced writes are ignored.
// An error of src other than io.EOF ends the fold: Fold returns it,
// wrapped, together with the state folded so far.
func Fold(src Source, until int64) (*State, error) {
	if b, ok := src.(BatchSource); ok {
		return FoldBatches(b, until)
	}
	s := NewState()
	for {
		e, err := src.Next()
		if errors.Is(err, io.EOF) {
			return s, nil
		}
		if err != nil {
			return s, fmt.Errorf("replay: after seq %d: %w", s.lastSeq, err)
		}
		if until > 0 && e.Seq > until {
			return s, nil
		}
		_ = s.Apply(&e) // skipped events are counted by the state
	}
}

// SliceSource is a Source over events held in memory, for tests and for
// callers that already have the events.
type SliceSource struct {
	Events []format.Event
	next   int
}

// Next returns the next event, or io.EOF after the last.
func (s *SliceSource) Next() (format.Event, error) {
	if s.next >= len(s.Events) {
		return format.Event{}, io.EOF
	}
	s.next++
	return s.Events[s.next-1], nil
}
