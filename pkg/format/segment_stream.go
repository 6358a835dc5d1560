package format

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	goruntime "runtime"
	"sync/atomic"
)

// SegmentRun is the length that every run of events but the last given
// to SegmentStream.Write must be a multiple of.
const SegmentRun = encodeBatch

// ErrNotStreamable is returned by SegmentStream.Write for events that
// only SchemaVersionDatasets can store (edge datasets, ranges or declared
// datasets) after a stream that started without them: EncodeSegment must
// then encode the segment's events whole.
var ErrNotStreamable = errors.New("jobevent/format: segment needs the dataset schema: encode it whole")

// SegmentStream encodes one segment from its events handed over in order,
// a run at a time, so that a segment is encoded while its later events are
// still read (import does this). Its bytes are those EncodeSegment writes
// for the same events. When more than one CPU may run Go code, its list
// columns are written on a goroutine of their own, which follows Write a
// run behind or more: the events of every run must stay unchanged until
// Close returns or a call fails. A SegmentStream is not safe for
// concurrent use.
type SegmentStream struct {
	w       io.Writer
	buf     *bytes.Buffer
	enc     *segmentEncoder
	version string
	lists   *listWriter // nil when the list columns are written by Write itself
	err     error       // sticky
}

// NewSegmentStream returns a stream that writes its segment to w when
// closed.
func NewSegmentStream(w io.Writer) *SegmentStream { return &SegmentStream{w: w} }

// Write encodes the next run of the segment's events, which must hold a
// multiple of SegmentRun events unless no run follows. It returns the
// error EncodeSegment returns for the same events (an unknown kind, a
// time out of range), or ErrNotStreamable. After an error, Write and
// Close keep returning it and nothing is written.
func (s *SegmentStream) Write(events []Event) error {
	if s.err != nil || len(events) == 0 {
		return s.err
	}
	if s.enc == nil {
		s.start(writesDatasets(events))
	} else if s.version == SchemaVersion && writesDatasets(events) {
		return s.fail(ErrNotStreamable)
	}
	if s.enc.rows%SegmentRun != 0 {
		return s.fail(fmt.Errorf("format: segment stream: a run after %d events, not a multiple of %d", s.enc.rows, SegmentRun))
	}
	if err := s.write(events); err != nil {
		return s.fail(err)
	}
	return nil
}

// write is segmentEncoder.write with the list columns handed to s.lists:
// the flat columns are written here, while the list columns of earlier
// runs are still being written, and the two meet only where a row group
// ends and at Close. (Meeting after every run, as writeGroup does, left a
// CPU idle whenever one half of a run took longer than the other.)
func (s *SegmentStream) write(events []Event) error {
	if s.lists == nil {
		return s.enc.write(events)
	}
	return s.enc.writeGroups(events, func(part []Event) error {
		s.lists.runs <- part
		return s.enc.writeFlat(part)
	}, s.lists.sync)
}

// listWriter writes the list columns of a stream's runs on a goroutine
// of its own.
type listWriter struct {
	runs chan []Event // a run to write, or nil to report on acks
	acks chan error   // the first error so far, for each nil run
	stop atomic.Bool  // the stream failed: skip the runs still queued
}

// listRuns is the most runs a listWriter holds queued: a short queue
// keeps the list columns reading a run's events soon after the flat ones
// did, while they are still in the CPU's caches. (An import of 1M events
// took 0.47 s with 2, 0.48 s with 1 and 4, 0.52 s with 64, medians of 7
// to 15 runs on 2 cores.)
const listRuns = 2

func startListWriter(enc *segmentEncoder) *listWriter {
	lw := &listWriter{runs: make(chan []Event, listRuns), acks: make(chan error)}
	listWriters.Add(1)
	go func() {
		var err error
		for run := range lw.runs {
			switch {
			case run == nil:
				lw.acks <- err
			case err == nil && !lw.stop.Load():
				if werr := enc.writeLists(run); werr != nil {
					err = fmt.Errorf("format: encode segment: %w", werr)
				}
			}
		}
		listWriters.Add(-1)
		close(lw.acks)
	}()
	return lw
}

// listWriters counts the listWriters whose goroutine runs, for tests.
var listWriters atomic.Int64

// sync waits until every run sent so far is written, and returns the
// first error.
func (lw *listWriter) sync() error {
	lw.runs <- nil
	return <-lw.acks
}

// close stops the goroutine once the runs sent so far are written (or,
// after a failure, skipped), and returns the first error. No event of
// the stream is read after it returns.
func (lw *listWriter) close(failed bool) error {
	lw.stop.Store(failed)
	err := lw.sync()
	close(lw.runs)
	for range lw.acks {
	}
	return err
}

// Close ends the segment and writes it to w with one Write.
func (s *SegmentStream) Close() error {
	if s.err != nil {
		return s.err
	}
	if s.enc == nil {
		s.start(false)
	}
	if s.lists != nil {
		err := s.lists.close(false)
		s.lists = nil
		if err != nil {
			return s.fail(err)
		}
	}
	if err := s.enc.finish(); err != nil {
		return s.fail(err)
	}
	putEncoder(s.enc)
	s.enc = nil
	err := writeSealed(s.w, s.buf.Bytes())
	putSegmentBuffer(s.buf)
	s.buf, s.err = nil, errors.New("format: segment stream: closed")
	return err
}

// start begins the segment in the schema version that the first run
// needs.
func (s *SegmentStream) start(datasets bool) {
	s.buf = segmentBuffers.Get().(*bytes.Buffer)
	s.buf.Reset()
	s.version = SchemaVersion
	if datasets {
		s.version = SchemaVersionDatasets
		s.enc = newSegmentEncoder(s.version)
	} else {
		s.enc = getEncoder()
	}
	s.enc.begin(s.buf)
	if goruntime.GOMAXPROCS(0) >= 2 {
		s.lists = startListWriter(s.enc)
	}
}

// fail makes err sticky and drops the encoder, whose writer may hold a
// partial file.
func (s *SegmentStream) fail(err error) error {
	if s.lists != nil {
		s.lists.close(true)
		s.lists = nil
	}
	s.err, s.enc = err, nil
	if s.buf != nil {
		putSegmentBuffer(s.buf)
		s.buf = nil
	}
	return err
}
