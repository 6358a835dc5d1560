package flink

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/jobevent/jobevent/pkg/flink/javaser"
)

// FilePrefix is the prefix of job-events file names: events.0, events.1,
// ... It is part of the format.
const FilePrefix = "events."

// maxChunk bounds how much of a payload is allocated before its bytes have
// been read, so that a bogus length cannot allocate more than the file
// holds.
const maxChunk = 1 << 20

// jobManagerHeap is the heap of a JobManager with Flink's default memory
// settings (jobmanager.memory.process.size 1600m): FileSystemJobEventStore
// allocates a record's claimed length before it reads the payload, so a
// claim this large fails the replay (OutOfMemoryError) whatever the file
// holds, where a smaller claim past the end of the file is a torn record.
const jobManagerHeap = 1 << 30

// Record is one record of a job-events file with its decoded payload.
type Record struct {
	// Seq is the record's ordinal among the records returned, from 1.
	Seq    int64
	File   string // e.g. "events.0"
	Offset int64  // of the record's type field in File
	Type   int32
	// Payload is the record's payload as written. It is valid until the
	// next call of the Reader's Next: the Reader reads every payload into
	// one buffer (Event holds no part of it).
	Payload []byte
	Event   Event
}

// Reader reads the records of a job-events directory as Flink's
// FileSystemJobEventStore does: the directory is listed once, files
// events.0, events.1, ... are read in order while the numbering is
// contiguous, and a record cut short ends its file. A Reader is not safe
// for concurrent use.
type Reader struct {
	fsys     fs.FS
	files    []string
	next     int
	f        fs.File
	br       *bufio.Reader
	name     string
	off      int64
	size     int64 // of the open file when opened; -1 if unknown
	seq      int64
	buf      []byte // the payload buffer, reused from record to record
	warnings []Warning
	err      error
}

// OpenDir returns a Reader of the job-events directory at path.
func OpenDir(path string) (*Reader, error) {
	return NewReader(os.DirFS(path))
}

// NewReader lists the root of fsys (a local directory, or a bucket: a
// gocloud *blob.Bucket is an fs.FS) and returns a Reader of its job-events
// files. A root that cannot be listed is an error matching ErrNotJobEvents
// and the listing error (fs.ErrNotExist when it does not exist). A
// numbering gap is a WarnGap warning; the files after it are not read.
func NewReader(fsys fs.FS) (*Reader, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotJobEvents, err)
	}
	r := &Reader{fsys: fsys}
	names := map[string]bool{}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), FilePrefix) {
			names[e.Name()] = true
		}
	}
	for i := 0; names[FilePrefix+strconv.Itoa(i)]; i++ {
		r.files = append(r.files, FilePrefix+strconv.Itoa(i))
	}
	r.checkNames(names)
	return r, nil
}

// checkNames warns about the names Flink's listing skips.
func (r *Reader) checkNames(names map[string]bool) {
	var ignored []int
	var odd []string
	for name := range names {
		n, err := strconv.Atoi(strings.TrimPrefix(name, FilePrefix))
		switch {
		case err != nil || n < 0 || FilePrefix+strconv.Itoa(n) != name:
			odd = append(odd, name)
		case n >= len(r.files):
			ignored = append(ignored, n)
		}
	}
	slices.Sort(odd)
	for _, name := range odd {
		r.warnings = append(r.warnings, Warning{Kind: WarnName, File: name,
			Msg: "not a job-events file number; Flink ignores it"})
	}
	if len(ignored) == 0 {
		return
	}
	slices.Sort(ignored)
	later := make([]string, len(ignored))
	for i, n := range ignored {
		later[i] = FilePrefix + strconv.Itoa(n)
	}
	r.warnings = append(r.warnings, Warning{Kind: WarnGap, File: FilePrefix + strconv.Itoa(len(r.files)),
		Msg: "missing; Flink reads no file after a gap, so it ignores " + strings.Join(later, ", ")})
}

// Files returns the names of the files the Reader reads, in order.
func (r *Reader) Files() []string { return slices.Clone(r.files) }

// Warnings returns the warnings so far: gaps and odd names from the
// listing, then torn and skipped records as Next meets them.
func (r *Reader) Warnings() []Warning { return slices.Clone(r.warnings) }

// Next returns the next record. It returns io.EOF after the last record of
// the last file, a *CorruptError for a record Flink's reader fails on (and
// the same error on every later call), and other errors for files that
// cannot be opened or read.
func (r *Reader) Next() (*Record, error) {
	if r.err != nil {
		return nil, r.err
	}
	for {
		if r.br == nil {
			if r.next >= len(r.files) {
				return nil, io.EOF
			}
			if err := r.open(r.files[r.next]); err != nil {
				r.err = err
				return nil, err
			}
			r.next++
		}
		rec, err := r.readRecord()
		switch {
		case err == errEndOfFile:
			r.closeFile()
		case err == errSkipRecord:
		case err != nil:
			r.err = err
			r.closeFile()
			return nil, err
		default:
			r.seq++
			rec.Seq = r.seq
			return rec, nil
		}
	}
}

// Close closes the file being read. It is safe to call more than once.
func (r *Reader) Close() error {
	r.closeFile()
	return nil
}

func (r *Reader) open(name string) error {
	f, err := r.fsys.Open(name)
	if err != nil {
		return fmt.Errorf("open %s: %w", name, err)
	}
	r.f, r.br, r.name, r.off, r.size = f, bufio.NewReaderSize(f, 64<<10), name, 0, -1
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		r.size = st.Size()
	}
	return nil
}

func (r *Reader) closeFile() {
	if r.f != nil {
		r.f.Close()
	}
	r.f, r.br = nil, nil
}

// errEndOfFile ends the current file: its end, or a torn record.
var errEndOfFile = errors.New("end of file")

func (r *Reader) warn(kind WarningKind, off int64, format string, args ...any) {
	r.warnings = append(r.warnings, Warning{Kind: kind, File: r.name, Offset: off, Msg: fmt.Sprintf(format, args...)})
}

// readRecord reads one record in the order Flink's readEvent does: type,
// length, the whole payload, and only then the type's serializer.
func (r *Reader) readRecord() (*Record, error) {
	start := r.off
	var hdr [8]byte
	n, err := io.ReadFull(r.br, hdr[:])
	r.off += int64(n)
	if err == io.EOF {
		return nil, errEndOfFile
	}
	if err == io.ErrUnexpectedEOF {
		r.warn(WarnTorn, start, "record header cut short after %d of 8 bytes; Flink ignores the rest of this file", n)
		return nil, errEndOfFile
	}
	if err != nil {
		return nil, fmt.Errorf("read %s at offset %d: %w", r.name, r.off, err)
	}
	typ := int32(binary.BigEndian.Uint32(hdr[:4]))
	length := int32(binary.BigEndian.Uint32(hdr[4:]))
	if length < 0 {
		return nil, &CorruptError{File: r.name, Offset: start, Err: fmt.Errorf("record of type %d has length %d", typ, length)}
	}
	if length >= jobManagerHeap {
		return nil, &CorruptError{File: r.name, Offset: start, Err: fmt.Errorf(
			"record of type %d claims %d bytes: Flink allocates them before reading and its JobManager (default heap %d MiB) fails with OutOfMemoryError", typ, length, jobManagerHeap>>20)}
	}
	if left := r.size - r.off; r.size >= 0 && int64(length) > left {
		// Flink's readFully meets the end of the file: the record is torn.
		// The claimed length is checked against the bytes left before
		// anything is allocated or read.
		r.warn(WarnTorn, start, "record of type %d cut short: payload of %d bytes, %d in the file; Flink ignores the rest of this file",
			typ, length, max(left, 0))
		return nil, errEndOfFile
	}
	payload, err := r.readPayload(int(length))
	if err == io.ErrUnexpectedEOF {
		r.warn(WarnTorn, start, "record of type %d cut short: payload of %d bytes, %d in the file; Flink ignores the rest of this file",
			typ, length, len(payload))
		return nil, errEndOfFile
	}
	if err != nil {
		return nil, fmt.Errorf("read %s at offset %d: %w", r.name, r.off, err)
	}
	if typ < TypeVertexFinished || typ > TypeJobVertexInitialized {
		return nil, &CorruptError{File: r.name, Offset: start, Err: fmt.Errorf("unknown record type %d", typ)}
	}
	ev, err := DecodePayload(typ, payload)
	if err != nil {
		return nil, r.decodeFailed(start, typ, err)
	}
	return &Record{File: r.name, Offset: start, Type: typ, Payload: payload, Event: ev}, nil
}

// decodeFailed classifies a payload that does not decode as Flink does: a
// null type 2 or 3 event is skipped, a type 2 or 3 Java stream that ends
// early ends the file (Flink's EOFException), anything else is corruption.
func (r *Reader) decodeFailed(start int64, typ int32, err error) error {
	if errors.Is(err, errSkipRecord) {
		r.warn(WarnSkipped, start, "record of type %d holds null; Flink skips it", typ)
		return errSkipRecord
	}
	if typ != TypeVertexFinished && errors.Is(err, javaser.ErrTruncated) {
		r.warn(WarnTorn, start, "record of type %d: its Java stream ends early (%v); Flink ignores the rest of this file", typ, err)
		return errEndOfFile
	}
	return &CorruptError{File: r.name, Offset: start, Err: fmt.Errorf("type %d record: %w", typ, err)}
}

// readPayload reads n bytes into the Reader's buffer, growing it as the
// bytes arrive (for a file whose size is unknown, a claimed length is
// only bounded this way). It returns io.ErrUnexpectedEOF, with the bytes
// read, when the file ends first.
func (r *Reader) readPayload(n int) ([]byte, error) {
	buf := r.buf[:0]
	defer func() { r.buf = buf[:0] }()
	for len(buf) < n {
		k := min(n-len(buf), maxChunk)
		buf = slices.Grow(buf, k)
		got, err := io.ReadFull(r.br, buf[len(buf):len(buf)+k])
		buf = buf[:len(buf)+got]
		r.off += int64(got)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return buf, io.ErrUnexpectedEOF
		}
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}
