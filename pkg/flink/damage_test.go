package flink

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
)

// TestOpen_NoRecordsSaysWhy: a directory that gives no record is called
// empty only when it is: torn-only and gapped directories say so, naming
// the file.
func TestOpen_NoRecordsSaysWhy(t *testing.T) {
	real, err := os.ReadFile("testdata/flips/1.20.5-min-pause-released-producer-events.1")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		fsys fstest.MapFS
		want []string
	}{
		{"empty", fstest.MapFS{"events.0": {}}, []string{"empty"}},
		{"torn", fstest.MapFS{"events.0": {Data: real[:100]}}, []string{"torn, not empty", "events.0 offset 0"}},
		{"gapped", fstest.MapFS{"events.1": {Data: real}}, []string{"gapped, not empty", "events.0: missing", "ignores events.1"}},
	} {
		_, err := Open(tc.fsys, Options{})
		if !errors.Is(err, ErrNoEvents) {
			t.Fatalf("%s: Open = %v, want ErrNoEvents", tc.name, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: Open = %q, want it to say %q", tc.name, err, w)
			}
		}
		if tc.name != "empty" && strings.Contains(strings.ReplaceAll(err.Error(), "not empty", ""), "empty") {
			t.Errorf("%s: Open = %q, calls it empty", tc.name, err)
		}
	}
}

// TestReader_ClaimedLengthBounded: a record claiming more bytes than the
// file holds is torn, found before anything is allocated for it; one
// claiming more than a JobManager's default heap is corruption (Flink's
// allocation fails), whatever the file holds.
func TestReader_ClaimedLengthBounded(t *testing.T) {
	for _, claim := range []uint32{1<<30 - 1, 3 << 20, 101} {
		data := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 1), claim)
		data = append(data, make([]byte, 100)...)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		r, err := NewReader(fstest.MapFS{"events.0": {Data: data}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.Next()
		runtime.ReadMemStats(&after)
		if err != io.EOF {
			t.Fatalf("claim %d: Next = %v, want io.EOF after a torn record", claim, err)
		}
		if ws := r.Warnings(); len(ws) != 1 || ws[0].Kind != WarnTorn || !strings.Contains(ws[0].Msg, "100 in the file") {
			t.Fatalf("claim %d: warnings = %v, want one torn record", claim, ws)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 256<<10 {
			t.Errorf("claim %d: allocated %d bytes for a 108-byte file", claim, got)
		}
	}
}

func TestReader_ClaimedLengthOverHeap(t *testing.T) {
	for _, claim := range []uint32{0x7fffffff, 1 << 30} {
		data := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 1), claim)
		r, err := NewReader(fstest.MapFS{"events.0": {Data: append(data, make([]byte, 100)...)}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Next(); !IsCorrupt(err) || !strings.Contains(err.Error(), "OutOfMemoryError") {
			t.Fatalf("claim %d: Next = %v, want corruption naming the OutOfMemoryError", claim, err)
		}
	}
}
