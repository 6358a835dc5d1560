package javaser

import "io"

// Stream constants of the Java Object Serialization Stream Protocol
// (java.io.ObjectStreamConstants). They are part of the format.
const (
	StreamMagic   = 0xaced
	StreamVersion = 5

	baseWireHandle = 0x7e0000

	tcNull           = 0x70
	tcReference      = 0x71
	tcClassDesc      = 0x72
	tcObject         = 0x73
	tcString         = 0x74
	tcArray          = 0x75
	tcClass          = 0x76
	tcBlockData      = 0x77
	tcEndBlockData   = 0x78
	tcReset          = 0x79
	tcBlockDataLong  = 0x7a
	tcException      = 0x7b
	tcLongString     = 0x7c
	tcProxyClassDesc = 0x7d
	tcEnum           = 0x7e
)

// Default limits of Options.
const (
	DefaultMaxDepth       = 1000
	DefaultMaxHandles     = 1 << 22
	DefaultMaxArrayLength = 1 << 26
	DefaultMaxStringBytes = 1 << 26
)

// Options bound what a Decoder accepts from a stream, so that hostile input
// fails with ErrLimit instead of exhausting the stack or memory. A zero
// field means its default. Independently of them, the decoder never
// allocates for a length field more than the input left can fill.
type Options struct {
	MaxDepth       int // nesting of objects, arrays and class descriptors; default 1000
	MaxHandles     int // handles assigned between two resets; default 1<<22
	MaxArrayLength int // elements of one array; default 1<<26
	MaxStringBytes int // bytes of one string; default 1<<26
}

func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.MaxDepth <= 0 {
		r.MaxDepth = DefaultMaxDepth
	}
	if r.MaxHandles <= 0 {
		r.MaxHandles = DefaultMaxHandles
	}
	if r.MaxArrayLength <= 0 {
		r.MaxArrayLength = DefaultMaxArrayLength
	}
	if r.MaxStringBytes <= 0 {
		r.MaxStringBytes = DefaultMaxStringBytes
	}
	return r
}

// Decoder reads the contents of one serialization stream held in memory,
// in order, with one handle table for the whole stream (as one
// ObjectInputStream). A Decoder is not safe for concurrent use.
type Decoder struct {
	buf     []byte
	pos     int
	handles []Value
	depth   int
	opts    Options
	err     error // sticky decoding error

	// For the descriptor cache (desccache.go): while class descriptors are
	// read (parsing of them nested), the handles references resolved to,
	// and the deepest nesting reached.
	parsing int
	refs    []int
	peak    int
	// noCache turns the descriptor cache off (tests compare both ways).
	noCache bool
	// skip makes the reader check contents without building their Values
	// (SkipValue): objects and arrays get the unread handle.
	skip bool
	// blocks joins the blocks ReadBlockData returns.
	blocks []byte
	// local holds the descriptor cache entries used last, for a Decoder
	// that is Reset (desccache.go).
	local *[localDescs]*descEntry
	// memos are the contents skipped last, for a Decoder that is Reset
	// (skipmemo.go).
	memos    *[skipMemos]skipMemo
	nextMemo int
	// strings maps the bytes of strings read before to the string, for a
	// Decoder that is Reset (strings.go).
	strings map[string]Value
}

// NewDecoder checks the stream header (magic and version) of data and
// returns a Decoder positioned at the first content. opts may be nil.
func NewDecoder(data []byte, opts *Options) (*Decoder, error) {
	d := &Decoder{buf: data, opts: opts.withDefaults()}
	// A handle takes at least a few bytes of input; most streams fit this.
	d.handles = make([]Value, 0, min(len(data)/16+8, 512))
	if err := d.header(); err != nil {
		return nil, err
	}
	return d, nil
}

// Reset makes d read the stream data from its start, as NewDecoder does,
// with the options d was made with (the defaults for a zero Decoder) and
// the memory it holds: a Decoder can read stream after stream without
// allocating its own state again. The Values read before stay valid; the
// Decoder keeps references to some of them (the handles of the last
// stream, and up to 1024 short strings).
func (d *Decoder) Reset(data []byte) error {
	d.buf, d.pos, d.handles, d.depth, d.err = data, 0, d.handles[:0], 0, nil
	d.parsing, d.refs, d.peak, d.skip = 0, d.refs[:0], 0, false
	if d.opts.MaxDepth <= 0 || d.opts.MaxHandles <= 0 || d.opts.MaxArrayLength <= 0 || d.opts.MaxStringBytes <= 0 {
		d.opts = d.opts.withDefaults()
	}
	if d.local == nil {
		d.local = new([localDescs]*descEntry)
		d.memos = new([skipMemos]skipMemo)
		d.strings = make(map[string]Value)
	}
	return d.header()
}

// header checks the stream magic and version.
func (d *Decoder) header() error {
	magic, err := d.u16("stream magic")
	if err != nil {
		return err
	}
	if magic != StreamMagic {
		return d.malformed(0, "stream magic is 0x%04x, want 0x%04x", magic, StreamMagic)
	}
	version, err := d.u16("stream version")
	if err != nil {
		return err
	}
	if version != StreamVersion {
		return d.malformed(2, "stream version is %d, want %d", version, StreamVersion)
	}
	return nil
}

// Offset returns the offset in the stream of the next content.
func (d *Decoder) Offset() int64 { return int64(d.pos) }

// Next returns the next top-level content: an object (any Value but
// BlockData) or the primitive data written between objects (BlockData).
// Resets (TC_RESET) clear the handle table and are not returned. Next
// returns io.EOF after the last content, a *DecodeError when the stream
// cannot be decoded (and the same error on every later call), and a
// *WriteAbortedError for a TC_EXCEPTION content, after which the
// following contents can still be read.
func (d *Decoder) Next() (Value, error) {
	if d.err != nil {
		return nil, d.err
	}
	d.skipResets()
	if d.pos == len(d.buf) {
		return nil, io.EOF
	}
	var v Value
	var err error
	if c := d.buf[d.pos]; c == tcBlockData || c == tcBlockDataLong {
		v, err = d.readTopBlocks()
	} else {
		v, err = d.readObject()
	}
	if err != nil {
		if _, ok := err.(*WriteAbortedError); !ok {
			d.err = err
		}
		return nil, err
	}
	return v, nil
}

func (d *Decoder) skipResets() {
	for d.pos < len(d.buf) && d.buf[d.pos] == tcReset {
		d.pos++
		d.handles = d.handles[:0]
	}
}

// readTopBlocks joins the blocks that follow each other at the top level,
// across resets, as ObjectInputStream's block data input does.
func (d *Decoder) readTopBlocks() (BlockData, error) {
	var out BlockData
	for d.pos < len(d.buf) {
		if c := d.buf[d.pos]; c != tcBlockData && c != tcBlockDataLong {
			break
		}
		b, err := d.readBlock()
		if err != nil {
			return nil, err
		}
		out = append(out, b...)
		d.skipResets()
	}
	return out, nil
}

// Decode returns every top-level content of the stream data, in order,
// stopping at the first error (the contents before it are returned with
// it). opts may be nil. It is safe for concurrent use.
func Decode(data []byte, opts *Options) ([]Value, error) {
	d, err := NewDecoder(data, opts)
	if err != nil {
		return nil, err
	}
	var out []Value
	for {
		v, err := d.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, v)
	}
}

// DecodeObject returns the first object of the stream data, as one
// ObjectInputStream.readObject call does; bytes after it are not read.
// Primitive data in its place is an ErrMalformed error. opts may be nil.
// It is safe for concurrent use.
func DecodeObject(data []byte, opts *Options) (Value, error) {
	d, err := NewDecoder(data, opts)
	if err != nil {
		return nil, err
	}
	return d.firstObject()
}

// DecodeObject resets d to the stream data (see Reset) and returns its
// first object, as the function DecodeObject does.
func (d *Decoder) DecodeObject(data []byte) (Value, error) {
	if err := d.Reset(data); err != nil {
		return nil, err
	}
	return d.firstObject()
}

func (d *Decoder) firstObject() (Value, error) {
	start := d.pos
	v, err := d.Next()
	if err == io.EOF {
		return nil, d.truncated(start, "stream holds no object")
	}
	if err != nil {
		return nil, err
	}
	if _, ok := v.(BlockData); ok {
		return nil, d.malformed(start, "primitive data where an object was expected")
	}
	return v, nil
}

// readObject reads one "object" of the grammar: any content but block
// data.
func (d *Decoder) readObject() (Value, error) {
	if err := d.enter(d.pos); err != nil {
		return nil, err
	}
	v, err := d.readContent()
	d.depth--
	return v, err
}

// readContent is readObject inside the nesting readObject counts.
func (d *Decoder) readContent() (Value, error) {
	start := d.pos
	tc, err := d.u8("type code")
	if err != nil {
		return nil, err
	}
	switch tc {
	case tcNull:
		return nil, nil
	case tcReference:
		d.pos = start
		v, err := d.readReference()
		if v == unread && !d.skip {
			return nil, &DecodeError{Offset: int64(start), Kind: ErrUnread,
				Detail: "reference to an object read without its value"}
		}
		return v, err
	case tcClassDesc:
		return d.readNewClassDesc()
	case tcProxyClassDesc:
		return d.readProxyClassDesc()
	case tcObject:
		return d.readNewObject()
	case tcString, tcLongString:
		return d.readNewString(tc == tcLongString)
	case tcArray:
		return d.readArray()
	case tcClass:
		return d.readClass(start)
	case tcEnum:
		return d.readEnum(start)
	case tcException:
		return d.readException(start)
	case tcReset:
		return nil, d.malformed(start, "reset inside an object")
	case tcBlockData, tcBlockDataLong:
		return nil, d.malformed(start, "block data where an object was expected")
	case tcEndBlockData:
		return nil, d.malformed(start, "end of block data where an object was expected")
	}
	return nil, d.malformed(start, "byte 0x%02x is not a type code", tc)
}

func (d *Decoder) enter(at int) error {
	d.depth++
	d.peak = max(d.peak, d.depth)
	if d.depth > d.opts.MaxDepth {
		return d.limit(at, "nesting deeper than %d", d.opts.MaxDepth)
	}
	return nil
}

func (d *Decoder) readReference() (Value, error) {
	start := d.pos
	d.pos++ // TC_REFERENCE
	h, err := d.i32("handle")
	if err != nil {
		return nil, err
	}
	i := int64(h) - baseWireHandle
	if i < 0 || i >= int64(len(d.handles)) {
		return nil, d.malformed(start, "reference to handle 0x%x, which is not assigned", uint32(h))
	}
	if d.parsing > 0 {
		d.refs = append(d.refs, int(i))
	}
	return d.handles[i], nil
}

// newHandle assigns the next handle to v, the content at offset at.
func (d *Decoder) newHandle(at int, v Value) error {
	if len(d.handles) >= d.opts.MaxHandles {
		return d.limit(at, "more than %d handles", d.opts.MaxHandles)
	}
	d.handles = append(d.handles, v)
	return nil
}
