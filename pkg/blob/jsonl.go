package blob

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/jobevent/jobevent/internal/human"
	"github.com/jobevent/jobevent/pkg/format"
)

// JSONLOptions configures a JSONLReader.
type JSONLOptions struct {
	// AnySeq returns the events whatever their seqs: below 1, skipping or
	// repeating one. Fencing still applies. It is for a validator that
	// reports such seqs as findings (replay.Validate); every other reader
	// wants them refused.
	AnySeq bool
}

// JSONLReader streams the events of a canonical JSONL log (one event per
// line, docs/format.md), such as `jobevent dump` writes, with the reader
// rules of a bucket log that apply to a file, by the same code as Reader:
// rows of an epoch at or past the start of the next epoch (its lowest seq
// in the file) were written by a fenced master and are filtered, with a
// NoticeFenced per run of them; among the events kept, a first event other
// than seq 1 or a seq gap or repeat is a *CorruptError naming the file and
// wrapping ErrSeqGap (SeqGapError). A line that is not a valid event is a
// *format.SyntaxError, wrapped with the file's name.
//
// It offers what replay reads from a source: Next, Key and Notices. A
// JSONLReader is not safe for concurrent use.
type JSONLReader struct {
	name    string
	closer  io.Closer // nil: the caller owns the input
	r       *format.JSONReader
	fences  map[int32]*fence
	run     *fencedRun // open run of fenced rows
	notices []format.Notice
	anySeq  bool
	last    int64 // seq of the last event returned; 0 before the first
}

// fencedRun is a run of consecutive fenced rows of one epoch.
type fencedRun struct {
	format.Notice
	fence *fence
}

// OpenJSONL opens the JSONL log at path for reading, as NewJSONLReader
// does; Close closes the file. A file that does not exist, or holds no
// event, is a *NoLogError naming path (errors.Is(err, ErrNoLog)).
func OpenJSONL(path string, opts JSONLOptions) (*JSONLReader, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &NoLogError{URL: path}
		}
		return nil, err
	}
	r, err := NewJSONLReader(f, path, opts)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}

// NewJSONLReader returns a reader of the JSONL log in rs; name is what
// errors, notices and Key call it (a path). It reads rs twice: once whole
// to find where each epoch starts, so that fencing holds whatever order the
// lines are in, then from the start as Next is called. An input without
// events is a *NoLogError naming name; an event with a seq below 1 (unless
// opts.AnySeq) is an error naming the event, found on the first reading.
// A line that is not a valid event is returned by Next when it is reached.
func NewJSONLReader(rs io.ReadSeeker, name string, opts JSONLOptions) (*JSONLReader, error) {
	starts, events, bad, err := scanEpochStarts(rs, opts.AnySeq)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if events == 0 && !bad {
		return nil, &NoLogError{URL: name} // empty, as a bucket without segments
	}
	if _, err := rs.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &JSONLReader{name: name, r: format.NewJSONReader(rs), fences: fencesOf(starts), anySeq: opts.AnySeq}, nil
}

// scanEpochStarts reads every event of r and returns the start of each
// epoch (its lowest seq), with the number of events read. A line that is
// not a valid event ends the scan (bad is true): Next reports it where it
// is. An event whose seq is below 1 (written so, or a missing seq after the
// largest one) is an error naming the event, unless anySeq: no reader of
// the file would show it.
func scanEpochStarts(r io.Reader, anySeq bool) (starts map[int32]int64, events int64, bad bool, err error) {
	starts = make(map[int32]int64)
	jr := format.NewJSONReader(r)
	for {
		e, rerr := jr.Next()
		if rerr != nil {
			return starts, events, rerr != io.EOF, nil
		}
		events++
		if e.Seq < 1 && !anySeq {
			return nil, events, false, fmt.Errorf("event %d (%s): seq %d: want a seq >= 1 (a missing seq is the previous seq + 1, which must not pass %d)",
				events, e.Kind, e.Seq, int64(math.MaxInt64))
		}
		if s, ok := starts[e.Epoch]; !ok || e.Seq < s {
			starts[e.Epoch] = e.Seq
		}
	}
}

// Line returns the line number (from 1) of the event Next returned last.
func (r *JSONLReader) Line() int { return r.r.Line() }

// Next returns the next event, or io.EOF after the last one. After an
// error, Next keeps returning it.
func (r *JSONLReader) Next() (format.Event, error) {
	for {
		e, err := r.r.Next()
		if err != nil {
			r.endRun()
			if err == io.EOF {
				return format.Event{}, io.EOF
			}
			return format.Event{}, fmt.Errorf("%s: %w", r.name, err)
		}
		if f := r.fences[e.Epoch]; f.drops(e.Seq) {
			r.addFenced(&e, f)
			continue
		}
		r.endRun()
		if !r.anySeq {
			if err := follows(r.last, e.Seq); err != nil {
				return format.Event{}, &CorruptError{Key: r.name, Err: err}
			}
		}
		r.last = e.Seq
		return e, nil
	}
}

// addFenced counts e, a fenced row, into the open run of fenced rows, or
// starts a run.
func (r *JSONLReader) addFenced(e *format.Event, f *fence) {
	if r.run != nil && r.run.Epoch == e.Epoch && r.run.Seq+r.run.Count == e.Seq {
		r.run.Count++
	} else {
		r.endRun()
		r.run = &fencedRun{Notice: format.Notice{Kind: format.NoticeFenced, Key: r.name, Seq: e.Seq, Epoch: e.Epoch, Count: 1, Line: r.r.Line()}, fence: f}
	}
}

// endRun ends the open run of fenced rows, if any, with its notice.
func (r *JSONLReader) endRun() {
	if r.run == nil {
		return
	}
	n := r.run.Notice
	n.Message = fmt.Sprintf("%s of fenced epoch %d from seq %d (epoch %d starts at seq %d); filtered",
		human.Count(n.Count, "row"), n.Epoch, n.Seq, r.run.fence.epoch, r.run.fence.seq)
	r.notices = append(r.notices, n)
	r.run = nil
}

// Key returns the name of the input (the path, for OpenJSONL).
func (r *JSONLReader) Key() string { return r.name }

// Notices returns the notices gathered since the previous call: the runs
// of fenced rows passed over.
func (r *JSONLReader) Notices() []format.Notice {
	n := r.notices
	r.notices = nil
	return n
}

// Close closes the file OpenJSONL opened; for NewJSONLReader it does
// nothing, the caller owning the input.
func (r *JSONLReader) Close() error {
	if r.closer == nil {
		return nil
	}
	return r.closer.Close()
}
