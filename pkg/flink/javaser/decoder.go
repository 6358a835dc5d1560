package javaser

import (
	"encoding/binary"
	"fmt"
	"io"
)

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

	// For the descriptor cache (desccache.go): the lowest handle a
	// reference resolved to and the deepest nesting reached, while a class
	// descriptor is read.
	minRef int
	peak   int
	// noCache turns the descriptor cache off (tests compare both ways).
	noCache bool
}

// NewDecoder checks the stream header (magic and version) of data and
// returns a Decoder positioned at the first content. opts may be nil.
func NewDecoder(data []byte, opts *Options) (*Decoder, error) {
	d := &Decoder{buf: data, opts: opts.withDefaults()}
	// A handle takes at least a few bytes of input; most streams fit this.
	d.handles = make([]Value, 0, min(len(data)/16+8, 512))
	magic, err := d.u16("stream magic")
	if err != nil {
		return nil, err
	}
	if magic != StreamMagic {
		return nil, d.malformed(0, "stream magic is 0x%04x, want 0x%04x", magic, StreamMagic)
	}
	version, err := d.u16("stream version")
	if err != nil {
		return nil, err
	}
	if version != StreamVersion {
		return nil, d.malformed(2, "stream version is %d, want %d", version, StreamVersion)
	}
	return d, nil
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
	start := d.pos
	if err := d.enter(start); err != nil {
		return nil, err
	}
	defer func() { d.depth-- }()
	tc, err := d.u8("type code")
	if err != nil {
		return nil, err
	}
	switch tc {
	case tcNull:
		return nil, nil
	case tcReference:
		d.pos = start
		return d.readReference()
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
	d.minRef = min(d.minRef, int(i))
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

func (d *Decoder) readNewString(long bool) (Value, error) {
	start := d.pos - 1
	s, err := d.stringBody(long)
	if err != nil {
		return nil, err
	}
	if err := d.newHandle(start, s); err != nil {
		return nil, err
	}
	return s, nil
}

// stringBody reads the length and modified UTF-8 bytes of a string whose
// type code has been read.
func (d *Decoder) stringBody(long bool) (string, error) {
	start := d.pos
	var n int64
	if long {
		l, err := d.i64("long string length")
		if err != nil {
			return "", err
		}
		if l < 0 {
			return "", d.malformed(start, "long string length %d", l)
		}
		n = l
	} else {
		l, err := d.u16("string length")
		if err != nil {
			return "", err
		}
		n = int64(l)
	}
	if n > int64(d.opts.MaxStringBytes) {
		return "", d.limit(start, "string of %d bytes, more than %d", n, d.opts.MaxStringBytes)
	}
	return d.utfBytes(start, n)
}

// utf reads a u16 length and that many bytes of modified UTF-8 (class and
// field names, proxy interface names); what names the length for errors.
func (d *Decoder) utf(what string) (string, error) {
	start := d.pos
	n, err := d.u16(what)
	if err != nil {
		return "", err
	}
	return d.utfBytes(start, int64(n))
}

func (d *Decoder) utfBytes(start int, n int64) (string, error) {
	if n > int64(len(d.buf)-d.pos) {
		return "", d.truncated(start, "string of %d bytes, %d left", n, len(d.buf)-d.pos)
	}
	b := d.buf[d.pos : d.pos+int(n)]
	s, ok := decodeModifiedUTF8(b)
	if !ok {
		return "", d.malformed(start, "string is not modified UTF-8")
	}
	d.pos += int(n)
	return s, nil
}

func (d *Decoder) readBlock() ([]byte, error) {
	start := d.pos
	tc := d.buf[d.pos]
	d.pos++
	var n int64
	if tc == tcBlockData {
		l, err := d.u8("block length")
		if err != nil {
			return nil, err
		}
		n = int64(l)
	} else {
		l, err := d.i32("long block length")
		if err != nil {
			return nil, err
		}
		if l < 0 {
			return nil, d.malformed(start, "block length %d", l)
		}
		n = int64(l)
	}
	if n > int64(len(d.buf)-d.pos) {
		return nil, d.truncated(start, "block of %d bytes, %d left", n, len(d.buf)-d.pos)
	}
	b := d.buf[d.pos : d.pos+int(n)]
	d.pos += int(n)
	return b, nil
}

// readAnnotation reads block data and objects up to TC_ENDBLOCKDATA
// (classAnnotation, objectAnnotation and externalizable contents).
func (d *Decoder) readAnnotation() ([]Value, error) {
	start := d.pos
	var out []Value
	for {
		if d.pos >= len(d.buf) {
			return nil, d.truncated(start, "annotation without its end marker")
		}
		switch d.buf[d.pos] {
		case tcEndBlockData:
			d.pos++
			return out, nil
		case tcBlockData, tcBlockDataLong:
			b, err := d.readBlock()
			if err != nil {
				return nil, err
			}
			if k := len(out) - 1; k >= 0 {
				if prev, ok := out[k].(BlockData); ok {
					out[k] = append(prev, b...)
					continue
				}
			}
			out = append(out, append(BlockData(nil), b...))
		default:
			v, err := d.readObject()
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
	}
}

func (d *Decoder) readException(start int) (Value, error) {
	d.handles = d.handles[:0]
	ex, err := d.readObject()
	if err != nil {
		return nil, err
	}
	d.handles = d.handles[:0]
	return nil, &WriteAbortedError{Offset: int64(start), Exception: ex}
}

func (d *Decoder) readClass(start int) (Value, error) {
	desc, err := d.readClassDesc()
	if err != nil {
		return nil, err
	}
	if desc == nil {
		return nil, d.malformed(start, "class without a descriptor")
	}
	c := &Class{Desc: desc}
	if err := d.newHandle(start, c); err != nil {
		return nil, err
	}
	return c, nil
}

func (d *Decoder) readEnum(start int) (Value, error) {
	desc, err := d.readClassDesc()
	if err != nil {
		return nil, err
	}
	if desc == nil {
		return nil, d.malformed(start, "enum constant without a class descriptor")
	}
	e := &Enum{Class: desc}
	if err := d.newHandle(start, e); err != nil {
		return nil, err
	}
	at := d.pos
	name, err := d.readTypeString()
	if err != nil {
		return nil, err
	}
	if name == nil {
		return nil, d.malformed(at, "enum constant of %s without a name", printable(desc.Name))
	}
	e.Name = *name
	return e, nil
}

// readTypeString reads a string where only a string, a reference to one or
// null may be (field type signatures, enum constant names).
func (d *Decoder) readTypeString() (*string, error) {
	start := d.pos
	tc, err := d.u8("type code")
	if err != nil {
		return nil, err
	}
	switch tc {
	case tcNull:
		return nil, nil
	case tcString, tcLongString:
		v, err := d.readNewString(tc == tcLongString)
		if err != nil {
			return nil, err
		}
		s := v.(string)
		return &s, nil
	case tcReference:
		d.pos = start
		v, err := d.readReference()
		if err != nil {
			return nil, err
		}
		if s, ok := v.(string); ok {
			return &s, nil
		}
		return nil, d.malformed(start, "reference to %s where a string was expected", kindOf(v))
	}
	return nil, d.malformed(start, "type code 0x%02x where a string was expected", tc)
}

// kindOf names the kind of a decoded value for error messages.
func kindOf(v Value) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case *Object:
		return "an object of " + printable(v.Class.Name)
	case *Array:
		return "an array"
	case *Enum:
		return "an enum constant"
	case *Class:
		return "a class"
	case *ClassDesc:
		return "a class descriptor"
	}
	return fmt.Sprintf("%T", v)
}

func (d *Decoder) u8(what string) (byte, error) {
	if d.pos >= len(d.buf) {
		return 0, d.truncated(d.pos, "no %s", what)
	}
	b := d.buf[d.pos]
	d.pos++
	return b, nil
}

func (d *Decoder) take(n int, what string) ([]byte, error) {
	if len(d.buf)-d.pos < n {
		return nil, d.truncated(d.pos, "%s cut short", what)
	}
	b := d.buf[d.pos : d.pos+n]
	d.pos += n
	return b, nil
}

func (d *Decoder) u16(what string) (uint16, error) {
	b, err := d.take(2, what)
	if err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint16(b), nil
}

func (d *Decoder) i32(what string) (int32, error) {
	b, err := d.take(4, what)
	if err != nil {
		return 0, err
	}
	return int32(binary.BigEndian.Uint32(b)), nil
}

func (d *Decoder) i64(what string) (int64, error) {
	b, err := d.take(8, what)
	if err != nil {
		return 0, err
	}
	return int64(binary.BigEndian.Uint64(b)), nil
}

func (d *Decoder) truncated(at int, format string, args ...any) error {
	return &DecodeError{Offset: int64(at), Kind: ErrTruncated, Detail: "truncated: " + fmt.Sprintf(format, args...)}
}

func (d *Decoder) malformed(at int, format string, args ...any) error {
	return &DecodeError{Offset: int64(at), Kind: ErrMalformed, Detail: fmt.Sprintf(format, args...)}
}

func (d *Decoder) limit(at int, format string, args ...any) error {
	return &DecodeError{Offset: int64(at), Kind: ErrLimit, Detail: "limit: " + fmt.Sprintf(format, args...)}
}
