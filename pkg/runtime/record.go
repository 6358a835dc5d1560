package runtime

import (
	"encoding/binary"
	"errors"
	"strconv"
)

// Value is a record field: null, an int64 or a string. The zero Value is
// null.
type Value struct {
	kind valueKind
	i    int64
	s    string
}

type valueKind uint8

// Value kinds; the numbers are part of the partition encoding.
const (
	kindNull   valueKind = 0
	kindInt    valueKind = 1
	kindString valueKind = 2
)

// Int returns an integer Value.
func Int(i int64) Value { return Value{kind: kindInt, i: i} }

// Str returns a string Value.
func Str(s string) Value { return Value{kind: kindString, s: s} }

// IsNull reports whether v is null.
func (v Value) IsNull() bool { return v.kind == kindNull }

// IsInt reports whether v is an integer.
func (v Value) IsInt() bool { return v.kind == kindInt }

// IsString reports whether v is a string.
func (v Value) IsString() bool { return v.kind == kindString }

// Int64 returns the integer of v, or 0 when v is not an integer.
func (v Value) Int64() int64 { return v.i }

// Text returns the string of v, or "" when v is not a string.
func (v Value) Text() string { return v.s }

// String formats v: integers in decimal, strings as they are, null as "".
func (v Value) String() string {
	switch v.kind {
	case kindInt:
		return strconv.FormatInt(v.i, 10)
	case kindString:
		return v.s
	}
	return ""
}

// Compare orders values: null, then integers by value, then strings
// bytewise. It returns -1, 0 or +1.
func (v Value) Compare(w Value) int {
	if v.kind != w.kind {
		if v.kind < w.kind {
			return -1
		}
		return 1
	}
	switch v.kind {
	case kindInt:
		switch {
		case v.i < w.i:
			return -1
		case v.i > w.i:
			return 1
		}
	case kindString:
		switch {
		case v.s < w.s:
			return -1
		case v.s > w.s:
			return 1
		}
	}
	return 0
}

// Record is the unit of data between operators: a key and a value.
type Record struct {
	Key   Value
	Value Value
}

// Record encoding (part of the partition file format): one tag byte, the
// key kind in the low nibble and the value kind in the high nibble, then
// the key and the value: an integer as a zig-zag varint, a string as a
// uvarint length and its bytes, null as nothing.

func appendRecord(dst []byte, r Record) []byte {
	dst = append(dst, byte(r.Key.kind)|byte(r.Value.kind)<<4)
	dst = appendValue(dst, r.Key)
	return appendValue(dst, r.Value)
}

func appendValue(dst []byte, v Value) []byte {
	switch v.kind {
	case kindInt:
		return binary.AppendVarint(dst, v.i)
	case kindString:
		dst = binary.AppendUvarint(dst, uint64(len(v.s)))
		return append(dst, v.s...)
	}
	return dst
}

// errBadRecord is returned for bytes that do not decode as a record.
var errBadRecord = errors.New("jobevent/runtime: malformed record")

// decodeRecord decodes one record from b and returns the bytes it used.
func decodeRecord(b []byte) (Record, int, error) {
	if len(b) == 0 {
		return Record{}, 0, errBadRecord
	}
	tag := b[0]
	n := 1
	key, m, err := decodeValue(b[n:], valueKind(tag&0x0f))
	if err != nil {
		return Record{}, 0, err
	}
	n += m
	val, m, err := decodeValue(b[n:], valueKind(tag>>4))
	if err != nil {
		return Record{}, 0, err
	}
	return Record{Key: key, Value: val}, n + m, nil
}

func decodeValue(b []byte, k valueKind) (Value, int, error) {
	switch k {
	case kindNull:
		return Value{}, 0, nil
	case kindInt:
		i, n := binary.Varint(b)
		if n <= 0 {
			return Value{}, 0, errBadRecord
		}
		return Int(i), n, nil
	case kindString:
		l, n := binary.Uvarint(b)
		if n <= 0 || l > uint64(len(b)-n) {
			return Value{}, 0, errBadRecord
		}
		return Str(string(b[n : n+int(l)])), n + int(l), nil
	}
	return Value{}, 0, errBadRecord
}

// keyGroup returns the key group of key among groups: FNV-1a (64 bit)
// over the key's kind byte and its encoding, modulo groups. It is part of
// the partition format: producers and consumers must agree on it.
func keyGroup(key Value, groups int) int {
	if groups <= 1 {
		return 0
	}
	const (
		offset64 = 14695981039346656037
		prime64  = 1099511628211
	)
	h := uint64(offset64)
	mix := func(b byte) { h ^= uint64(b); h *= prime64 }
	mix(byte(key.kind))
	switch key.kind {
	case kindInt:
		var buf [binary.MaxVarintLen64]byte
		for _, b := range binary.AppendVarint(buf[:0], key.i) {
			mix(b)
		}
	case kindString:
		for i := 0; i < len(key.s); i++ {
			mix(key.s[i])
		}
	}
	return int(h % uint64(groups))
}
