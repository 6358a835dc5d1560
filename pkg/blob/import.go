package blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

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
	return key, l.putKey(ctx, key, data)
}

// putKey uploads the encoded segment data as key with IfNotExist, retrying
// transient failures with the default RetryPolicy.
func (l *Log) putKey(ctx context.Context, key string, data []byte) error {
	p := RetryPolicy{}.withDefaults()
	for attempt := 1; ; attempt++ {
		err := l.createOnce(ctx, key, data, contentTypeParquet)
		if err == nil {
			return nil
		}
		if errors.Is(err, ErrExists) || isAccessError(err) || attempt >= p.Attempts || ctx.Err() != nil {
			return fmt.Errorf("write segment: %w", err)
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

// ErrImportRefused reports input that Import refuses before writing
// anything: events that would not read back as the same log.
var ErrImportRefused = errors.New("jobevent/blob: import refused")

// Import writes the events of src into l, which must hold no events and no
// epoch objects yet (ErrLogExists otherwise). Seq and epoch are kept as
// given; the stream is cut into segments where the epoch changes, every
// SegmentEvents events, and where a segment would exceed MaxSegmentBytes.
// Every epoch gets its epoch object (start_seq the seq of its first event,
// master the master of its master_started), as the masters would have
// claimed them.
//
// Import works in two passes. The first reads src whole, checks it and
// encodes every segment into a temporary directory; nothing is written to
// l unless all of it passes. It refuses (ErrImportRefused) a first seq
// other than 1, a seq that does not follow its predecessor in the same
// epoch, an epoch that goes back, and a new epoch that starts after a gap
// or before the previous epoch's start (a fenced master's rows, which
// follow on in their own epoch, are fine); a time outside what a segment
// can hold (format.ErrTimeRange) and an event too large for a segment
// (ErrSegmentTooLarge) fail the first pass too. The second pass uploads the
// segments, then the epoch objects; if it fails, Import deletes what it
// wrote, so a fixed import can be run again. Import does not judge the
// log's events beyond that: validate does.
func Import(ctx context.Context, l *Log, src EventSource, opts ImportOptions) (ImportResult, error) {
	if opts.SegmentEvents <= 0 {
		opts.SegmentEvents = DefaultImportSegmentEvents
	}
	segs, _, err := l.listSegments(ctx)
	if err != nil {
		return ImportResult{}, fmt.Errorf("import into %s: %w", l.URL(), err)
	}
	if len(segs) > 0 {
		return ImportResult{}, fmt.Errorf("import into %s: %w (%d segments)", l.URL(), ErrLogExists, len(segs))
	}
	if e, err := l.newestEpoch(ctx); err != nil || e > 0 {
		if err == nil {
			err = fmt.Errorf("%w (epoch %d claimed)", ErrLogExists, e)
		}
		return ImportResult{}, fmt.Errorf("import into %s: %w", l.URL(), err)
	}
	dir, err := os.MkdirTemp("", "jobevent-import-*")
	if err != nil {
		return ImportResult{}, fmt.Errorf("import into %s: %w", l.URL(), err)
	}
	defer os.RemoveAll(dir)
	plan, err := spoolImport(src, opts, dir)
	if err != nil {
		return ImportResult{}, fmt.Errorf("import into %s: %w", l.URL(), err)
	}
	if err := l.writeImport(ctx, plan); err != nil {
		return ImportResult{}, fmt.Errorf("import into %s: %w", l.URL(), err)
	}
	return ImportResult{Events: plan.events, Segments: len(plan.keys), Epochs: len(plan.claims)}, nil
}

// importPlan is what the first pass of Import made: segments encoded into
// files of dir, named like their keys' base names, and the epoch objects.
type importPlan struct {
	dir    string
	keys   []string
	claims []EpochInfo
	events int64
}

// importCheck holds what the first pass knows of the events so far.
type importCheck struct {
	n          int64
	prev       format.Event
	epochStart int64 // first seq of prev's epoch
}

// check refuses e when the events so far and e would not read back as
// one log.
func (c *importCheck) check(e *format.Event) error {
	c.n++
	p := &c.prev
	switch {
	case e.Epoch < 1 || e.Seq < 1:
		return fmt.Errorf("%w: event %d has epoch %d seq %d: both must be at least 1", ErrImportRefused, c.n, e.Epoch, e.Seq)
	case c.n == 1 && e.Seq != 1:
		return fmt.Errorf("%w: the first event has seq %d: a log starts at seq 1", ErrImportRefused, e.Seq)
	case c.n == 1:
		c.epochStart = e.Seq
	case e.Epoch == p.Epoch && e.Seq != p.Seq+1:
		return fmt.Errorf("%w: seq %d follows seq %d in epoch %d: seqs increase by 1, without gaps or repeats", ErrImportRefused, e.Seq, p.Seq, e.Epoch)
	case e.Epoch < p.Epoch:
		return fmt.Errorf("%w: seq %d is of epoch %d, after epoch %d: epochs never go back", ErrImportRefused, e.Seq, e.Epoch, p.Epoch)
	case e.Epoch > p.Epoch && (e.Seq > p.Seq+1 || e.Seq < c.epochStart):
		return fmt.Errorf("%w: epoch %d starts at seq %d after seq %d of epoch %d (which started at seq %d): a new epoch starts at or before the seq after the last, and not before its predecessor's start",
			ErrImportRefused, e.Epoch, e.Seq, p.Seq, p.Epoch, c.epochStart)
	case e.Epoch > p.Epoch:
		c.epochStart = e.Seq
	}
	c.prev = *e
	return nil
}

// spoolImport is the first pass of Import: it reads src whole, checks
// it, and encodes its segments into files of dir.
func spoolImport(src EventSource, opts ImportOptions, dir string) (*importPlan, error) {
	plan := &importPlan{dir: dir}
	var chk importCheck
	var chunk []format.Event
	var buf bytes.Buffer
	masters := make(map[int32]bool)
	flush := func() error {
		if len(chunk) == 0 {
			return nil
		}
		err := encodeCapped(&buf, chunk, func(part []format.Event, data []byte) error {
			key := FormatSegmentName(part[0].Epoch, part[0].Seq, part[len(part)-1].Seq)
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(key)), data, 0o600); err != nil {
				return fmt.Errorf("spool %s: %w", key, err)
			}
			plan.keys = append(plan.keys, key)
			return nil
		})
		chunk = chunk[:0]
		return err
	}
	for {
		e, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := chk.check(&e); err != nil {
			return nil, err
		}
		if n := len(chunk); n > 0 && (n >= opts.SegmentEvents || e.Epoch != chunk[n-1].Epoch) {
			if err := flush(); err != nil {
				return nil, err
			}
		}
		if n := len(plan.claims); n == 0 || plan.claims[n-1].Epoch != e.Epoch {
			plan.claims = append(plan.claims, EpochInfo{Epoch: e.Epoch, StartSeq: e.Seq})
		}
		if e.Kind == format.KindMasterStarted && !masters[e.Epoch] {
			masters[e.Epoch] = true
			plan.claims[len(plan.claims)-1].Master = e.Master
		}
		chunk = append(chunk, e)
		plan.events++
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if plan.events == 0 {
		return nil, fmt.Errorf("%w: no events", ErrImportRefused)
	}
	return plan, nil
}

// writeImport is the second pass of Import: it uploads the spooled
// segments, then the epoch objects. On a failure it deletes what it wrote.
func (l *Log) writeImport(ctx context.Context, plan *importPlan) error {
	var written []string
	err := func() error {
		for _, key := range plan.keys {
			data, err := os.ReadFile(filepath.Join(plan.dir, filepath.Base(key)))
			if err != nil {
				return err
			}
			if err := l.putKey(ctx, key, data); err != nil {
				return err
			}
			written = append(written, key)
		}
		for _, c := range plan.claims {
			if err := l.ClaimEpoch(ctx, c); err != nil {
				return err
			}
			written = append(written, epochKey(c.Epoch))
		}
		return nil
	}()
	if err == nil {
		return nil
	}
	dctx := context.WithoutCancel(ctx)
	for _, key := range written {
		if derr := l.store.delete(dctx, key); derr != nil && !errors.Is(derr, ErrNotFound) {
			return fmt.Errorf("%w; and removing what was written: %v", err, derr)
		}
	}
	return err
}
