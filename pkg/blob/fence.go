package blob

import (
	"context"
	"errors"
	"io"

	"github.com/jobevent/jobevent/pkg/format"
)

// NewestEpoch returns the highest claimed epoch, 0 when none is. It lists
// the epoch objects' names only. A master calls it after a write that made
// a side effect durable (job_finished) and before the side effect itself
// (deleting partitions and staging): a newer epoch means another master
// holds the job now. Safe for concurrent use.
func (l *Log) NewestEpoch(ctx context.Context) (int32, error) {
	return l.newestEpoch(ctx)
}

// FencedEnd returns the job_finished event that a master of an epoch older
// than epoch wrote at seq startSeq or later: after the master of epoch read
// the log and before its claim fenced the older one. Such a row is fenced
// (readers skip it), but it means the older master had already committed
// the job's output and may be deleting its partitions: the new master must
// finish the job, not wait for workers that are being told to stop. ok is
// false when there is none. Safe for concurrent use.
func (l *Log) FencedEnd(ctx context.Context, epoch int32, startSeq int64) (e format.Event, ok bool, err error) {
	segs, err := l.Segments(ctx)
	if err != nil {
		return format.Event{}, false, err
	}
	for _, s := range segs {
		if s.Epoch >= epoch || s.Last < startSeq {
			continue
		}
		e, ok, err := l.endIn(ctx, s.Key, startSeq)
		if err != nil || ok {
			return e, ok, err
		}
	}
	return format.Event{}, false, nil
}

// endIn returns the job_finished event at seq from or later in segment key.
func (l *Log) endIn(ctx context.Context, key string, from int64) (format.Event, bool, error) {
	sr, err := l.OpenSegment(ctx, key)
	var corrupt *CorruptError
	switch {
	case errors.Is(err, ErrNotFound):
		return format.Event{}, false, nil // compacted since the listing
	case errors.As(err, &corrupt):
		// A segment that does not decode (the torn tail the reader
		// dropped) holds no end anybody can rely on.
		return format.Event{}, false, nil
	case err != nil:
		return format.Event{}, false, err
	}
	for {
		e, err := sr.Next()
		if err == io.EOF {
			return format.Event{}, false, nil
		}
		if err != nil {
			return format.Event{}, false, nil
		}
		if e.Seq >= from && e.Kind == format.KindJobFinished {
			return e, true, nil
		}
	}
}
