package format

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"time"
)

// MaxJSONLine is the longest line, in bytes, that JSONReader accepts: 64
// MiB, over four times the largest segment a log may hold. A longer line
// is refused as soon as its first MaxJSONLine bytes are read, so reading
// one never holds more than about that much.
const MaxJSONLine = 64 << 20

// ErrSyntax is matched by every *SyntaxError: errors.Is(err, ErrSyntax).
var ErrSyntax = errors.New("jobevent/format: syntax error")

// SyntaxError reports a line of JSONL that is not a valid event: malformed
// JSON, an unknown kind or field, a field that does not belong to the kind,
// a wrong type, or trailing data.
type SyntaxError struct {
	Line  int    // 1-based line number
	Field string // the field concerned, as a path ("graph.vertices[1].id"); empty for the line as a whole
	Err   error  // what is wrong
}

// Error reads like `line 3: field "subtask": want integer, got string`.
func (e *SyntaxError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("line %d: %v", e.Line, e.Err)
	}
	return fmt.Sprintf("line %d: field %q: %v", e.Line, e.Field, e.Err)
}

// Unwrap returns the underlying error.
func (e *SyntaxError) Unwrap() error { return e.Err }

// Is reports whether target is ErrSyntax.
func (e *SyntaxError) Is(target error) bool { return target == ErrSyntax }

// unixEpoch is the time of a first event that has none.
var unixEpoch = time.Unix(0, 0).UTC()

// JSONReader reads events from JSONL, one per line, strictly (see
// SyntaxError), and fills in what hand-written files may leave out
// (docs/format.md): a missing seq counts up from the previous event's (the
// first: 1); a missing epoch follows the master_started lines (1 before any,
// and each master_started after the first without an epoch adds one); a
// missing job is the job of the last job_submitted; a missing time repeats
// the previous event's (the first: 1970-01-01T00:00:00Z). Missing fields of
// the kind are zero, a missing coordinator is "none" and a missing edge
// pattern "all_to_all". Blank lines are skipped. Times may have any RFC 3339
// precision and offset; they are returned in UTC.
//
// A JSONReader is not safe for concurrent use.
type JSONReader struct {
	r    *bufio.Reader
	line int
	long []byte // accumulates lines longer than the bufio buffer
	err  error  // sticky

	p jsonParser

	// fill-in state
	seq        int64
	time       time.Time
	epoch      int32
	sawMaster  bool
	submitJob  string
	sawSubmit  bool
	firstEvent bool
}

// NewJSONReader returns a reader of the JSONL in r.
func NewJSONReader(r io.Reader) *JSONReader {
	return &JSONReader{r: bufio.NewReaderSize(r, 64<<10), epoch: 1, time: unixEpoch, firstEvent: true}
}

// Next returns the next event. It returns io.EOF after the last one, a
// *SyntaxError for a line that is not a valid event, or the error of the
// underlying reader. After an error, Next keeps returning it.
func (r *JSONReader) Next() (Event, error) {
	var e Event
	if err := r.NextInto(&e); err != nil {
		return Event{}, err
	}
	return e, nil
}

// NextInto is Next decoding the event into *e, which it overwrites whole
// (after an error, *e holds nothing of use): a caller that keeps events in
// a slice saves the copies of returning each one.
func (r *JSONReader) NextInto(e *Event) error {
	if r.err != nil {
		return r.err
	}
	for {
		line, err := r.readLine()
		if err != nil {
			r.err = err
			return err
		}
		if isBlank(line) {
			continue
		}
		*e = Event{}
		present, perr := r.p.parseEvent(line, e)
		if perr != nil {
			perr.Line = r.line
			r.err = perr
			return perr
		}
		r.fillIn(e, present)
		return nil
	}
}

// Line returns the number (from 1) of the line of the event Next returned
// last, or of the line Next failed on; 0 before the first call.
func (r *JSONReader) Line() int { return r.line }

// readLine returns the next line without its '\n' (the slice is valid until
// the next call).
func (r *JSONReader) readLine() ([]byte, error) {
	r.long = r.long[:0]
	for {
		chunk, err := r.r.ReadSlice('\n')
		switch {
		case err == nil:
			if len(r.long) > 0 {
				if err := r.tooLong(len(chunk) - 1); err != nil {
					return nil, err
				}
				r.line++
				r.long = append(r.long, chunk[:len(chunk)-1]...)
				return r.long, nil
			}
			r.line++
			return chunk[:len(chunk)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			if err := r.tooLong(len(chunk)); err != nil {
				return nil, err
			}
			r.long = appendBounded(r.long, chunk)
		case err == io.EOF:
			if len(r.long) == 0 && len(chunk) == 0 {
				return nil, io.EOF
			}
			if err := r.tooLong(len(chunk)); err != nil {
				return nil, err
			}
			r.line++
			r.long = append(r.long, chunk...)
			return r.long, nil
		default:
			return nil, fmt.Errorf("format: read json line %d: %w", r.line+1, err)
		}
	}
}

// tooLong returns the error for the line being read when n more bytes
// would take it past MaxJSONLine.
func (r *JSONReader) tooLong(n int) error {
	if len(r.long)+n <= MaxJSONLine {
		return nil
	}
	return &SyntaxError{Line: r.line + 1, Err: fmt.Errorf("line longer than %d bytes (%d MiB, the limit of a JSONL line)", MaxJSONLine, MaxJSONLine>>20)}
}

// appendBounded appends chunk to long, growing it by doubling but never
// past MaxJSONLine plus one buffer, so that a line near the limit does not
// hold twice the limit.
func appendBounded(long, chunk []byte) []byte {
	if need := len(long) + len(chunk); need > cap(long) {
		grown := make([]byte, len(long), min(max(2*cap(long), need), MaxJSONLine+len(chunk)))
		copy(grown, long)
		long = grown
	}
	return append(long, chunk...)
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// fillIn applies the missing-field rules to e.
func (r *JSONReader) fillIn(e *Event, present presence) {
	if !present.seq {
		if r.firstEvent {
			e.Seq = 1
		} else {
			e.Seq = r.seq + 1
		}
	}
	if e.Kind == KindMasterStarted {
		switch {
		case present.epoch:
			r.epoch = e.Epoch
		case r.sawMaster:
			r.epoch++
		}
		r.sawMaster = true
	}
	if !present.epoch {
		e.Epoch = r.epoch
	}
	if e.Kind == KindJobSubmitted && present.job {
		r.submitJob, r.sawSubmit = e.Job, true
	}
	if !present.job && r.sawSubmit {
		e.Job = r.submitJob
	}
	if !present.time {
		e.Time = r.time
	}
	r.seq, r.time, r.firstEvent = e.Seq, e.Time, false
}

// presence records which common fields a line had.
type presence struct {
	seq, time, epoch, job bool
}
