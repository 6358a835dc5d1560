package format

import (
	"bytes"
	"errors"
	"fmt"
	"io"
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
// for the same events, and like it, it encodes a large run's list columns
// on a second goroutine. A SegmentStream is not safe for concurrent use.
type SegmentStream struct {
	w       io.Writer
	buf     *bytes.Buffer
	enc     *segmentEncoder
	version string
	err     error // sticky
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
	if err := s.enc.write(events); err != nil {
		return s.fail(err)
	}
	return nil
}

// Close ends the segment and writes it to w with one Write.
func (s *SegmentStream) Close() error {
	if s.err != nil {
		return s.err
	}
	if s.enc == nil {
		s.start(false)
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
}

// fail makes err sticky and drops the encoder, whose writer may hold a
// partial file.
func (s *SegmentStream) fail(err error) error {
	s.err, s.enc = err, nil
	if s.buf != nil {
		putSegmentBuffer(s.buf)
		s.buf = nil
	}
	return err
}
