package javaser

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// checkSkipAgrees reads the top-level objects of data with ReadValue and
// with SkipValue side by side, and fails t unless both fail alike (or
// SkipValue with ErrUnread), at the same offset, or both end at the same offset having
// assigned the same handles: the same Values but for objects and arrays,
// which SkipValue marks unread.
func checkSkipAgrees(t *testing.T, data []byte, opts *Options, noCache bool) {
	t.Helper()
	for _, memo := range []bool{false, true} {
		checkSkip(t, data, opts, noCache, memo)
	}
}

// checkSkip is checkSkipAgrees with a new Decoder for SkipValue or, if
// memo, a Decoder that is Reset and has skipped the same contents before.
func checkSkip(t *testing.T, data []byte, opts *Options, noCache, memo bool) {
	t.Helper()
	read, err1 := NewDecoder(data, opts)
	skip, err2 := NewDecoder(data, opts)
	if err1 != nil || err2 != nil {
		return
	}
	if memo {
		for range 2 {
			skip.Reset(data)
			for i := 0; i < 100 && skip.SkipValue() == nil; i++ {
				skip.skipResets()
			}
		}
		skip.Reset(data)
	}
	read.noCache, skip.noCache = noCache, noCache
	for range 100 {
		read.skipResets()
		skip.skipResets()
		if c := read.PeekCode(); c == 0 || c == tcBlockData || c == tcBlockDataLong {
			return
		}
		_, rerr := read.ReadValue()
		serr := skip.SkipValue()
		if errors.Is(serr, ErrUnread) {
			return
		}
		if errClass(rerr) != errClass(serr) {
			t.Fatalf("ReadValue error %q, SkipValue error %q", errText(rerr), errText(serr))
		}
		if rerr != nil {
			return
		}
		if read.pos != skip.pos || len(read.handles) != len(skip.handles) {
			t.Fatalf("ReadValue ends at %d with %d handles, SkipValue at %d with %d", read.pos, len(read.handles), skip.pos, len(skip.handles))
		}
		for i, h := range skip.handles {
			switch r := read.handles[i]; {
			case h == unread:
				_, isObj := r.(*Object)
				_, isArr := r.(*Array)
				if !isObj && !isArr {
					t.Fatalf("handle %d: SkipValue marks unread what ReadValue reads as %s", i, kindOf(r))
				}
			case !reflect.DeepEqual(h, r):
				t.Fatalf("handle %d: SkipValue reads %s, ReadValue %s", i, kindOf(h), kindOf(r))
			}
		}
	}
}

// errClass returns the offset and kind of a decoding error (the message
// may name a value SkipValue did not build).
func errClass(err error) string {
	var de *DecodeError
	var wa *WriteAbortedError
	switch {
	case errors.As(err, &de):
		return fmt.Sprint(de.Offset, de.Kind)
	case errors.As(err, &wa):
		return err.Error()
	}
	return errText(err)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestSkipValue_AgreesWithReadValue(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.ser")
	if len(files) == 0 {
		t.Fatal("no testdata/*.ser")
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, noCache := range []bool{true, false} {
			checkSkipAgrees(t, data, nil, noCache)
			for n := range min(len(data), 600) {
				checkSkipAgrees(t, data[:n], nil, noCache)
			}
		}
	}
	// Arrays whose elements repeat: objects of one class (passed over
	// after the first), strings (read each), and an element cut short.
	seg := newStream().b(tcArray).classDesc("[LS;", FlagSerializable).i32(4).
		b(tcObject).classDesc("S", FlagSerializable, "Ia", "Lb").i32(1).b(tcNull)
	for range 3 {
		seg.b(tcObject).ref(1).i32(1).b(tcNull)
	}
	checkSkipAgrees(t, seg.Bytes(), nil, false)
	repeated := seg.Bytes()
	checkSkipAgrees(t, repeated[:len(repeated)-3], nil, false)
	checkSkipAgrees(t, repeated, &Options{MaxHandles: 4}, false)
	strs := newStream().b(tcArray).classDesc("[Ljava.lang.String;", FlagSerializable).i32(3).
		b(tcString).utf("a").b(tcString).utf("a").ref(2)
	checkSkipAgrees(t, strs.Bytes(), nil, false)
}

// TestDecoder_Typed reads an object field by field, a reference to it,
// and the same object handed back to the generic reader.
func TestDecoder_Typed(t *testing.T) {
	data := newStream().b(tcObject).classDesc("A", FlagSerializable|FlagWriteMethod, "Ix", "Ls").
		i32(7).b(tcString).utf("seven").b(tcBlockData, 4).i32(9).b(tcBlockData, 2, 0, 1).b(tcNull, tcEndBlockData).
		ref(2).Bytes()
	var d Decoder
	if err := d.Reset(data); err != nil {
		t.Fatal(err)
	}
	h, err := d.BeginObject()
	if err != nil || h.Class.Name != "A" || h.Handle != 2 {
		t.Fatalf("BeginObject = %+v, %v", h, err)
	}
	x, _ := d.ReadInt32()
	s, null, _ := d.ReadString()
	block, _ := d.ReadBlockData()
	v, err := d.ReadValue()
	if x != 7 || s != "seven" || null || string(block) != "\x00\x00\x00\x09\x00\x01" || v != nil || err != nil {
		t.Fatalf("fields %d %q %v, block % x, value %v %v", x, s, null, block, v, err)
	}
	if err := d.ReadEndBlockData(); err != nil {
		t.Fatal(err)
	}
	d.EndObject()
	at := d.pos
	if hd, v, built, err := d.ReadReference(); hd != 2 || v != nil || built || err != nil {
		t.Fatalf("ReadReference = %d, %v, %v, %v", hd, v, built, err)
	}
	d.pos = at
	if _, err := d.ReadValue(); !errors.Is(err, ErrUnread) {
		t.Fatalf("ReadValue of a reference to an unread object: %v, want ErrUnread", err)
	}

	if err := d.Reset(data); err != nil {
		t.Fatal(err)
	}
	h, _ = d.BeginObject()
	obj, err := d.FinishObject(h)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := DecodeObject(data, nil)
	if !reflect.DeepEqual(obj, want) {
		t.Fatalf("FinishObject reads %s, DecodeObject %s", render(obj), render(want))
	}
	if _, v, built, err := d.ReadReference(); v != obj || !built || err != nil {
		t.Fatalf("ReadReference after FinishObject = %v, %v, %v", v, built, err)
	}
}
