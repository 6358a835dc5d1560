package format

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/parquet-go/parquet-go"
)

// SchemaVersion is the version of the segment schema this package writes,
// "major.minor", for segments whose graph names no dataset, range or
// declared dataset: every segment of jobevent's own runtime. A reader
// refuses segments of another major version and reads every minor version
// of its own. It is part of the format.
const SchemaVersion = "1.1"

// SchemaVersionDatasets is the version of a segment that holds a graph
// with edge datasets, ranges or declared datasets (a Flink log's): 1.1
// and the columns that carry them. Writing it only then keeps every other
// segment free of their per-column cost. It is part of the format.
const SchemaVersionDatasets = "1.2"

// SchemaVersionKey is the footer key/value metadata key holding the schema
// version of a segment. It is part of the format.
const SchemaVersionKey = "jobevent.schema_version"

// ChecksumKey is the footer key/value metadata key holding the segment
// checksum: 8 lowercase hex digits of the CRC-32C (Castagnoli) of the whole
// file, computed while the value reads "00000000". It is part of the format.
const ChecksumKey = "jobevent.crc32c"

// supportedMajor is the major schema version this package reads.
const supportedMajor = "1"

var (
	// ErrNoFooter is returned by OpenSegment for data that can be a strict
	// prefix of a segment (it begins like one and has no trailing magic): a
	// truncated segment, which is what a torn upload looks like. A whole
	// object with a damaged trailer, or bytes that cannot begin a segment,
	// are ErrCorrupt.
	ErrNoFooter = errors.New("jobevent/format: segment has no valid footer")

	// ErrCorrupt is returned for a segment that cannot be trusted: checksum
	// mismatch, a footer or page that does not decode, a schema that is not
	// the event schema.
	ErrCorrupt = errors.New("jobevent/format: corrupt segment")

	// ErrUnknownVersion is matched by *VersionError.
	ErrUnknownVersion = errors.New("jobevent/format: unknown schema version")
)

// VersionError reports a segment written with a schema major version this
// package cannot read. errors.Is(err, ErrUnknownVersion) holds.
type VersionError struct {
	Version   string   // the version found in the footer
	Supported []string // the versions this package reads, e.g. "1.x"
}

// Error names the version found and the versions supported.
func (e *VersionError) Error() string {
	return fmt.Sprintf("jobevent/format: segment schema version %q is not supported (this build reads %s)",
		e.Version, strings.Join(e.Supported, ", "))
}

// Is reports whether target is ErrUnknownVersion.
func (e *VersionError) Is(target error) bool { return target == ErrUnknownVersion }

// segmentBatch is the number of rows encoded or decoded at a time.
const segmentBatch = 256

// EncodeSegment writes events as one whole Parquet segment to w: zstd
// compressed, with the schema version and checksum in the footer. Events are
// written as given (seq, epoch and time are not checked); a zero Time is
// stored as 1970-01-01T00:00:00Z, and a time outside the int64 nanosecond
// range gives ErrTimeRange. An unknown kind is an error. Nothing is written
// to w unless encoding succeeds; the segment is then written with one Write.
// A large segment's list columns are encoded on a second goroutine while
// the others are (the bytes are the same either way). EncodeSegment is
// safe for concurrent use.
func EncodeSegment(w io.Writer, events []Event) error {
	buf := segmentBuffers.Get().(*bytes.Buffer)
	defer putSegmentBuffer(buf)
	buf.Reset()
	if err := encodeSegment(buf, events, SchemaVersion); err != nil {
		return err
	}
	return writeSealed(w, buf.Bytes())
}

// writeSealed seals the checksum of the encoded segment data and writes
// it to w with one Write.
func writeSealed(w io.Writer, data []byte) error {
	if err := sealChecksum(data); err != nil {
		return fmt.Errorf("format: encode segment: %w", err)
	}
	if _, err := w.Write(data); err != nil {
		return fmt.Errorf("format: write segment: %w", err)
	}
	return nil
}

// segmentBuffers holds encoding buffers for reuse.
var segmentBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// putSegmentBuffer returns buf to the pool unless it grew very large (a
// huge compacted segment), which is left to the garbage collector.
func putSegmentBuffer(buf *bytes.Buffer) {
	if buf.Cap() <= 64<<20 {
		segmentBuffers.Put(buf)
	}
}

// SegmentReader reads the events of one segment in order. It is not safe
// for concurrent use.
type SegmentReader struct {
	file    *parquet.File
	decoder *segmentDecoder
	version string
	backing []Event // storage of batch
	batch   []Event // decoded events not yet returned by Next or Read
	err     error   // sticky
	backErr error   // sticky, of ReadBack
}

// OpenSegment opens a whole segment held in memory; data must not change
// while the reader is in use, and the events read do not refer to it. It
// returns ErrNoFooter for data that can be a truncated segment (see
// classifyTail), ErrCorrupt (wrapped) for a segment
// that fails its checksum or does not decode, and a *VersionError for an
// unknown major schema version. OpenSegment is safe for concurrent use; each
// SegmentReader is used by one goroutine at a time.
func OpenSegment(data []byte) (sr *SegmentReader, err error) {
	defer func() {
		if r := recover(); r != nil {
			sr, err = nil, fmt.Errorf("%v: %w", r, ErrCorrupt)
		}
	}()
	if err := checkTail(data); err != nil {
		return nil, err
	}
	// The checksum is verified before anything else is decoded. A segment
	// without one is either of an unknown major version (which may protect
	// itself differently) or corrupt.
	sumErr := verifyChecksum(data)
	if sumErr != nil && !errors.Is(sumErr, errNoChecksum) {
		return nil, sumErr
	}
	if err := checkFooter(data[len(data)-8-footerLength(data) : len(data)-8]); err != nil {
		return nil, err
	}
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)), parquet.SkipBloomFilters(true), parquet.SkipPageIndex(true))
	if err != nil {
		return nil, fmt.Errorf("%v: %w", err, ErrCorrupt)
	}
	version, ok := f.Lookup(SchemaVersionKey)
	if !ok {
		return nil, fmt.Errorf("no %s in footer: %w", SchemaVersionKey, ErrCorrupt)
	}
	if err := checkVersion(version); err != nil {
		return nil, err
	}
	if sumErr != nil {
		return nil, sumErr
	}
	if err := checkSchema(f.Schema(), version); err != nil {
		return nil, err
	}
	return &SegmentReader{
		file:    f,
		decoder: newSegmentDecoder(f),
		version: version,
	}, nil
}

// segmentMagic begins and ends every Parquet file. It is part of the
// format.
const segmentMagic = "PAR1"

// minSegmentSize is the smallest file that can hold a footer: magic,
// footer length, magic.
const minSegmentSize = 4 + 4 + 4

// checkTail checks that data has the frame of a whole segment (leading
// magic, a footer length that fits, trailing magic) and otherwise decides
// what it is: ErrNoFooter only for data that can be a truncated segment,
// ErrCorrupt for anything else (see classifyTail).
func checkTail(data []byte) error {
	n := len(data)
	if n < minSegmentSize || string(data[n-4:]) != segmentMagic {
		return classifyTail(data)
	}
	if string(data[:4]) != segmentMagic {
		return fmt.Errorf("no leading magic: not a Parquet file: %w", ErrCorrupt)
	}
	if footer := footerLength(data); footer == 0 || footer > n-minSegmentSize {
		// Whole (it ends in the magic) but its footer length is damaged.
		return fmt.Errorf("footer length %d in %d bytes: %w", footer, n, ErrCorrupt)
	}
	return nil
}

// footerLength reads the little-endian footer length before the trailing
// magic of data (at least 8 bytes long).
func footerLength(data []byte) int {
	n := len(data)
	return int(uint32(data[n-8]) | uint32(data[n-7])<<8 | uint32(data[n-6])<<16 | uint32(data[n-5])<<24)
}

// classifyTail classifies data that does not end in a segment's trailing
// magic. Uploads are atomic, so a torn segment is rare, and the reader
// drops a torn segment's events with a warning: data is torn
// (ErrNoFooter) only when it can be a strict prefix of a segment, and
// corrupt (ErrCorrupt) when it provably is not:
//
//   - bytes that do not begin with the leading magic (or a prefix of it)
//     are not a Parquet file;
//   - data that verifies (frame and checksum) once its last 4 bytes are
//     replaced by the magic is a whole segment whose trailing magic is
//     damaged, unless it verifies as a segment cut 1 to 3 bytes short;
//   - a segment that verifies, followed by more bytes, is not a prefix.
func classifyTail(data []byte) error {
	n := len(data)
	if n < 4 {
		if string(data) == segmentMagic[:n] {
			return fmt.Errorf("%d bytes, a prefix of the leading magic: %w", n, ErrNoFooter)
		}
		return fmt.Errorf("%d bytes, no leading magic: not a Parquet file: %w", n, ErrCorrupt)
	}
	if string(data[:4]) != segmentMagic {
		return fmt.Errorf("%d bytes, no leading magic: not a Parquet file: %w", n, ErrCorrupt)
	}
	for k := 3; k >= 1; k-- { // cut inside the trailing magic
		if bytes.HasSuffix(data, []byte(segmentMagic[:k])) && verifiesWhole(append(bytes.Clone(data), segmentMagic[k:]...)) {
			return fmt.Errorf("%d bytes, the last %d bytes of a segment missing: %w", n, 4-k, ErrNoFooter)
		}
	}
	if n >= minSegmentSize && verifiesWhole(append(bytes.Clone(data[:n-4]), segmentMagic...)) {
		return fmt.Errorf("%d bytes, a whole segment whose trailing magic is damaged (%q): %w", n, data[n-4:], ErrCorrupt)
	}
	if i := bytes.LastIndex(data, []byte(segmentMagic)); i+4 >= minSegmentSize && verifiesWhole(data[:i+4]) {
		return fmt.Errorf("a segment of %d bytes followed by %d other bytes: %w", i+4, n-i-4, ErrCorrupt)
	}
	return fmt.Errorf("%d bytes, no trailing magic (a truncated segment): %w", n, ErrNoFooter)
}

// verifiesWhole reports whether data has the frame of a whole segment and
// its checksum matches.
func verifiesWhole(data []byte) bool {
	n := len(data)
	if n < minSegmentSize || string(data[:4]) != segmentMagic || string(data[n-4:]) != segmentMagic {
		return false
	}
	if footer := footerLength(data); footer == 0 || footer > n-minSegmentSize {
		return false
	}
	return verifyChecksum(data) == nil
}

// checkVersion accepts every minor version of the supported major.
func checkVersion(v string) error {
	major, minor, ok := strings.Cut(v, ".")
	if !ok || !isDigits(major) || !isDigits(minor) {
		return fmt.Errorf("schema version %q is malformed: %w", v, ErrCorrupt)
	}
	if major != supportedMajor {
		return &VersionError{Version: v, Supported: []string{supportedMajor + ".x"}}
	}
	return nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// addedColumns are the columns a minor version added, by the minor: a
// segment of an earlier minor version lacks them, and reads as if every
// row had their zero value (no edge datasets, ranges or datasets).
var addedColumns = map[string]int{
	"graph.edges.list.element.dataset":     2,
	"graph.ranges.list.element.edge":       2,
	"graph.ranges.list.element.subtask":    2,
	"graph.ranges.list.element.first":      2,
	"graph.ranges.list.element.last":       2,
	"graph.datasets.list.element.id":       2,
	"graph.datasets.list.element.producer": 2,
}

// checkSchema verifies that every column of the event schema is in s with
// the same physical type, except the columns added after the segment's
// minor version. Extra columns (a newer minor version) are ignored.
func checkSchema(s *parquet.Schema, version string) error {
	_, minorStr, _ := strings.Cut(version, ".")
	minor, _ := strconv.Atoi(minorStr)
	for _, path := range eventSchema.Columns() {
		want, _ := eventSchema.Lookup(path...)
		got, ok := s.Lookup(path...)
		if added, later := addedColumns[strings.Join(path, ".")]; !ok && later && minor < added {
			continue
		}
		if !ok {
			return fmt.Errorf("schema has no column %s: %w", strings.Join(path, "."), ErrCorrupt)
		}
		if got.MaxDefinitionLevel != want.MaxDefinitionLevel || got.MaxRepetitionLevel != want.MaxRepetitionLevel {
			return fmt.Errorf("column %s has levels %d/%d, want %d/%d: %w", strings.Join(path, "."),
				got.MaxRepetitionLevel, got.MaxDefinitionLevel, want.MaxRepetitionLevel, want.MaxDefinitionLevel, ErrCorrupt)
		}
		if got.Node.Type().Kind() != want.Node.Type().Kind() {
			return fmt.Errorf("column %s is %s, want %s: %w", strings.Join(path, "."),
				got.Node.Type().Kind(), want.Node.Type().Kind(), ErrCorrupt)
		}
	}
	return nil
}

// Len returns the number of events in the segment.
func (r *SegmentReader) Len() int { return int(r.file.NumRows()) }

// Version returns the schema version recorded in the segment's footer.
func (r *SegmentReader) Version() string { return r.version }

// Read decodes up to len(buf) events into buf and returns how many it
// decoded. At the end it returns io.EOF, possibly together with n > 0. A
// page that does not decode gives ErrCorrupt (wrapped).
func (r *SegmentReader) Read(buf []Event) (n int, err error) {
	if len(r.batch) > 0 {
		n = copy(buf, r.batch)
		r.batch = r.batch[n:]
		if n == len(buf) {
			return n, nil
		}
	}
	for n < len(buf) {
		m, err := r.readInto(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// readInto decodes one batch of at most segmentBatch rows into buf.
func (r *SegmentReader) readInto(buf []Event) (n int, err error) {
	return r.guarded(func() (int, error) { return r.decoder.decode(buf) })
}

// guarded runs one step of the decoder: an error, or a corruption it
// panics with, is sticky and closes the decoder.
func (r *SegmentReader) guarded(step func() (int, error)) (n int, err error) {
	return guard(&r.err, func() { r.decoder.close() }, step)
}

// guard runs step unless *sticky holds an error: an error it returns, or
// a corruption it panics with, is stored in *sticky, and closed is
// called.
func guard(sticky *error, closed func(), step func() (int, error)) (n int, err error) {
	if *sticky != nil {
		return 0, *sticky
	}
	defer func() {
		if p := recover(); p != nil {
			n, err = 0, recoverCorruption(p, "read segment")
		}
		if err != nil {
			*sticky = err
			closed()
		}
	}()
	return step()
}

// A Batch carries what ReadFront learned of a batch of rows to ReadBack.
type Batch struct {
	sets [segmentBatch]fieldSet // the field set of each row's kind
}

// BatchRows is the most rows of a batch: ReadFront decodes at most this
// many at a time.
const BatchRows = segmentBatch

// ReadFront and ReadBack split Read in two stages, for a caller that
// decodes one segment on two goroutines: one calls ReadFront for each
// batch in turn, the other ReadBack for each batch ReadFront returned, in
// the same order, each beside the other. ReadFront decodes the first
// stage of the next batch of up to len(buf) rows (at most BatchRows) into
// buf and b, and returns how many rows, with io.EOF for the last. ReadBack
// then decodes the batch's second stage into the same buf, given b and
// ReadFront's n and err, and returns the batch's rows and error as a Read
// of one batch would: a corruption either stage finds drops the batch's
// rows, the first stage's first, and errors are sticky. The two stages
// write different fields of the events, so that only ReadBack's return
// makes them whole. A reader that uses them must not be read otherwise.
// ReadBack must be given every batch up to the first error, that one
// included; after an error, ReadFront's columns are closed once it
// returns it.
func (r *SegmentReader) ReadFront(buf []Event, b *Batch) (n int, err error) {
	d := r.decoder
	front := d.fields &^ backFields
	return guard(&r.err, func() { d.closeColumns(front) }, func() (int, error) {
		n, err := d.decodeFront(buf, b.sets[:], front)
		if err == nil && d.atEnd() {
			err = io.EOF // with the last rows, so that no batch holds the end alone
		}
		return n, err
	})
}

// ReadBack decodes the second stage of the batch of ReadFront's buf, b, n
// and err: see ReadFront.
func (r *SegmentReader) ReadBack(buf []Event, b *Batch, n int, err error) (int, error) {
	d := r.decoder
	back := func() { d.closeColumns(d.fields & backFields) }
	m, backErr := guard(&r.backErr, back, func() (int, error) {
		if n > 0 {
			d.decodeBack(buf[:n], b.sets[:n], true)
		}
		return n, nil
	})
	switch {
	case backErr != nil:
		return m, backErr
	case err != nil:
		r.backErr = err
		back()
	}
	return n, err
}

// Next returns the next event, or io.EOF after the last one.
func (r *SegmentReader) Next() (Event, error) {
	if len(r.batch) == 0 {
		if r.backing == nil {
			r.backing = make([]Event, segmentBatch)
		}
		n, err := r.readInto(r.backing)
		r.batch = r.backing[:n]
		if n == 0 {
			if err == nil {
				err = io.EOF
			}
			return Event{}, err
		}
	}
	e := r.batch[0]
	r.batch = r.batch[1:]
	return e, nil
}
