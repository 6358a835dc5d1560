package replay

import (
	"errors"
	"fmt"
	"io"

	"github.com/jobevent/jobevent/pkg/format"
)

// BatchSource is a Source that can also hand out its events a batch at a
// time, from buffers it reuses (blob.Reader): NextBatch returns at least
// one event or an error (io.EOF after the last event), and the events are
// the source's until its next call. A batch never spans two objects, so
// Key, when the source has it, names the object of every event of the
// batch, and the notices gathered during a call concern what comes before
// its events. Fold and Validate read a BatchSource by batches, with the
// same result as event by event.
type BatchSource interface {
	Source
	NextBatch() ([]format.Event, error)
}

// FoldBatches is Fold reading src a batch at a time.
func FoldBatches(src BatchSource, until int64) (*State, error) {
	s := NewState()
	for {
		batch, err := src.NextBatch()
		s.prefetch(batch)
		for i := range batch {
			if until > 0 && batch[i].Seq > until {
				return s, nil
			}
			_ = s.Apply(&batch[i]) // skipped events are counted by the state
		}
		if errors.Is(err, io.EOF) {
			return s, nil
		}
		if err != nil {
			return s, fmt.Errorf("replay: after seq %d: %w", s.lastSeq, err)
		}
	}
}
