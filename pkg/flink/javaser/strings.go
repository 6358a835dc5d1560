package javaser

// Strings: TC_STRING and TC_LONGSTRING contents and the names inside class
// descriptors, all in modified UTF-8.

// readNewString reads a TC_STRING or TC_LONGSTRING whose type code has been
// read: newHandle, then the length and the bytes.
func (d *Decoder) readNewString(long bool) (Value, error) {
	start := d.pos - 1
	v, err := d.stringBody(long)
	if err != nil {
		return nil, err
	}
	if err := d.newHandle(start, v); err != nil {
		return nil, err
	}
	return v, nil
}

// stringBody reads the length and modified UTF-8 bytes of a string whose
// type code has been read, and returns the string as a Value.
func (d *Decoder) stringBody(long bool) (Value, error) {
	start := d.pos
	var n int64
	if long {
		l, err := d.i64("long string length")
		if err != nil {
			return nil, err
		}
		if l < 0 {
			return nil, d.malformed(start, "long string length %d", l)
		}
		n = l
	} else {
		l, err := d.u16("string length")
		if err != nil {
			return nil, err
		}
		n = int64(l)
	}
	if n > int64(d.opts.MaxStringBytes) {
		return nil, d.limit(start, "string of %d bytes, more than %d", n, d.opts.MaxStringBytes)
	}
	if d.strings != nil && n <= int64(len(d.buf)-d.pos) {
		b := d.buf[d.pos : d.pos+int(n)]
		if v, ok := d.strings[string(b)]; ok {
			d.pos += int(n)
			return v, nil
		}
		s, err := d.utfBytes(start, n)
		if err != nil {
			return nil, err
		}
		var v Value = s
		if len(b) <= maxInternedBytes {
			if len(d.strings) >= maxInterned {
				clear(d.strings) // another log's strings, maybe
			}
			d.strings[string(b)] = v
		}
		return v, nil
	}
	s, err := d.utfBytes(start, n)
	if err != nil {
		return nil, err
	}
	return s, nil
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

// A Decoder that is Reset keeps the short strings (TC_STRING) it reads, up
// to maxInterned of them (then it starts afresh), and returns the same
// string for the same bytes again: the streams of a log repeat their names
// and ids.
const (
	maxInterned      = 1024
	maxInternedBytes = 128
)

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

// readTypeString reads a string where only a string, a reference to one or
// null may be (field type signatures, enum constant names); null is
// reported as such.
func (d *Decoder) readTypeString() (s string, null bool, err error) {
	start := d.pos
	tc, err := d.u8("type code")
	if err != nil {
		return "", false, err
	}
	switch tc {
	case tcNull:
		return "", true, nil
	case tcString, tcLongString:
		v, err := d.readNewString(tc == tcLongString)
		if err != nil {
			return "", false, err
		}
		return v.(string), false, nil
	case tcReference:
		d.pos = start
		v, err := d.readReference()
		if err != nil {
			return "", false, err
		}
		if s, ok := v.(string); ok {
			return s, false, nil
		}
		return "", false, d.malformed(start, "reference to %s where a string was expected", kindOf(v))
	}
	return "", false, d.malformed(start, "type code 0x%02x where a string was expected", tc)
}
