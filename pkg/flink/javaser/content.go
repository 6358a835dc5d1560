package javaser

import "fmt"

// Block data, annotations, and the TC_EXCEPTION, TC_CLASS and TC_ENUM
// contents.

// readBlock reads the TC_BLOCKDATA or TC_BLOCKDATALONG at the current offset
// and returns its bytes (a slice of the input).
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
			if d.skip {
				continue
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
			if !d.skip {
				out = append(out, v)
			}
		}
	}
}

// readException reads a TC_EXCEPTION whose type code has been read: the
// handle table is cleared before and after the Throwable, as the writer
// does.
func (d *Decoder) readException(start int) (Value, error) {
	d.handles = d.handles[:0]
	skip := d.skip
	d.skip = false // the error reports the Throwable
	ex, err := d.readObject()
	d.skip = skip
	if err != nil {
		return nil, err
	}
	d.handles = d.handles[:0]
	return nil, &WriteAbortedError{Offset: int64(start), Exception: ex}
}

// readClass reads a TC_CLASS whose type code has been read: classDesc
// newHandle.
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

// readEnum reads a TC_ENUM whose type code has been read: classDesc
// newHandle enumConstantName.
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
	name, null, err := d.readTypeString()
	if err != nil {
		return nil, err
	}
	if null {
		return nil, d.malformed(at, "enum constant of %s without a name", printable(desc.Name))
	}
	e.Name = name
	return e, nil
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
	case *unreadObject:
		return "an object read without its value"
	}
	return fmt.Sprintf("%T", v)
}
