package javaser

import (
	"encoding/binary"
	"math"
)

// Typed reading: a caller that knows the classes a stream holds reads
// their class data straight into its own types, content by content, with
// the same checks, handles, limits and descriptor cache as Decode, and
// without building Values. It begins an object (BeginObject), checks its
// descriptor, reads the field values in stream order (ReadInt32,
// ReadString, ... for the fields it knows; ReadValue for a Value; SkipValue
// for a field it ignores) and ends it (EndObject), or hands an object it
// does not expect back to the generic reader (FinishObject).
//
// An object read without its Value gets, in the handle table, a marker
// instead: a reference to it read as a Value fails with ErrUnread, and
// ReadReference reports it as not built, so that the caller can resolve
// the references it expects (by handle) and give up on the others. A
// caller that gives up reads the stream again with Decode: errors of the
// typed methods are not meant to be reported as such, and after one the
// Decoder is only good for Reset.

// Type codes of the contents PeekCode returns, from
// java.io.ObjectStreamConstants. They are part of the format.
const (
	CodeNull          = tcNull
	CodeReference     = tcReference
	CodeObject        = tcObject
	CodeString        = tcString
	CodeArray         = tcArray
	CodeBlockData     = tcBlockData
	CodeBlockDataLong = tcBlockDataLong
	CodeEndBlockData  = tcEndBlockData
)

// unreadObject is the type of unread.
type unreadObject struct{ _ byte }

// unread is the handle table's entry for an object or array read without
// its Value.
var unread Value = &unreadObject{}

// ObjectHead is an object begun by BeginObject.
type ObjectHead struct {
	// Class is the descriptor of the object's class.
	Class *ClassDesc
	// Handle is the object's index in the handle table (its wire handle
	// less 0x7e0000), as ReadReference returns it.
	Handle int
	// Offset is the offset in the stream of its TC_OBJECT.
	Offset int
}

// PeekCode returns the type code of the next content, or 0 at the end of
// the stream.
func (d *Decoder) PeekCode() byte {
	if d.pos >= len(d.buf) {
		return 0
	}
	return d.buf[d.pos]
}

// BeginObject reads the TC_OBJECT that must come next and its class
// descriptor, and assigns the object its handle. The caller reads its
// class data, from the topmost serializable superclass down, and calls
// EndObject; or calls FinishObject.
func (d *Decoder) BeginObject() (ObjectHead, error) {
	start := d.pos
	if err := d.enter(start); err != nil {
		return ObjectHead{}, err
	}
	if d.PeekCode() != tcObject {
		return ObjectHead{}, d.malformed(start, "no object")
	}
	d.pos++
	desc, err := d.readClassDesc()
	if err != nil {
		return ObjectHead{}, err
	}
	if desc == nil {
		return ObjectHead{}, d.malformed(start, "object without a class descriptor")
	}
	h := ObjectHead{Class: desc, Handle: len(d.handles), Offset: start}
	return h, d.newHandle(start, unread)
}

// EndObject ends the object begun last.
func (d *Decoder) EndObject() { d.depth-- }

// FinishObject reads the class data of the object h, begun last and none
// of whose class data has been read, as Decode does, and ends it: the
// object then has its Value, which references to it return.
func (d *Decoder) FinishObject(h ObjectHead) (Value, error) {
	blk := &objectBlock{obj: Object{Class: h.Class, Offset: int64(h.Offset)}}
	d.handles[h.Handle] = &blk.obj
	err := d.readObjectData(h.Offset, blk)
	d.EndObject()
	if err != nil {
		return nil, err
	}
	return &blk.obj, nil
}

// ReadInt32 reads the value of an int field. Like ReadInt64, ReadFloat32,
// ReadFloat64 and ReadBool, it fails with ErrTruncated when the stream
// ends first.
func (d *Decoder) ReadInt32() (int32, error) { return d.i32("int field") }

// ReadInt64 reads the value of a long field.
func (d *Decoder) ReadInt64() (int64, error) { return d.i64("long field") }

// ReadFloat32 reads the value of a float field.
func (d *Decoder) ReadFloat32() (float32, error) {
	v, err := d.i32("float field")
	return math.Float32frombits(uint32(v)), err
}

// ReadFloat64 reads the value of a double field.
func (d *Decoder) ReadFloat64() (float64, error) {
	v, err := d.i64("double field")
	return math.Float64frombits(uint64(v)), err
}

// ReadBool reads the value of a boolean field.
func (d *Decoder) ReadBool() (bool, error) {
	b, err := d.u8("boolean field")
	return b != 0, err
}

// ReadValue reads the next content as a Value, as Decode does; it fails
// with ErrUnread on a reference to an object read without its Value.
func (d *Decoder) ReadValue() (Value, error) { return d.readObject() }

// SkipValue reads the next content as ReadValue does, without building
// the Values of objects and arrays (strings, enums, classes and class
// descriptors are built). It fails where ReadValue fails, and also with
// ErrUnread when a class annotation inside it refers to an object it
// skipped.
func (d *Decoder) SkipValue() error {
	if d.local != nil && d.skipped(d.pos) {
		return nil
	}
	start, base, from := d.pos, len(d.handles), len(d.refs)
	d.skip = true
	d.parsing++ // log the references, for the memo
	_, err := d.readObject()
	d.parsing--
	d.skip = false
	if err == nil && d.local != nil {
		d.memoSkip(start, base, d.refs[from:])
	}
	if d.parsing == 0 {
		d.refs = d.refs[:0]
	}
	return err
}

// SkipAnnotation reads, without building its Values, what the writeObject
// method of a class wrote after its fields, up to and including
// TC_ENDBLOCKDATA.
func (d *Decoder) SkipAnnotation() error {
	d.skip = true
	_, err := d.readAnnotation()
	d.skip = false
	return err
}

// ReadString reads the value of a String field: a new string, a
// reference to one, or null (null true). Any other content is an error.
func (d *Decoder) ReadString() (s string, null bool, err error) {
	start := d.pos
	if err := d.enter(start); err != nil {
		return "", false, err
	}
	s, null, err = d.readTypeString()
	d.depth--
	return s, null, err
}

// ReadReference reads the TC_REFERENCE that must come next and returns the
// index in the handle table it refers to and, if built, its Value (built
// is false for an object read without its Value).
func (d *Decoder) ReadReference() (handle int, v Value, built bool, err error) {
	start := d.pos
	if err := d.enter(start); err != nil {
		return 0, nil, false, err
	}
	d.depth--
	if d.PeekCode() != tcReference {
		return 0, nil, false, d.malformed(start, "no reference")
	}
	v, err = d.readReference()
	if err != nil {
		return 0, nil, false, err
	}
	h := int(binary.BigEndian.Uint32(d.buf[start+1:])) - baseWireHandle
	if v == unread {
		return h, nil, false, nil
	}
	return h, v, true, nil
}

// ReadInt64Array reads a new long[] (a TC_ARRAY of class "[J"); anything
// else is an error. The array is read without its Value.
func (d *Decoder) ReadInt64Array() ([]int64, error) {
	b, n, err := d.readPrimArray('J')
	if err != nil {
		return nil, err
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(binary.BigEndian.Uint64(b[8*i:]))
	}
	return out, nil
}

// ReadByteArray reads a new byte[] (a TC_ARRAY of class "[B") and returns
// a copy of its bytes; anything else is an error. The array is read
// without its Value.
func (d *Decoder) ReadByteArray() ([]byte, error) {
	b, _, err := d.readPrimArray('B')
	if err != nil {
		return nil, err
	}
	return append([]byte(nil), b...), nil
}

// readPrimArray reads a TC_ARRAY of primitives of type code elem and
// returns its wire bytes and length.
func (d *Decoder) readPrimArray(elem byte) ([]byte, int, error) {
	if err := d.enter(d.pos); err != nil {
		return nil, 0, err
	}
	b, n, err := d.readPrimArrayContent(elem)
	d.depth--
	return b, n, err
}

func (d *Decoder) readPrimArrayContent(elem byte) ([]byte, int, error) {
	start := d.pos
	if d.PeekCode() != tcArray {
		return nil, 0, d.malformed(start, "no array")
	}
	d.pos++
	desc, err := d.readClassDesc()
	if err != nil {
		return nil, 0, err
	}
	if desc == nil || len(desc.Name) != 2 || desc.Name[0] != '[' || desc.Name[1] != elem {
		return nil, 0, d.malformed(start, "array of %s, want [%c", descName(desc), elem)
	}
	if err := d.newHandle(start, unread); err != nil {
		return nil, 0, err
	}
	at := d.pos
	n, err := d.arrayLength()
	if err != nil {
		return nil, 0, err
	}
	size := primSize[elem]
	if left := len(d.buf) - d.pos; int64(n)*int64(size) > int64(left) {
		return nil, 0, d.truncated(at, "array of %d %s needs %d bytes, %d left", n, printable(desc.Name), int64(n)*int64(size), left)
	}
	b := d.buf[d.pos : d.pos+n*size]
	d.pos += n * size
	return b, n, nil
}

// ReadBlockData reads the blocks of primitive data that come next,
// joined, as the class data of a writeObject method holds them. The bytes
// are valid until the next call of a method of d.
func (d *Decoder) ReadBlockData() ([]byte, error) {
	start := d.pos
	var out []byte
	for n := 0; ; n++ {
		if c := d.PeekCode(); c != tcBlockData && c != tcBlockDataLong {
			if n == 0 {
				return nil, d.malformed(start, "no block data")
			}
			return out, nil
		}
		b, err := d.readBlock()
		if err != nil {
			return nil, err
		}
		switch n {
		case 0:
			out = b
		case 1:
			d.blocks = append(append(d.blocks[:0], out...), b...)
			out = d.blocks
		default:
			d.blocks = append(d.blocks, b...)
			out = d.blocks
		}
	}
}

// ReadEndBlockData reads the TC_ENDBLOCKDATA that must come next.
func (d *Decoder) ReadEndBlockData() error {
	if d.PeekCode() != tcEndBlockData {
		return d.malformed(d.pos, "no end of block data")
	}
	d.pos++
	return nil
}

// ClassDescs returns the class descriptors of the stream read so far, in
// handle order (proxies included).
func (d *Decoder) ClassDescs() []*ClassDesc { return d.AppendClassDescs(nil) }

// AppendClassDescs appends the class descriptors of the stream read so
// far to dst, as ClassDescs returns them.
func (d *Decoder) AppendClassDescs(dst []*ClassDesc) []*ClassDesc {
	for _, h := range d.handles {
		if cd, ok := h.(*ClassDesc); ok {
			dst = append(dst, cd)
		}
	}
	return dst
}
