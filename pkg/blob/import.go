package blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/jobevent/jobevent/pkg/format"
)

// DefaultImportSegmentEvents is the most events Import puts in one segment
// when ImportOptions.SegmentEvents is 0.
const DefaultImportSegmentEvents = 100_000

// WriteSegment writes events as one segment, seq and epoch kept as given
// (import and compaction use it). The events must be of one epoch with
// contiguous seqs (ErrInvalidEvents otherwise) and must encode to at most
// MaxSegmentBytes (ErrSegmentTooLarge otherwise). It returns the segment's
// key. A segment of that name that already exists with the same bytes is
// success; with other bytes an error wrapping ErrExists. Transient failures
// are retried with the default RetryPolicy.
func (l *Log) WriteSegment(ctx context.Context, events []format.Event) (string, error) {
	if err := checkSegment(events); err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := format.EncodeSegment(&buf, events); err != nil {
		return "", fmt.Errorf("encode segment of epoch %d seq %d: %w", events[0].Epoch, events[0].Seq, err)
	}
	if buf.Len() > maxSegmentBytes {
		return "", fmt.Errorf("write segment of epoch %d seq %d to %d: %d bytes: %w (at most %d bytes)",
			events[0].Epoch, events[0].Seq, events[len(events)-1].Seq, buf.Len(), ErrSegmentTooLarge, maxSegmentBytes)
	}
	return l.putSegment(ctx, events, buf.Bytes())
}

// writeSegments writes events (of one epoch, contiguous seqs) as one
// segment, or as several when one would exceed MaxSegmentBytes, and
// returns their keys in order.
func (l *Log) writeSegments(ctx context.Context, buf *bytes.Buffer, events []format.Event) ([]string, error) {
	if err := checkSegment(events); err != nil {
		return nil, err
	}
	var keys []string
	err := encodeCapped(buf, events, func(part []format.Event, data []byte) error {
		key, err := l.putSegment(ctx, part, data)
		if err != nil {
			return err
		}
		keys = append(keys, key)
		return nil
	})
	return keys, err
}

// putSegment uploads the encoded segment of events with IfNotExist,
// retrying transient failures with the default RetryPolicy.
func (l *Log) putSegment(ctx context.Context, events []format.Event, data []byte) (string, error) {
	key := FormatSegmentName(events[0].Epoch, events[0].Seq, events[len(events)-1].Seq)
	p := RetryPolicy{}.withDefaults()
	for attempt := 1; ; attempt++ {
		err := l.createOnce(ctx, key, data, contentTypeParquet)
		if err == nil {
			return key, nil
		}
		if errors.Is(err, ErrExists) || isAccessError(err) || attempt >= p.Attempts || ctx.Err() != nil {
			return "", fmt.Errorf("write segment: %w", err)
		}
		select {
		case <-ctx.Done():
		case <-realClock{}.After(p.backoff(attempt)):
		}
	}
}

func checkSegment(events []format.Event) error {
	if len(events) == 0 {
		return fmt.Errorf("%w: no events", ErrInvalidEvents)
	}
	first := events[0]
	if first.Epoch < 1 || first.Seq < 1 {
		return fmt.Errorf("%w: epoch %d seq %d: both must be positive", ErrInvalidEvents, first.Epoch, first.Seq)
	}
	for i := range events {
		e := &events[i]
		if e.Epoch != first.Epoch || e.Seq != first.Seq+int64(i) {
			return fmt.Errorf("%w: event %d has epoch %d seq %d, want epoch %d seq %d",
				ErrInvalidEvents, i, e.Epoch, e.Seq, first.Epoch, first.Seq+int64(i))
		}
	}
	return nil
}

// EventSource is a stream of events ending with io.EOF; replay.Source,
// *format.JSONReader and *Reader satisfy it.
type EventSource interface {
	Next() (format.Event, error)
}

// ImportOptions configures Import.
type ImportOptions struct {
	// SegmentEvents is the most events per segment; 0 means
	// DefaultImportSegmentEvents.
	SegmentEvents int
}

// ImportResult says what Import wrote.
type ImportResult struct {
	Events   int64 `json:"events"`
	Segments int   `json:"segments"`
	Epochs   int   `json:"epochs"`
}

// Import writes the events of src into l, which must hold no events yet
// (ErrLogExists otherwise). Seq and epoch are kept as given; the stream is
// cut into segments where the epoch changes, where seq does not follow on,
// every SegmentEvents events, and where a segment would exceed
// MaxSegmentBytes. Each epoch's first master_started event
// also writes that epoch's object (start_seq its seq, master its master
// field), as the master would have claimed it. Import does not judge the
// log beyond that: validate does.
func Import(ctx context.Context, l *Log, src EventSource, opts ImportOptions) (ImportResult, error) {
	var res ImportResult
	if opts.SegmentEvents <= 0 {
		opts.SegmentEvents = DefaultImportSegmentEvents
	}
	segs, _, err := l.listSegments(ctx)
	if err != nil {
		return res, fmt.Errorf("import into %s: %w", l.URL(), err)
	}
	if len(segs) > 0 {
		return res, fmt.Errorf("import into %s: %w (%d segments)", l.URL(), ErrLogExists, len(segs))
	}
	claimed := make(map[int32]bool)
	var chunk []format.Event
	var buf bytes.Buffer
	flush := func() error {
		if len(chunk) == 0 {
			return nil
		}
		keys, err := l.writeSegments(ctx, &buf, chunk)
		res.Segments += len(keys)
		if err != nil {
			return err
		}
		chunk = chunk[:0]
		return nil
	}
	for {
		e, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return res, fmt.Errorf("import into %s: %w", l.URL(), err)
		}
		if n := len(chunk); n > 0 && (n >= opts.SegmentEvents || e.Epoch != chunk[n-1].Epoch || e.Seq != chunk[n-1].Seq+1) {
			if err := flush(); err != nil {
				return res, fmt.Errorf("import into %s: %w", l.URL(), err)
			}
		}
		if e.Kind == format.KindMasterStarted && !claimed[e.Epoch] {
			claimed[e.Epoch] = true
			if err := l.ClaimEpoch(ctx, EpochInfo{Epoch: e.Epoch, Master: e.Master, StartSeq: e.Seq}); err != nil {
				return res, fmt.Errorf("import into %s: seq %d: %w", l.URL(), e.Seq, err)
			}
			res.Epochs++
		}
		chunk = append(chunk, e)
		res.Events++
	}
	if err := flush(); err != nil {
		return res, fmt.Errorf("import into %s: %w", l.URL(), err)
	}
	return res, nil
}
