package blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/jobevent/jobevent/internal/human"
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
		return "", fmt.Errorf("epoch %d: %w", events[0].Epoch, err)
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
// Import is StageImport followed by StagedImport.Write: nothing is written
// to l unless all of src reads and checks and no error of its input can
// remain, and a failed write removes what it wrote, so a fixed import can
// be run again. Import does not judge the log's events beyond what
// StageImport checks: validate does.
func Import(ctx context.Context, l *Log, src EventSource, opts ImportOptions) (ImportResult, error) {
	if err := l.checkImportTarget(ctx); err != nil {
		return ImportResult{}, err
	}
	st, err := StageImport(ctx, src, opts)
	if err != nil {
		return ImportResult{}, fmt.Errorf("import into %s: %w", l.URL(), err)
	}
	defer st.Close()
	return st.Write(ctx, l)
}

// checkImportTarget returns an error wrapping ErrLogExists unless l holds
// no segments and no epoch objects.
func (l *Log) checkImportTarget(ctx context.Context) error {
	segs, _, err := l.listSegments(ctx)
	if err != nil {
		return fmt.Errorf("import into %s: %w", l.URL(), err)
	}
	if len(segs) > 0 {
		return fmt.Errorf("import into %s: %w (%s)", l.URL(), ErrLogExists, human.Count(len(segs), "segment"))
	}
	if e, err := l.newestEpoch(ctx); err != nil || e > 0 {
		if err == nil {
			err = fmt.Errorf("%w (epoch %d claimed)", ErrLogExists, e)
		}
		return fmt.Errorf("import into %s: %w", l.URL(), err)
	}
	return nil
}

// StagedImport is an import that has been read and checked, and is
// encoded, or still being encoded, into a local temporary directory; it
// is not yet written to any log. Its methods must not be called
// concurrently.
type StagedImport struct {
	dir    string
	chunks []*stageChunk // in log order; their files in dir bear their keys' base names
	claims []EpochInfo
	events int64

	stop     context.CancelCauseFunc // stops the encoders
	encoders sync.WaitGroup

	reads [putAhead][]byte // putGroup's buffers for the staged files, reused group after group
}

// Events returns the number of events staged.
func (st *StagedImport) Events() int64 { return st.events }

// Close stops any encoding still under way and removes the staged
// segments.
func (st *StagedImport) Close() error {
	st.stop(errors.New("staged import closed"))
	st.encoders.Wait()
	return os.RemoveAll(st.dir)
}

// Write writes the staged segments to l in order, each once it is
// encoded, then the epoch objects, and returns what it wrote. l must hold
// no events and no epoch objects yet (ErrLogExists otherwise); staged
// input of no events is refused (ErrImportRefused). On a failure,
// encoding's included, Write deletes what it wrote.
func (st *StagedImport) Write(ctx context.Context, l *Log) (ImportResult, error) {
	if st.events == 0 {
		return ImportResult{}, fmt.Errorf("import into %s: %w: no events", l.URL(), ErrImportRefused)
	}
	if err := l.checkImportTarget(ctx); err != nil {
		return ImportResult{}, err
	}
	segments, err := l.writeImport(ctx, st)
	if err != nil {
		return ImportResult{}, fmt.Errorf("import into %s: %w", l.URL(), err)
	}
	return ImportResult{Events: st.events, Segments: segments, Epochs: len(st.claims)}, nil
}

// writeImport uploads the staged segments, each chunk's once it is
// encoded, then the epoch objects, and returns the number of segments. On
// a failure it deletes what it wrote.
func (l *Log) writeImport(ctx context.Context, st *StagedImport) (segments int, err error) {
	var written []string
	err = func() error {
		for i := 0; i < len(st.chunks); {
			if err := st.chunks[i].wait(ctx); err != nil {
				return err
			}
			var keys []string // of chunk i and the encoded ones after it
			for ; i < len(st.chunks) && st.chunks[i].encoded(); i++ {
				keys = append(keys, st.chunks[i].keys...)
			}
			n, err := l.putStaged(ctx, st, keys)
			written = append(written, keys[:n]...)
			if err != nil {
				return err
			}
		}
		segments = len(written)
		for _, c := range st.claims {
			if err := l.ClaimEpoch(ctx, c); err != nil {
				return err
			}
			written = append(written, epochKey(c.Epoch))
		}
		return nil
	}()
	if err == nil {
		return segments, nil
	}
	dctx := context.WithoutCancel(ctx)
	for _, key := range written {
		if derr := l.store.delete(dctx, key); derr != nil && !errors.Is(derr, ErrNotFound) {
			return 0, fmt.Errorf("%w; and removing what was written: %v", err, derr)
		}
	}
	return 0, err
}

// preparer is an objectStore that can write an object's data before it
// creates the object: fileStore.prepare.
type preparer interface {
	prepare(ctx context.Context, key string, data []byte) (publish func() error, discard func(), err error)
}

// putAhead is the most staged segments whose data putStaged writes and
// syncs at once.
const putAhead = 4

// putStaged uploads the staged segments of keys in order and returns how
// many it wrote. On a preparer (file://) the data of up to putAhead of
// them is written and synced at once, and each is then created in order:
// readers see them appear one after the other, as with one put after
// another, and the syncs overlap.
func (l *Log) putStaged(ctx context.Context, st *StagedImport, keys []string) (int, error) {
	p, ok := l.store.(preparer)
	for i := 0; i < len(keys); {
		group := keys[i:min(i+putAhead, len(keys))]
		if !ok {
			group = group[:1]
		}
		n, err := l.putGroup(ctx, p, st, group)
		if i += n; err != nil {
			return i, err
		}
	}
	return len(keys), nil
}

// putGroup uploads the staged segments of keys, at most putAhead,
// preparing them together on p unless p is nil, and returns how many it
// wrote. The files are read into st.reads, whose buffers the next group
// reuses: fresh memory for every segment cost a page fault per 4 KiB.
func (l *Log) putGroup(ctx context.Context, p preparer, st *StagedImport, keys []string) (int, error) {
	type staged struct {
		data    []byte
		publish func() error
		discard func()
		err     error
	}
	out := make([]staged, len(keys))
	var wg sync.WaitGroup
	for i, key := range keys {
		wg.Go(func() {
			s := &out[i]
			if s.data, s.err = readInto(st.reads[i], filepath.Join(st.dir, filepath.Base(key))); s.err != nil {
				return
			}
			st.reads[i] = s.data
			if p == nil {
				return
			}
			if s.publish, s.discard, s.err = p.prepare(ctx, key, s.data); s.err != nil {
				s.err = fmt.Errorf("write segment: %w", s.err)
			}
		})
	}
	wg.Wait()
	for _, s := range out {
		if s.discard != nil {
			defer s.discard()
		}
	}
	for i, key := range keys {
		s := &out[i]
		err := s.err
		if err == nil && p == nil {
			err = l.putKey(ctx, key, s.data)
		} else if err == nil {
			if err = l.keptIfSame(ctx, key, s.data, s.publish()); err != nil {
				err = fmt.Errorf("write segment: %w", err)
			}
		}
		if err != nil {
			return i, err
		}
	}
	return len(keys), nil
}

// readInto reads the file at path into buf, grown if it is too small,
// and returns the file's bytes.
func readInto(buf []byte, path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	n := int(fi.Size())
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := io.ReadFull(f, buf); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return buf, nil
}
