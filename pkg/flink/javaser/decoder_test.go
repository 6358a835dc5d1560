package javaser

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func decodeErr(t *testing.T, data []byte, opts *Options) error {
	t.Helper()
	_, err := Decode(data, opts)
	if err != nil && strings.Contains(err.Error(), "\n") {
		t.Fatalf("error %q spans lines", err)
	}
	return err
}

func wantKind(t *testing.T, err error, kind error, offset int64, text string) {
	t.Helper()
	var de *DecodeError
	if !errors.As(err, &de) || !errors.Is(err, kind) {
		t.Fatalf("error %v, want a *DecodeError matching %v", err, kind)
	}
	if de.Offset != offset || !strings.Contains(err.Error(), text) {
		t.Fatalf("error %q at offset %d, want offset %d containing %q", err, de.Offset, offset, text)
	}
}

func TestDecode_Malformed(t *testing.T) {
	chain := newStream().b(tcObject, tcClassDesc).utf("Loop").i64(1).b(FlagSerializable).u16(0).b(tcEndBlockData).ref(0)
	tests := []struct {
		name   string
		data   []byte
		kind   error
		offset int64
		text   string
	}{
		{"empty", nil, ErrTruncated, 0, "stream magic cut short"},
		{"magic", []byte{0xca, 0xfe, 0, 5}, ErrMalformed, 0, "stream magic is 0xcafe"},
		{"version", []byte{0xac, 0xed, 0, 4}, ErrMalformed, 2, "stream version is 4"},
		{"type code", newStream().b(0x55).Bytes(), ErrMalformed, 4, "byte 0x55 is not a type code"},
		{"dangling reference", newStream().ref(3).Bytes(), ErrMalformed, 4, "handle 0x7e0003, which is not assigned"},
		{"end block at top", newStream().b(tcEndBlockData).Bytes(), ErrMalformed, 4, "end of block data"},
		{"reset inside object", newStream().b(tcObject).classDesc("A", FlagSerializable, "Lx").b(tcReset).Bytes(), ErrMalformed, 47, "reset inside an object"},
		{"both flags", newStream().b(tcObject).classDesc("A", FlagSerializable|FlagExternalizable).Bytes(), ErrMalformed, 5, "both serializable and externalizable"},
		{"superclass loop", chain.Bytes(), ErrMalformed, 4, "superclass chain of Loop loops"},
		{"field type", newStream().b(tcObject).classDesc("A", FlagSerializable, "Qx").Bytes(), ErrMalformed, 20, "type code 0x51"},
		{"bad utf", newStream().b(tcString).u16(2).b(0xff, 0x41).Bytes(), ErrMalformed, 5, "not modified UTF-8"},
		{"cut utf", newStream().b(tcString).u16(2).b(0xc3).Bytes(), ErrTruncated, 5, "string of 2 bytes, 1 left"},
		{"array of no class", newStream().b(tcArray, tcNull).i32(1).Bytes(), ErrMalformed, 4, "array of no class"},
		{"array class", newStream().b(tcArray).classDesc("[Q", FlagSerializable).i32(1).Bytes(), ErrTruncated, 23, "array of 1 objects, 0 bytes left"}, // read as objects, as Java does
		{"negative array", newStream().b(tcArray).classDesc("[I", FlagSerializable).i32(-1).Bytes(), ErrMalformed, 23, "array length -1"},
		{"huge array", newStream().b(tcArray).classDesc("[J", FlagSerializable).i32(1 << 25).Bytes(), ErrTruncated, 23, "array of 33554432 [J needs 268435456 bytes, 0 left"},
		{"huge object array", newStream().b(tcArray).classDesc("[Ljava.lang.Object;", FlagSerializable).i32(1 << 25).b(tcNull).Bytes(), ErrTruncated, 40, "array of 33554432 objects, 1 bytes left"},
		{"huge long string", newStream().b(tcLongString).i64(1 << 40).Bytes(), ErrLimit, 5, "string of 1099511627776 bytes, more than 67108864"},
		{"long string past the end", newStream().b(tcLongString).i64(1 << 25).Bytes(), ErrTruncated, 5, "string of 33554432 bytes, 0 left"},
		{"negative long string", newStream().b(tcLongString).i64(-2).Bytes(), ErrMalformed, 5, "long string length -2"},
		{"huge block", newStream().b(tcBlockDataLong).i32(1 << 30).Bytes(), ErrTruncated, 4, "block of 1073741824 bytes, 0 left"},
		{"many fields", newStream().b(tcObject, tcClassDesc).utf("A").i64(1).b(2).u16(30000).Bytes(), ErrTruncated, 18, "30000 fields of A cannot fit"},
		{"enum name", newStream().b(tcEnum).classDesc("E", FlagEnum|FlagSerializable).b(tcNull).Bytes(), ErrMalformed, 22, "enum constant of E without a name"},
		{"class ref not desc", newStream().b(tcString).utf("s").b(tcObject).ref(0).Bytes(), ErrMalformed, 9, "reference to a string where a class descriptor"},
		{"externalizable v1", newStream().b(tcObject).classDesc("X", FlagExternalizable).Bytes(), ErrMalformed, 4, "protocol version 1"},
		{"annotation without end", newStream().b(tcObject).classDesc("A", FlagSerializable|FlagWriteMethod).b(tcBlockData, 1, 7).Bytes(), ErrTruncated, 22, "annotation without its end marker"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantKind(t, decodeErr(t, tt.data, nil), tt.kind, tt.offset, tt.text)
		})
	}
}

func nestedArrays(depth int) []byte {
	s := newStream().b(tcArray).classDesc("[Ljava.lang.Object;", FlagSerializable).i32(1)
	for range depth - 1 {
		s.b(tcArray).ref(0).i32(1)
	}
	return s.b(tcNull).Bytes()
}

func TestDecode_Limits(t *testing.T) {
	if _, err := Decode(nestedArrays(900), nil); err != nil {
		t.Fatalf("900 nested arrays: %v", err)
	}
	wantKind(t, decodeErr(t, nestedArrays(5000), nil), ErrLimit, 44+998*10+1, "nesting deeper than 1000")
	wantKind(t, decodeErr(t, nestedArrays(20), &Options{MaxDepth: 10}), ErrLimit, 44+8*10+1, "nesting deeper than 10")

	strs := newStream()
	for range 20 {
		strs.b(tcString).utf("x")
	}
	wantKind(t, decodeErr(t, strs.Bytes(), &Options{MaxHandles: 10}), ErrLimit, 4+10*4, "more than 10 handles")
	if _, err := Decode(newStream().b(tcString).utf("a").b(tcReset).b(tcString).utf("b").Bytes(), &Options{MaxHandles: 1}); err != nil {
		t.Fatalf("a reset frees the handles: %v", err)
	}
	arr := newStream().b(tcArray).classDesc("[B", FlagSerializable).i32(6).b(1, 2, 3, 4, 5, 6).Bytes()
	wantKind(t, decodeErr(t, arr, &Options{MaxArrayLength: 5}), ErrLimit, 23, "array of 6 elements, more than 5")
	wantKind(t, decodeErr(t, newStream().b(tcString).utf("abcdef").Bytes(), &Options{MaxStringBytes: 5}), ErrLimit, 5, "string of 6 bytes, more than 5")
}

func TestDecode_Strings(t *testing.T) {
	tests := []struct {
		wire []byte
		want string
	}{
		{[]byte{0xc0, 0x80}, "\x00"},
		{[]byte{0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80}, "\U0001F600"},
		{[]byte{0xed, 0xa0, 0xbd, 'x'}, "\uFFFDx"},
		{[]byte{0xc3, 0xa9, 0xe4, 0xb8, 0xad}, "é中"},
	}
	for _, tt := range tests {
		v, err := DecodeObject(newStream().b(tcString).u16(uint16(len(tt.wire))).b(tt.wire...).Bytes(), nil)
		if err != nil || v != tt.want {
			t.Errorf("% x: %q, %v; want %q", tt.wire, v, err, tt.want)
		}
	}
}

// TestDecode_References: references to a class descriptor (TC_CLASS of a
// descriptor read before), a descriptor as a value, and a reference to an
// object from inside its own fields.
func TestDecode_References(t *testing.T) {
	s := newStream().b(tcObject).classDesc("Node", FlagSerializable, "Lnext").ref(2) // handles: 0 desc, 1 sig string, 2 object
	s.b(tcClass).ref(0)
	s.classDesc("Solo", FlagSerializable)
	vals, err := Decode(s.Bytes(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(vals) != 3 {
		t.Fatalf("values = %d, want 3", len(vals))
	}
	o := vals[0].(*Object)
	if next, _ := o.Field("next"); next != o {
		t.Errorf("next = %v, want the object itself", next)
	}
	if c := vals[1].(*Class); c.Desc != o.Class {
		t.Errorf("class desc = %v, want the object's", c.Desc)
	}
	if d := vals[2].(*ClassDesc); d.Name != "Solo" {
		t.Errorf("descriptor = %q, want Solo", d.Name)
	}
	if _, err := DecodeObject(newStream().b(tcBlockData, 1, 1).Bytes(), nil); !errors.Is(err, ErrMalformed) {
		t.Errorf("DecodeObject of block data: %v, want ErrMalformed", err)
	}
}

func TestAdapters_NotAdapted(t *testing.T) {
	v, err := DecodeObject(newStream().b(tcObject).classDesc("java.util.HashMap", FlagSerializable|FlagWriteMethod, "FloadFactor", "Ithreshold").
		i32(0x3f400000).i32(12).b(tcBlockData, 8).i32(16).i32(3).b(tcString).utf("k").b(tcNull, tcEndBlockData).Bytes(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := AsMap(v); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "java.util.HashMap: size 3, but 2 objects written") {
		t.Errorf("AsMap of a short HashMap: %v", err)
	}
	for _, f := range []func(Value) error{
		func(v Value) error { _, err := AsList(v); return err },
		func(v Value) error { _, err := AsBoxed(v); return err },
		func(v Value) error { _, err := AsInetAddress(v); return err },
	} {
		if err := f(v); !errors.Is(err, ErrNotAdapted) {
			t.Errorf("adapter of a HashMap: %v, want ErrNotAdapted", err)
		}
	}
	if _, err := AsMap("s"); !errors.Is(err, ErrNotAdapted) {
		t.Errorf("AsMap of a string: %v, want ErrNotAdapted", err)
	}
}

// TestDecode_Truncated cuts every fixture at many offsets: what precedes
// the cut decodes as before, and the error, if any, matches ErrTruncated at
// an offset no later than the cut.
func TestDecode_Truncated(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.ser")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		step := 1 + len(data)/1500
		for cut := 0; cut < len(data); cut += step {
			_, err := Decode(data[:cut], nil)
			var wa *WriteAbortedError
			if errors.As(err, &wa) {
				continue // the exception fixture: contents after it are cut
			}
			var de *DecodeError
			if err == nil && cut < 4 || err != nil && (!errors.As(err, &de) || !errors.Is(err, ErrTruncated) || de.Offset > int64(cut)) {
				t.Fatalf("%s cut at %d: %v, want ErrTruncated", filepath.Base(f), cut, err)
			}
		}
	}
}
