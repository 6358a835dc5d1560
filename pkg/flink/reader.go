package flink

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

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
	// next call of the Reader's Next or Close: the Reader reuses its
	// buffers, and a local file is mapped into memory and unmapped once
	// read (Event holds no part of them). Copy it to keep it.
	Payload []byte
	Event   Event
}

// Reader reads the records of a job-events directory as Flink's
// FileSystemJobEventStore does: the directory is listed once, files
// events.0, events.1, ... are read in order while the numbering is
// contiguous, and a record cut short ends its file.
//
// The first Next starts reading: one goroutine reads the files in large
// chunks (on Linux a local file is mapped into memory instead) and frames
// their records, and GOMAXPROCS goroutines decode them, a chunk at a time,
// ahead of Next, which returns the records, warnings and errors in file
// order, exactly as a record-by-record reader would. Close stops them. A
// Reader is not safe for concurrent use.
type Reader struct {
	fsys     fs.FS
	files    []string
	seq      int64
	warnings []Warning
	err      error

	p    *pipeline // nil before the first Next
	cur  *batch    // the batch Next returns from
	i    int       // of the item of cur to return next
	skip string    // a file whose rest Flink ignores (a torn Java stream); "" if none
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
	if r.p == nil {
		r.p = startPipeline(r.fsys, r.files)
		// A Reader dropped without Close stops its goroutines when it is
		// collected: they hold the pipeline, never the Reader.
		runtime.AddCleanup(r, func(p *pipeline) {
			p.halt()
			go func() { p.wait(); p.unmapAll() }()
		}, r.p)
	}
	for {
		if r.cur == nil || r.i == len(r.cur.items) {
			if r.cur != nil {
				r.p.recycle(r.cur)
			}
			b, ok := <-r.p.out
			if !ok {
				r.cur = nil
				return nil, io.EOF
			}
			<-b.done
			r.cur, r.i = b, 0
		}
		it := &r.cur.items[r.i]
		r.i++
		if it.file == r.skip {
			continue
		}
		switch {
		case it.warn.Kind != 0:
			r.warnings = append(r.warnings, it.warn)
			continue
		case it.err == nil:
			r.seq++
			return &Record{Seq: r.seq, File: it.file, Offset: it.off, Type: it.typ, Payload: it.payload, Event: it.ev}, nil
		case !it.decoded:
			r.err = it.err
		default:
			switch err := r.decodeFailed(it.file, it.off, it.typ, it.err); err {
			case errSkipRecord:
				continue
			case errEndOfFile:
				r.skip = it.file
				continue
			default:
				r.err = err
			}
		}
		r.p.halt()
		return nil, r.err
	}
}

// Close stops reading and closes the file being read. It is safe to call
// more than once.
func (r *Reader) Close() error {
	if r.p != nil {
		r.p.halt()
		r.p.wait()
		r.p.unmapAll()
	}
	if r.err == nil {
		r.err = fs.ErrClosed
	}
	return nil
}

// errEndOfFile ends the current file: its end, or a torn record.
var errEndOfFile = errors.New("end of file")

// decodeFailed classifies a payload that does not decode as Flink does: a
// null type 2 or 3 event is skipped, a type 2 or 3 Java stream that ends
// early ends the file (Flink's EOFException), anything else is corruption.
// Warnings go to r.
func (r *Reader) decodeFailed(file string, start int64, typ int32, err error) error {
	warn := func(kind WarningKind, format string, args ...any) {
		r.warnings = append(r.warnings, Warning{Kind: kind, File: file, Offset: start, Msg: fmt.Sprintf(format, args...)})
	}
	if errors.Is(err, errSkipRecord) {
		warn(WarnSkipped, "record of type %d holds null; Flink skips it", typ)
		return errSkipRecord
	}
	if typ != TypeVertexFinished && errors.Is(err, javaser.ErrTruncated) {
		warn(WarnTorn, "record of type %d: its Java stream ends early (%v); Flink ignores the rest of this file", typ, err)
		return errEndOfFile
	}
	return &CorruptError{File: file, Offset: start, Err: fmt.Errorf("type %d record: %w", typ, err)}
}

// item is one step of reading a file, in file order: a record (its
// payload and, once decoded, its event or the decode's error), a warning
// about the file's end, or an error that stops the reading (decoded
// false).
type item struct {
	file    string
	off     int64
	typ     int32
	payload []byte
	ev      Event
	err     error
	decoded bool    // err, if any, is the payload decoder's
	warn    Warning // Kind set: the file ends with this warning
}

// frameResult says what frame found at the start of the bytes it was given.
type frameResult int

const (
	frameRecord frameResult = iota // a whole record
	frameEnd                       // the end of the file, perhaps a torn record (item's warning)
	frameFail                      // corruption Flink's reader fails on (item's error)
	frameMore                      // a record not yet whole: more bytes are needed
)

// frame frames the record at the start of p, the bytes of file name from
// offset off on, in the order Flink's readEvent reads it: type, length,
// the whole payload, and only then the type's serializer. eof says p holds
// everything up to the end of the file; size is the file's size, -1 if
// unknown. For a record it returns the record's length in the file; for
// frameMore, how many bytes from off the record needs as far as it can
// tell.
func frame(p []byte, name string, off, size int64, eof bool) (it item, n int, res frameResult) {
	it = item{file: name, off: off}
	torn := func(format string, args ...any) (item, int, frameResult) {
		it.warn = Warning{Kind: WarnTorn, File: name, Offset: off, Msg: fmt.Sprintf(format, args...)}
		return it, 0, frameEnd
	}
	if len(p) < 8 {
		switch {
		case !eof:
			return it, 8, frameMore
		case len(p) == 0:
			return it, 0, frameEnd
		}
		return torn("record header cut short after %d of 8 bytes; Flink ignores the rest of this file", len(p))
	}
	typ := int32(binary.BigEndian.Uint32(p))
	length := int32(binary.BigEndian.Uint32(p[4:]))
	it.typ = typ
	if length < 0 {
		it.err = &CorruptError{File: name, Offset: off, Err: fmt.Errorf("record of type %d has length %d", typ, length)}
		return it, 0, frameFail
	}
	if length >= jobManagerHeap {
		it.err = &CorruptError{File: name, Offset: off, Err: fmt.Errorf(
			"record of type %d claims %d bytes: Flink allocates them before reading and its JobManager (default heap %d MiB) fails with OutOfMemoryError", typ, length, jobManagerHeap>>20)}
		return it, 0, frameFail
	}
	if left := size - off - 8; size >= 0 && int64(length) > left {
		// Flink's readFully meets the end of the file: the record is torn.
		// The claimed length is checked against the bytes left before
		// anything is allocated or read.
		return torn("record of type %d cut short: payload of %d bytes, %d in the file; Flink ignores the rest of this file",
			typ, length, max(left, 0))
	}
	if int64(len(p)-8) < int64(length) {
		if !eof {
			return it, 8 + int(length), frameMore
		}
		return torn("record of type %d cut short: payload of %d bytes, %d in the file; Flink ignores the rest of this file",
			typ, length, len(p)-8)
	}
	if typ < TypeVertexFinished || typ > TypeJobVertexInitialized {
		it.err = &CorruptError{File: name, Offset: off, Err: fmt.Errorf("unknown record type %d", typ)}
		return it, 0, frameFail
	}
	it.payload = p[8 : 8+length : 8+length]
	return it, 8 + int(length), frameRecord
}

// chunkSize is how much of a file the Reader reads at a time: the records
// whole in a chunk are decoded as one batch.
const chunkSize = 1 << 20

// pipelineDepth bounds how many batches are read ahead of Next.
const pipelineDepth = 4

// A batch is the records framed from one chunk of a file, decoded by one
// of the pipeline's decoders; Next waits for done.
type batch struct {
	items []item
	chunk []byte // what the payloads are slices of; reused once Next is past the batch
	done  chan struct{}
	// m is the mapped file the payloads are slices of, if it is mapped:
	// chunk is then the part of it the batch's records span, and last
	// marks the file's last batch.
	m    *mapping
	last bool
}

// mapping is a file mapped by mapFile, unmapped once Next is past its
// last batch, or by Close.
type mapping struct{ data []byte }

// pipeline reads files with one goroutine and decodes their records with
// others; out delivers the batches in order.
type pipeline struct {
	out   chan *batch
	work  chan *batch
	stop  chan struct{}
	once  sync.Once
	wg    sync.WaitGroup
	free  chan []byte // chunks Next is done with
	items chan []item // the items of batches Next is done with, cleared

	mu   sync.Mutex
	maps map[*mapping]bool // the files mapped and not yet unmapped
}

func startPipeline(fsys fs.FS, files []string) *pipeline {
	p := &pipeline{
		out:   make(chan *batch, pipelineDepth),
		work:  make(chan *batch, pipelineDepth),
		stop:  make(chan struct{}),
		free:  make(chan []byte, pipelineDepth+2),
		items: make(chan []item, pipelineDepth+2),
		maps:  map[*mapping]bool{},
	}
	workers := max(runtime.GOMAXPROCS(0), 1)
	p.wg.Add(1 + workers)
	go p.read(fsys, files)
	for range workers {
		go p.decode()
	}
	return p
}

// halt stops the goroutines; batches already sent stay readable.
func (p *pipeline) halt() { p.once.Do(func() { close(p.stop) }) }

// wait waits for the goroutines to end.
func (p *pipeline) wait() { p.wg.Wait() }

// mapFile maps f, of size bytes, if it can.
func (p *pipeline) mapFile(f fs.File, size int64) *mapping {
	data, ok := mapFile(f, size)
	if !ok {
		return nil
	}
	m := &mapping{data: data}
	p.mu.Lock()
	p.maps[m] = true
	p.mu.Unlock()
	return m
}

// unmap unmaps m; nothing may read it after.
func (p *pipeline) unmap(m *mapping) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.maps[m] {
		delete(p.maps, m)
		unmapFile(m.data)
	}
}

// mapped reports whether addr is in a file mapped now.
func (p *pipeline) mapped(addr uintptr) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for m := range p.maps {
		start := uintptr(unsafe.Pointer(unsafe.SliceData(m.data)))
		if addr >= start && addr-start < uintptr(len(m.data)) {
			return true
		}
	}
	return false
}

// unmapAll unmaps every mapped file, once the goroutines have ended.
func (p *pipeline) unmapAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for m := range p.maps {
		unmapFile(m.data)
	}
	clear(p.maps)
}

// newBatch returns an empty batch of the mapped file m (nil: of chunks),
// with the room of a batch recycled if there is one.
func (p *pipeline) newBatch(m *mapping) *batch {
	b := &batch{done: make(chan struct{}), m: m}
	select {
	case b.items = <-p.items:
	default:
	}
	return b
}

// recycle takes back the items and the chunk of a batch Next is done
// with.
func (p *pipeline) recycle(b *batch) {
	if cap(b.items) > 0 {
		clear(b.items) // the events and errors go with the records returned
		select {
		case p.items <- b.items[:0]:
		default:
		}
	}
	if b.m != nil {
		if b.last {
			p.unmap(b.m)
		} else {
			dropPages(pageAligned(b.chunk))
		}
		return
	}
	if cap(b.chunk) == chunkSize {
		select {
		case p.free <- b.chunk[:0]:
		default:
		}
	}
}

// chunk returns an empty buffer of n bytes, a recycled one if n is a
// chunk.
func (p *pipeline) chunk(n int) []byte {
	if n == chunkSize {
		select {
		case c := <-p.free:
			return c
		default:
		}
	}
	return make([]byte, 0, n)
}

// send hands b to a decoder and to Next; it reports false once halted.
func (p *pipeline) send(b *batch) bool {
	select {
	case p.out <- b:
	case <-p.stop:
		return false
	}
	select {
	case p.work <- b:
		return true
	case <-p.stop:
		close(b.done) // Next may be waiting for it: undecoded, it is not read
		return false
	}
}

// decode decodes the batches it is given until the reading ends.
func (p *pipeline) decode() {
	defer p.wg.Done()
	debug.SetPanicOnFault(true) // a mapped file cut short while read is an error, not a crash
	f := fastDecoders.Get().(*fastDecoder)
	defer fastDecoders.Put(f)
	for b := range p.work {
		p.decodeBatch(b, f)
		close(b.done)
	}
}

// decodeBatch decodes the records of b with f, unless the pipeline halts.
func (p *pipeline) decodeBatch(b *batch, f *fastDecoder) {
	i := 0
	defer func() {
		if e := recover(); e != nil {
			err := p.faultError(e, b.items[i].file)
			for ; i < len(b.items); i++ {
				b.items[i].err, b.items[i].decoded = err, false
			}
		}
	}()
	for ; i < len(b.items); i++ {
		if i%64 == 0 {
			select {
			case <-p.stop:
				return
			default:
			}
		}
		if it := &b.items[i]; it.payload != nil {
			it.ev, it.err = decodePayload(it.typ, it.payload, f)
			it.decoded = true
		}
	}
}

// read frames the records of files, in order, into batches, until they
// end, a file fails, or the pipeline halts.
func (p *pipeline) read(fsys fs.FS, files []string) {
	defer p.wg.Done()
	defer close(p.work)
	defer close(p.out)
	debug.SetPanicOnFault(true)
	for _, name := range files {
		if !p.readFileSafe(fsys, name) {
			return
		}
	}
}

// readFileSafe is readFile, with a mapped file cut short while it is read
// an error of that file.
func (p *pipeline) readFileSafe(fsys fs.FS, name string) (ok bool) {
	defer func() {
		if e := recover(); e != nil {
			p.send(&batch{items: []item{{file: name, err: p.faultError(e, name)}}, done: make(chan struct{})})
			ok = false
		}
	}()
	return p.readFile(fsys, name)
}

// faultError returns the error of reading a mapped file that faulted, and
// panics again with what is not such a fault: any other panic, and a fault
// at an address outside the mapped files (a nil pointer is a bug).
func (p *pipeline) faultError(e any, name string) error {
	fault, ok := e.(interface{ Addr() uintptr })
	if !ok || !p.mapped(fault.Addr()) {
		panic(e)
	}
	return fmt.Errorf("read %s: the file changed while it was read (it is shorter than when it was opened)", name)
}

// pageAligned returns the whole pages of b.
func pageAligned(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	page := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (start + page - 1) &^ (page - 1)
	hi := (start + uintptr(len(b))) &^ (page - 1)
	if hi <= lo {
		return nil
	}
	return b[lo-start : hi-start]
}

// readFile frames the records of one file into batches, a chunk at a
// time; it reports whether to go on with the next file.
func (p *pipeline) readFile(fsys fs.FS, name string) bool {
	fail := func(err error) bool {
		p.send(&batch{items: []item{{file: name, err: err}}, done: make(chan struct{})})
		return false
	}
	f, err := fsys.Open(name)
	if err != nil {
		return fail(fmt.Errorf("open %s: %w", name, err))
	}
	defer f.Close()
	size := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	var (
		buf  []byte // the bytes read, framed up to pos; buf[0] is at offset off
		off  int64
		pos  int
		eof  bool
		need int // bytes from pos the record there needs, as far as frame could tell
		b    = p.newBatch(nil)
		m    = p.mapFile(f, size)
		lo   int // of b's first record in buf, when m is
	)
	if m != nil {
		buf, eof, b.m = m.data, true, m
	}
	for {
		if rest := len(buf) - pos; !eof && need >= rest {
			if want := max(need-rest, 1); cap(buf)-len(buf) < want {
				held := len(b.items) > 0 // records hold parts of buf
				if held {
					if !p.send(b) {
						return false
					}
					b = p.newBatch(nil)
				}
				next := p.chunk(chunkLen(need, rest, size-off-int64(pos)))
				next = append(next, buf[pos:]...)
				if !held {
					p.recycle(&batch{chunk: buf})
				}
				off += int64(pos)
				buf, pos = next, 0
				b.chunk = buf
			}
			n, err := io.ReadFull(f, buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			switch {
			case err == io.EOF || err == io.ErrUnexpectedEOF:
				eof = true
			case err != nil:
				if len(b.items) > 0 && !p.send(b) {
					return false
				}
				return fail(fmt.Errorf("read %s at offset %d: %w", name, off+int64(len(buf)), err))
			}
			need = 0
			continue
		}
		it, n, res := frame(buf[pos:], name, off+int64(pos), size, eof)
		switch res {
		case frameMore:
			need = n
			continue
		case frameRecord:
			b.items = append(b.items, it)
			pos += n
			if m != nil && pos-lo >= chunkSize {
				b.chunk = buf[lo:pos]
				if !p.send(b) {
					return false
				}
				b, lo = p.newBatch(m), pos
			}
			continue
		case frameFail:
			b.items = append(b.items, it)
		case frameEnd:
			if it.warn.Kind != 0 {
				b.items = append(b.items, it)
			}
		}
		if m != nil {
			b.chunk, b.last = buf[lo:pos], true // sent even if empty: Next unmaps the file
		}
		if (len(b.items) > 0 || m != nil) && !p.send(b) {
			return false
		}
		return res == frameEnd
	}
}

// chunkLen is the size of the buffer to read into next, holding the rest
// bytes of a record not yet whole that needs need bytes, when left bytes
// of the file are left from the record (left < 0: the size is unknown): a
// chunk, or a buffer for a record larger than a chunk, grown as its bytes
// arrive so that a claimed length allocates no more than the file holds,
// and never more than the file has left.
func chunkLen(need, rest int, left int64) int {
	n := max(need, rest+1, chunkSize)
	if need > chunkSize {
		n = max(min(need, 2*rest+maxChunk), rest+1)
	}
	if left >= 0 && int64(n) > left {
		n = int(max(left, int64(rest+1)))
	}
	return n
}
