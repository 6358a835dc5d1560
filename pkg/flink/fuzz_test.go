package flink

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/jobevent/jobevent/internal/flinkfixture"
)

// FuzzReader reads arbitrary bytes as events.0 (and their second half as
// events.1): no input panics, every error is a one-line *CorruptError,
// every warning is one line, and every event is the one the generic reader
// alone reads.
func FuzzReader(f *testing.F) {
	// The fixtures, and the files of real Flink runs when the repository
	// holds them.
	real := flinkfixture.Files()
	for _, dir := range fixtureDirs {
		files, _ := filepath.Glob(filepath.Join(dir, "job-events", "events.*"))
		if dir == fixtureDirs[0] {
			files = append(files, real...)
		}
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil {
				f.Add(b)
			}
		}
	}
	f.Add([]byte{0, 0, 0, 2, 0, 0, 0, 5, 0xac, 0xed, 0, 5, 0x70})
	f.Add([]byte{0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		fsys := fstest.MapFS{
			"events.0": &fstest.MapFile{Data: data},
			"events.1": &fstest.MapFile{Data: data[len(data)/2:]},
		}
		r, err := NewReader(fsys)
		if err != nil {
			t.Fatal(err)
		}
		drainFuzzed(t, r, func(rec *Record) {
			if rec.Event == nil {
				t.Fatalf("record at %s@%d without an event", rec.File, rec.Offset)
			}
			if gen, _ := decodePayload(rec.Type, rec.Payload, nil); !reflect.DeepEqual(rec.Event, gen) {
				t.Fatalf("record at %s@%d: the generic reader reads another event", rec.File, rec.Offset)
			}
		})
		for _, w := range r.Warnings() {
			if strings.Contains(w.String(), "\n") {
				t.Fatalf("warning %q spans lines", w)
			}
		}
	})
}

// FuzzDecodePayload decodes arbitrary payloads of each record type with
// the typed reader and with the generic reader alone: no input panics, and
// both read the same event or fail with the same error.
// drainFuzzed reads r to its end, calling each for every record, and wants
// the error that ends a damaged file to be a one-line *CorruptError.
func drainFuzzed(t *testing.T, r *Reader, each func(*Record)) {
	t.Helper()
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			var ce *CorruptError
			if !errors.As(err, &ce) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q is not a one-line *CorruptError", err)
			}
			return
		}
		each(rec)
	}
}

func FuzzDecodePayload(f *testing.F) {
	files, _ := payloadFiles(f)
	for _, file := range files {
		types, payloads := readPayloads(f, file)
		for i, p := range payloads {
			f.Add(byte(types[i]), p)
		}
	}
	fd := new(fastDecoder)
	f.Fuzz(func(t *testing.T, typ byte, payload []byte) {
		compareDecoders(t, fd, "payload", int32(typ%4), payload)
	})
}

// lengthFields returns the offsets of the length fields of data read as a
// job-events file: each record's payload length and, in type 1 records,
// the lengths of its three blobs.
func lengthFields(data []byte) []int {
	var offs []int
	for off := 0; off+8 <= len(data); {
		typ := int32(binary.BigEndian.Uint32(data[off:]))
		n := int(int32(binary.BigEndian.Uint32(data[off+4:])))
		offs = append(offs, off+4)
		if n < 0 || n > len(data)-off-8 {
			break
		}
		if typ == TypeVertexFinished {
			for p := off + 8; p+4 <= off+8+n && len(offs) < 1<<16; {
				offs = append(offs, p)
				m := int(int32(binary.BigEndian.Uint32(data[p:])))
				if m < 0 || m > off+8+n-p-4 {
					break
				}
				p += 4 + m
			}
		}
		off += 8 + n
	}
	return offs
}

// FuzzReaderLengths reads real job-events files with one length field (a
// record's, or a blob's inside a type 1 record) replaced by a claimed
// length: no input panics, the damage is a torn record or a one-line
// *CorruptError, and what is allocated is bounded by the file's size,
// never by the length claimed.
func FuzzReaderLengths(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "flink", "*", "*", "job-events*", "events.*"))
	for i, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b, uint16(i), uint32(0x7fffffff))
			f.Add(b, uint16(i+1), uint32(len(b)))
			f.Add(b, uint16(i+2), uint32(0x80000000))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, which uint16, claim uint32) {
		offs := lengthFields(data)
		if len(offs) == 0 {
			return
		}
		data = bytes.Clone(data)
		binary.BigEndian.PutUint32(data[offs[int(which)%len(offs)]:], claim)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		r, err := NewReader(fstest.MapFS{"events.0": {Data: data}})
		if err != nil {
			t.Fatal(err)
		}
		drainFuzzed(t, r, func(*Record) {})
		runtime.ReadMemStats(&after)
		if got, bound := after.TotalAlloc-before.TotalAlloc, uint64(64*len(data)+8<<20); got > bound {
			t.Fatalf("allocated %d bytes reading %d bytes (claimed %d), more than %d", got, len(data), claim, bound)
		}
	})
}
