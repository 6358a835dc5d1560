package javaser

import (
	"encoding/binary"
	"fmt"
)

// Big-endian primitives and the errors of the decoder.

// u8, u16, i32 and i64 read big-endian values; what names the value in
// the error when the input ends.
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
