package blob

import (
	"context"
	"errors"
	"io"
	"slices"

	"github.com/jobevent/jobevent/pkg/format"
)

// fence is where a later epoch took over from an earlier one: the rows of
// the earlier epoch at its seq or past it were written by a fenced master
// (docs/format.md, Fencing). A nil *fence fences nothing.
type fence struct {
	epoch int32 // the epoch that took over
	seq   int64 // its start
}

// drops reports whether the row at seq of the epoch f fences was written
// by a fenced master.
func (f *fence) drops(seq int64) bool { return f != nil && seq >= f.seq }

// fencesOf applies the fencing rule to the start of each epoch a log
// knows: epoch e is fenced at the start of the next epoch after it (e+1,
// or the next one the log knows). On a bucket an epoch's start is its
// epoch object's start_seq, or the first seq of its segments when the
// object is missing; in a JSONL file, the lowest seq of its events. The
// fence of an epoch that no later one follows is nil. Every reader of
// events, on a bucket or in a JSONL file, fences with it.
func fencesOf(starts map[int32]int64) map[int32]*fence {
	order := make([]int32, 0, len(starts))
	for e := range starts {
		order = append(order, e)
	}
	slices.Sort(order)
	fences := make(map[int32]*fence, len(order))
	for i := 0; i+1 < len(order); i++ {
		next := order[i+1]
		fences[order[i]] = &fence{epoch: next, seq: starts[next]}
	}
	return fences
}

// epochStarts returns the start of every epoch that has segments or an
// epoch object: the object's start_seq, or the first seq of the epoch's
// segments (in name order) when it has none.
func epochStarts(byEpoch map[int32][]SegmentInfo, epochs map[int32]EpochInfo) map[int32]int64 {
	starts := make(map[int32]int64, len(byEpoch)+len(epochs))
	for e, segs := range byEpoch {
		starts[e] = segs[0].First // name order sorts an epoch's segments by first seq
	}
	for e, info := range epochs {
		starts[e] = info.StartSeq
	}
	return starts
}

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
