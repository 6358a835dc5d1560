package javaser

import (
	"bytes"
	"encoding/binary"
	"math"
)

// readNewObject reads a TC_OBJECT whose type code has been read:
// classDesc newHandle classdata.
func (d *Decoder) readNewObject() (Value, error) {
	start := d.pos - 1
	desc, err := d.readClassDesc()
	if err != nil {
		return nil, err
	}
	if desc == nil {
		return nil, d.malformed(start, "object without a class descriptor")
	}
	if d.skip {
		return unread, d.skipObject(start, desc)
	}
	blk := &objectBlock{obj: Object{Class: desc, Offset: int64(start)}}
	obj := &blk.obj
	if err := d.newHandle(start, obj); err != nil {
		return nil, err
	}
	return obj, d.readObjectData(start, blk)
}

// readObjectData reads the class data (or the external contents) of the
// object in blk, whose TC_OBJECT is at start and whose handle is assigned.
func (d *Decoder) readObjectData(start int, blk *objectBlock) error {
	obj, desc := &blk.obj, blk.obj.Class
	var err error
	if desc.Has(FlagExternalizable) {
		if !desc.Has(FlagBlockData) {
			return d.malformed(start, "externalizable %s written with stream protocol version 1 cannot be read without its class", printable(desc.Name))
		}
		obj.External, err = d.readAnnotation()
		return err
	}
	chain, err := d.chain(start, desc)
	if err != nil {
		return err
	}
	if len(chain) <= len(blk.data) {
		obj.Data = blk.data[:len(chain):len(chain)]
	} else {
		obj.Data = make([]ClassData, len(chain))
	}
	nvals := 0
	for _, cd := range chain {
		nvals += len(cd.Fields)
	}
	var vals []Value // one backing array for the values of every class
	if nvals > 0 {
		vals = make([]Value, nvals)
	}
	for i, cd := range chain {
		n := len(cd.Fields)
		if n > 0 {
			obj.Data[i].Values, vals = vals[:n:n], vals[n:]
		}
		if err := d.readClassData(&obj.Data[i], cd); err != nil {
			return err
		}
	}
	return nil
}

// skipObject reads, in skip mode, the rest of the object at start: the
// checks and handles of readNewObject without its Values.
func (d *Decoder) skipObject(start int, desc *ClassDesc) error {
	if err := d.newHandle(start, unread); err != nil {
		return err
	}
	if desc.Has(FlagExternalizable) {
		if !desc.Has(FlagBlockData) {
			return d.malformed(start, "externalizable %s written with stream protocol version 1 cannot be read without its class", printable(desc.Name))
		}
		_, err := d.readAnnotation()
		return err
	}
	chain, err := d.chain(start, desc)
	if err != nil {
		return err
	}
	for _, cd := range chain {
		if err := d.skipClassData(cd); err != nil {
			return err
		}
	}
	return nil
}

// skipClassData is readClassData in skip mode.
func (d *Decoder) skipClassData(cd *ClassDesc) error {
	for _, f := range cd.Fields {
		if f.Type == 'L' || f.Type == '[' {
			if _, err := d.readObject(); err != nil {
				return err
			}
			continue
		}
		n := primSize[f.Type]
		if len(d.buf)-d.pos < n {
			return d.truncated(d.pos, "value of field %s cut short", printable(f.Name))
		}
		d.pos += n
	}
	if cd.Has(FlagSerializable | FlagWriteMethod) {
		_, err := d.readAnnotation()
		return err
	}
	return nil
}

// objectBlock allocates an Object with room for the class data of a short
// hierarchy, in one allocation.
type objectBlock struct {
	obj  Object
	data [2]ClassData
}

// readClassData reads the field values of one class of an object's
// hierarchy and, if the class has a writeObject method, its annotation.
func (d *Decoder) readClassData(data *ClassData, cd *ClassDesc) error {
	data.Class = cd
	for i, f := range cd.Fields {
		v, err := d.readFieldValue(f)
		if err != nil {
			return err
		}
		data.Values[i] = v
	}
	if cd.Has(FlagSerializable | FlagWriteMethod) {
		a, err := d.readAnnotation()
		if err != nil {
			return err
		}
		data.Annotation = a
	}
	return nil
}

// primSize is the size on the wire of a primitive of each type code.
var primSize = [256]int{'B': 1, 'C': 2, 'D': 8, 'F': 4, 'I': 4, 'J': 8, 'S': 2, 'Z': 1}

func (d *Decoder) readFieldValue(f Field) (Value, error) {
	if f.Type == 'L' || f.Type == '[' {
		return d.readObject()
	}
	n := primSize[f.Type]
	if len(d.buf)-d.pos < n {
		return nil, d.truncated(d.pos, "value of field %s cut short", printable(f.Name))
	}
	d.pos += n
	return primValue(f.Type, d.buf[d.pos-n:d.pos]), nil
}

// primValue converts the wire bytes of a primitive of type code t.
func primValue(t byte, b []byte) Value {
	switch t {
	case 'B':
		return int8(b[0])
	case 'C':
		return Char(binary.BigEndian.Uint16(b))
	case 'D':
		return math.Float64frombits(binary.BigEndian.Uint64(b))
	case 'F':
		return math.Float32frombits(binary.BigEndian.Uint32(b))
	case 'I':
		return int32(binary.BigEndian.Uint32(b))
	case 'J':
		return int64(binary.BigEndian.Uint64(b))
	case 'S':
		return int16(binary.BigEndian.Uint16(b))
	}
	return b[0] != 0
}

// readArray reads a TC_ARRAY whose type code has been read:
// classDesc newHandle size values.
func (d *Decoder) readArray() (Value, error) {
	start := d.pos - 1
	desc, err := d.readClassDesc()
	if err != nil {
		return nil, err
	}
	if desc == nil {
		return nil, d.malformed(start, "array of %s", descName(desc))
	}
	if d.skip {
		return unread, d.skipArray(start, desc)
	}
	arr := &Array{Class: desc}
	if err := d.newHandle(start, arr); err != nil {
		return nil, err
	}
	at := d.pos
	n, err := d.arrayLength()
	if err != nil {
		return nil, err
	}
	elem := arrayElem(desc.Name)
	if elem == 'L' {
		arr.Data, err = d.readObjectElements(at, n)
		return arr, err
	}
	size := primSize[elem]
	if left := len(d.buf) - d.pos; int64(n)*int64(size) > int64(left) {
		return nil, d.truncated(at, "array of %d %s needs %d bytes, %d left", n, printable(desc.Name), int64(n)*int64(size), left)
	}
	b := d.buf[d.pos : d.pos+n*size]
	d.pos += n * size
	arr.Data = primArray(elem, b, n)
	return arr, nil
}

// arrayElem returns the type code of the elements of an array of class
// name: a primitive's, or 'L' for objects and arrays. A name that is not
// an array class's (one ObjectInputStream cannot resolve) is 'L': Java
// reads the elements of such an array as objects, and the class error is
// the reader's to raise (ClassNotFoundException).
func arrayElem(name string) byte {
	if len(name) >= 2 && name[0] == '[' && primSize[name[1]] != 0 {
		return name[1]
	}
	return 'L'
}

// skipArray reads, in skip mode, the rest of the array at start.
func (d *Decoder) skipArray(start int, desc *ClassDesc) error {
	if err := d.newHandle(start, unread); err != nil {
		return err
	}
	at := d.pos
	n, err := d.arrayLength()
	if err != nil {
		return err
	}
	elem := arrayElem(desc.Name)
	if elem == 'L' {
		if left := len(d.buf) - d.pos; n > left {
			return d.truncated(at, "array of %d objects, %d bytes left", n, left)
		}
		return d.skipElements(n)
	}
	size := primSize[elem]
	if left := len(d.buf) - d.pos; int64(n)*int64(size) > int64(left) {
		return d.truncated(at, "array of %d %s needs %d bytes, %d left", n, printable(desc.Name), int64(n)*int64(size), left)
	}
	d.pos += n * size
	return nil
}

// skipElements skips n elements of an array of objects. An element whose
// bytes repeat those of the element before, which assigned only handles of
// objects and arrays (no class descriptors or strings), reads the same way
// (the references in it are to the same handles, of the same kinds), so it
// is not read again: its handles are assigned and the decoder moves past
// it. ConcurrentHashMap writes 16 such segments.
func (d *Decoder) skipElements(n int) error {
	prev, size, handles := 0, 0, 0 // the element before: offset, size, handles
	for range n {
		start, base := d.pos, len(d.handles)
		if size > 0 && len(d.buf)-start >= size && bytes.Equal(d.buf[start:start+size], d.buf[prev:prev+size]) &&
			base+handles <= d.opts.MaxHandles {
			for range handles {
				d.handles = append(d.handles, unread)
			}
			d.pos += size
			prev = start
			continue
		}
		if _, err := d.readObject(); err != nil {
			return err
		}
		prev, size, handles = start, d.pos-start, len(d.handles)-base
		for _, h := range d.handles[base:] {
			if h != unread {
				size = 0
				break
			}
		}
	}
	return nil
}

// arrayLength reads an array's length and checks it against the limit.
func (d *Decoder) arrayLength() (int, error) {
	at := d.pos
	n32, err := d.i32("array length")
	if err != nil {
		return 0, err
	}
	if n32 < 0 {
		return 0, d.malformed(at, "array length %d", n32)
	}
	n := int(n32)
	if n > d.opts.MaxArrayLength {
		return 0, d.limit(at, "array of %d elements, more than %d", n, d.opts.MaxArrayLength)
	}
	return n, nil
}

func (d *Decoder) readObjectElements(at, n int) ([]Value, error) {
	// Every element takes at least one byte (TC_NULL).
	if left := len(d.buf) - d.pos; n > left {
		return nil, d.truncated(at, "array of %d objects, %d bytes left", n, left)
	}
	vals := make([]Value, n)
	for i := range vals {
		v, err := d.readObject()
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return vals, nil
}

// primArray converts the wire bytes of n primitives of type code t.
func primArray(t byte, b []byte, n int) any {
	be := binary.BigEndian
	switch t {
	case 'B':
		return append([]byte(nil), b...)
	case 'Z':
		out := make([]bool, n)
		for i := range out {
			out[i] = b[i] != 0
		}
		return out
	case 'C':
		out := make([]Char, n)
		for i := range out {
			out[i] = Char(be.Uint16(b[2*i:]))
		}
		return out
	case 'S':
		out := make([]int16, n)
		for i := range out {
			out[i] = int16(be.Uint16(b[2*i:]))
		}
		return out
	case 'I':
		out := make([]int32, n)
		for i := range out {
			out[i] = int32(be.Uint32(b[4*i:]))
		}
		return out
	case 'F':
		out := make([]float32, n)
		for i := range out {
			out[i] = math.Float32frombits(be.Uint32(b[4*i:]))
		}
		return out
	case 'J':
		out := make([]int64, n)
		for i := range out {
			out[i] = int64(be.Uint64(b[8*i:]))
		}
		return out
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = math.Float64frombits(be.Uint64(b[8*i:]))
	}
	return out
}

func descName(cd *ClassDesc) string {
	if cd == nil {
		return "no class"
	}
	if cd.Proxy {
		return "a proxy class"
	}
	return printable(cd.Name)
}
