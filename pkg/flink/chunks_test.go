package flink

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"testing/fstest"
)

// readOneByOne reads the records of one file's bytes as Flink does, one
// after another with the whole file in hand: the reference the Reader's
// chunked, concurrent reading must equal.
func readOneByOne(name string, data []byte, size int64) (recs []Record, warns []Warning, err error) {
	var r Reader
	for pos := 0; ; {
		it, n, res := frame(data[pos:], name, int64(pos), size, true)
		switch res {
		case frameEnd:
			if it.warn.Kind != 0 {
				r.warnings = append(r.warnings, it.warn)
			}
			return recs, r.warnings, nil
		case frameFail:
			return recs, r.warnings, it.err
		}
		pos += n
		ev, derr := DecodePayload(it.typ, it.payload)
		if derr != nil {
			switch derr = r.decodeFailed(name, it.off, it.typ, derr); derr {
			case errSkipRecord:
				continue
			case errEndOfFile:
				return recs, r.warnings, nil
			}
			return recs, r.warnings, derr
		}
		recs = append(recs, Record{Seq: int64(len(recs) + 1), File: name, Offset: it.off, Type: it.typ, Event: ev})
	}
}

// sizelessFS hides its files' sizes, as a stream whose length is unknown.
type sizelessFS struct{ fstest.MapFS }

func (s sizelessFS) Open(name string) (fs.File, error) {
	f, err := s.MapFS.Open(name)
	if err != nil || name == "." {
		return f, err
	}
	return sizelessFile{f}, nil
}

type sizelessFile struct{ fs.File }

func (f sizelessFile) Stat() (fs.FileInfo, error) {
	st, err := f.File.Stat()
	return sizelessInfo{st}, err
}

type sizelessInfo struct{ fs.FileInfo }

func (sizelessInfo) Mode() fs.FileMode { return fs.ModeNamedPipe | 0o444 }

// TestReader_ChunksEqualOneByOne reads files of several chunks whose
// records straddle the chunks' bounds, whole and damaged at a bound, with
// and without a known size and mapped from disk, and compares every record,
// payload, warning and error with the record-by-record reading.
func TestReader_ChunksEqualOneByOne(t *testing.T) {
	var unit []byte
	for _, dir := range fixtureDirs {
		files, _ := filepath.Glob(filepath.Join(dir, "job-events", "events.*"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, off := range recordOffsets(b) {
				end := off + 8 + int(binary.BigEndian.Uint32(b[off+4:]))
				if end <= len(b) {
					unit = append(unit, b[off:end]...)
				}
			}
		}
	}
	if len(unit) == 0 {
		t.Skip("no fixture records")
	}
	var whole []byte
	for len(whole) < 3*chunkSize+chunkSize/2 {
		whole = append(whole, unit...)
	}
	offs := recordOffsets(whole)
	// at returns the offset of the first record that straddles bound.
	at := func(bound int) int {
		for i, off := range offs {
			if i+1 < len(offs) && offs[i+1] > bound {
				return off
			}
		}
		t.Fatalf("no record across %d", bound)
		return 0
	}
	damaged := func(f func([]byte)) []byte { b := bytes.Clone(whole); f(b); return b }
	cases := map[string][]byte{
		"whole":                 whole,
		"torn at a chunk's end": whole[:chunkSize+5],
		"torn header":           whole[:at(2*chunkSize)+3],
		"negative length across a bound": damaged(func(b []byte) {
			binary.BigEndian.PutUint32(b[at(chunkSize)+4:], 0xffffffff)
		}),
		"unknown type across a bound": damaged(func(b []byte) {
			binary.BigEndian.PutUint32(b[at(2*chunkSize):], 9)
		}),
		"claim past the end": damaged(func(b []byte) {
			binary.BigEndian.PutUint32(b[at(3*chunkSize)+4:], 5<<20)
		}),
		"payload damaged across a bound": damaged(func(b []byte) {
			off := at(chunkSize)
			for i := off + 8; i < off+64; i++ {
				b[i] ^= 0xff
			}
		}),
	}
	for name, data := range cases {
		for _, mode := range []string{"sized", "sizeless", "mapped"} {
			t.Run(name+"/"+mode, func(t *testing.T) {
				files := fstest.MapFS{"events.0": {Data: data}, "events.1": {Data: unit}}
				var fsys fs.FS = files
				size := int64(len(data))
				switch mode {
				case "sizeless":
					fsys, size = sizelessFS{files}, -1
				case "mapped": // files of the operating system, mapped where it can
					dir := t.TempDir()
					for name, f := range files {
						if err := os.WriteFile(filepath.Join(dir, name), f.Data, 0o644); err != nil {
							t.Fatal(err)
						}
					}
					fsys = os.DirFS(dir)
				}
				want, wantWarns, wantErr := readOneByOne("events.0", data, size)
				if wantErr == nil {
					more, w, err := readOneByOne("events.1", unit, int64(len(unit)))
					base := int64(len(want))
					for _, rec := range more {
						rec.Seq += base
						want = append(want, rec)
					}
					wantWarns, wantErr = append(wantWarns, w...), err
				}
				r, err := NewReader(fsys)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				var got []Record
				for {
					rec, err := r.Next()
					if err == io.EOF {
						err = nil
					}
					if err != nil || rec == nil {
						if fmt.Sprint(err) != fmt.Sprint(wantErr) {
							t.Fatalf("error %v, want %v", err, wantErr)
						}
						break
					}
					if f := files[rec.File]; !bytes.Equal(rec.Payload, f.Data[rec.Offset+8:rec.Offset+8+int64(len(rec.Payload))]) {
						t.Fatalf("record %d: payload is not the bytes at %s:%d", rec.Seq, rec.File, rec.Offset)
					}
					c := *rec
					c.Payload = nil
					got = append(got, c)
				}
				if len(got) != len(want) {
					t.Fatalf("%d records, want %d", len(got), len(want))
				}
				for i := range got {
					if !reflect.DeepEqual(got[i], want[i]) {
						t.Fatalf("record %d: %+v, want %+v", i, got[i], want[i])
					}
				}
				if ws := r.Warnings(); !reflect.DeepEqual(ws, wantWarns) {
					t.Fatalf("warnings %v, want %v", ws, wantWarns)
				}
			})
		}
	}
}
