package flink

import (
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/jobevent/jobevent/pkg/flink/javaser"
)

// fixtureDirs are job-events directories written by testdata/gen: the
// framing of Flink's FileSystemJobEventStore with payloads that Java
// serialized from classes with the names and fields of Flink's, in the 1.20
// and the 2.x form of ExecutionVertexInputInfo.
var fixtureDirs = []string{"testdata/jobevents/v1_20", "testdata/jobevents/v2"}

// readAll reads every record and returns their renderings, the warnings
// and the error that ended the reading (nil at io.EOF).
func readAll(t *testing.T, fsys fs.FS) (lines []string, warnings []Warning, err error) {
	t.Helper()
	r, err := NewReader(fsys)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return lines, r.Warnings(), nil
		}
		if err != nil {
			return lines, r.Warnings(), err
		}
		if rec.Event.RecordType() != rec.Type {
			t.Fatalf("%s@%d: event of type %d in a record of type %d", rec.File, rec.Offset, rec.Event.RecordType(), rec.Type)
		}
		lines = append(lines, renderRecord(rec))
	}
}

func expectedLines(t *testing.T, dir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "expected.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// loadFS copies a fixture's job-events files into memory for damaging.
func loadFS(t *testing.T, dir string) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	files, err := filepath.Glob(filepath.Join(dir, "job-events", "events.*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m[filepath.Base(f)] = &fstest.MapFile{Data: b}
	}
	return m
}

func TestReader_Golden(t *testing.T) {
	for _, dir := range fixtureDirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			r, err := OpenDir(filepath.Join(dir, "job-events"))
			if err != nil {
				t.Fatal(err)
			}
			r.Close()
			lines, warnings, err := readAll(t, os.DirFS(filepath.Join(dir, "job-events")))
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if len(warnings) != 0 {
				t.Errorf("warnings = %v, want none", warnings)
			}
			want := expectedLines(t, dir)
			if len(lines) != len(want) {
				t.Fatalf("records = %d, want %d", len(lines), len(want))
			}
			for i := range want {
				if lines[i] != want[i] {
					t.Errorf("record %d:\n got %s\nwant %s", i+1, lines[i], want[i])
				}
			}
		})
	}
}

// recordOffsets returns the offsets of the records of one file.
func recordOffsets(data []byte) []int {
	var offs []int
	for off := 0; off+8 <= len(data); {
		offs = append(offs, off)
		off += 8 + int(binary.BigEndian.Uint32(data[off+4:]))
	}
	return offs
}

func linesOf(want []string, file string) []string {
	var out []string
	for _, l := range want {
		if strings.HasPrefix(l, file+"@") {
			out = append(out, l)
		}
	}
	return out
}

// TestReader_TornRecord cuts events.0 at many offsets: the records before
// the cut are read, a torn record is a warning naming events.0 and the
// record's offset, and the later files are read in full, as Flink does.
func TestReader_TornRecord(t *testing.T) {
	dir := fixtureDirs[0]
	want := expectedLines(t, dir)
	full := loadFS(t, dir)
	data := full["events.0"].Data
	offs := recordOffsets(data)
	rest := append(linesOf(want, "events.1"), linesOf(want, "events.2")...)
	for cut := 0; cut < len(data); cut += 13 {
		fsys := loadFS(t, dir)
		fsys["events.0"] = &fstest.MapFile{Data: data[:cut]}
		lines, warnings, err := readAll(t, fsys)
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		complete := 0
		for _, o := range offs {
			if o+8+int(binary.BigEndian.Uint32(data[o+4:])) <= cut {
				complete++
			}
		}
		wantLines := append(append([]string(nil), want[:complete]...), rest...)
		if strings.Join(lines, "\n") != strings.Join(wantLines, "\n") {
			t.Fatalf("cut at %d: records\n%s\nwant\n%s", cut, strings.Join(lines, "\n"), strings.Join(wantLines, "\n"))
		}
		torn := complete < len(offs) && cut > offs[complete]
		if torn != (len(warnings) == 1) {
			t.Fatalf("cut at %d: warnings %v, torn %v", cut, warnings, torn)
		}
		if torn && (warnings[0].Kind != WarnTorn || warnings[0].File != "events.0" || warnings[0].Offset != int64(offs[complete])) {
			t.Fatalf("cut at %d: warning %+v, want torn events.0 offset %d", cut, warnings[0], offs[complete])
		}
	}
}

func TestReader_Gap(t *testing.T) {
	fsys := loadFS(t, fixtureDirs[0])
	delete(fsys, "events.1")
	fsys["events.7"] = &fstest.MapFile{Data: []byte("anything")}
	fsys["events.x"] = &fstest.MapFile{}
	fsys["other"] = &fstest.MapFile{}
	lines, warnings, err := readAll(t, fsys)
	if err != nil {
		t.Fatal(err)
	}
	if want := linesOf(expectedLines(t, fixtureDirs[0]), "events.0"); strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("records %d, want the %d of events.0", len(lines), len(want))
	}
	if len(warnings) != 2 {
		t.Fatalf("warnings = %v, want 2", warnings)
	}
	if w := warnings[0]; w.Kind != WarnName || w.File != "events.x" {
		t.Errorf("warning %v, want events.x named odd", w)
	}
	w := warnings[1]
	if w.Kind != WarnGap || w.File != "events.1" || !strings.Contains(w.Msg, "events.2, events.7") {
		t.Errorf("warning %q, want a gap at events.1 ignoring events.2, events.7", w)
	}
}

// setRecord rewrites the type and length of record i of fsys[file].
func setRecord(t *testing.T, fsys fstest.MapFS, file string, i int, typ, length int32) int {
	t.Helper()
	data := append([]byte(nil), fsys[file].Data...)
	off := recordOffsets(data)[i]
	binary.BigEndian.PutUint32(data[off:], uint32(typ))
	binary.BigEndian.PutUint32(data[off+4:], uint32(length))
	fsys[file] = &fstest.MapFile{Data: data}
	return off
}

func wantCorrupt(t *testing.T, err error, file string, off int, text string) {
	t.Helper()
	var ce *CorruptError
	if !errors.As(err, &ce) || !IsCorrupt(err) {
		t.Fatalf("error %v, want a *CorruptError", err)
	}
	if ce.File != file || ce.Offset != int64(off) || !strings.Contains(err.Error(), text) {
		t.Fatalf("error %q, want %s offset %d containing %q", err, file, off, text)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Fatalf("error %q spans lines", err)
	}
}

func TestReader_Corrupt(t *testing.T) {
	dir := fixtureDirs[1]
	size := func(fsys fstest.MapFS, i int) int32 {
		d := fsys["events.0"].Data
		return int32(binary.BigEndian.Uint32(d[recordOffsets(d)[i]+4:]))
	}
	t.Run("unknown type", func(t *testing.T) {
		fsys := loadFS(t, dir)
		off := setRecord(t, fsys, "events.0", 2, 9, size(fsys, 2))
		lines, _, err := readAll(t, fsys)
		wantCorrupt(t, err, "events.0", off, "unknown record type 9")
		if len(lines) != 2 {
			t.Errorf("records before the error = %d, want 2", len(lines))
		}
	})
	t.Run("negative length", func(t *testing.T) {
		fsys := loadFS(t, dir)
		off := setRecord(t, fsys, "events.0", 1, 3, -5)
		_, _, err := readAll(t, fsys)
		wantCorrupt(t, err, "events.0", off, "length -5")
	})
	t.Run("flipped byte in a java stream", func(t *testing.T) {
		fsys := loadFS(t, dir)
		data := append([]byte(nil), fsys["events.0"].Data...)
		off := recordOffsets(data)[3] // type 1
		data[off+8+4+4] = 0x01        // the event's TC_OBJECT
		fsys["events.0"] = &fstest.MapFile{Data: data}
		_, _, err := readAll(t, fsys)
		wantCorrupt(t, err, "events.0", off, "type 1 record: event stream at payload byte 4: java stream offset 4")
	})
	t.Run("blob length past the payload", func(t *testing.T) {
		fsys := loadFS(t, dir)
		data := append([]byte(nil), fsys["events.0"].Data...)
		off := recordOffsets(data)[3]
		binary.BigEndian.PutUint32(data[off+8:], 1<<30)
		fsys["events.0"] = &fstest.MapFile{Data: data}
		_, _, err := readAll(t, fsys)
		wantCorrupt(t, err, "events.0", off, "event length 1073741824")
	})
	t.Run("wrong class", func(t *testing.T) {
		fsys := loadFS(t, dir)
		off := setRecord(t, fsys, "events.0", 0, TypeVertexReset, size(fsys, 0))
		_, _, err := readAll(t, fsys)
		wantCorrupt(t, err, "events.0", off, "want org.apache.flink.runtime.jobmaster.event.ExecutionVertexResetEvent")
	})
}

// TestReader_LengthPastEnd: a length that runs past the end of the file is
// a torn record, whatever the type (Flink reads the payload before looking
// the type up).
func TestReader_LengthPastEnd(t *testing.T) {
	for _, typ := range []int32{1, 77} {
		fsys := loadFS(t, fixtureDirs[0])
		off := setRecord(t, fsys, "events.0", 4, typ, 1<<24) // past the end, under a JobManager heap
		lines, warnings, err := readAll(t, fsys)
		if err != nil {
			t.Fatalf("type %d: %v", typ, err)
		}
		if len(warnings) != 1 || warnings[0].Kind != WarnTorn || warnings[0].Offset != int64(off) {
			t.Fatalf("type %d: warnings %v, want one torn record at %d", typ, warnings, off)
		}
		if want := 4 + 3 + 1; len(lines) != want {
			t.Fatalf("type %d: records = %d, want %d", typ, len(lines), want)
		}
	}
}

// TestReader_TruncatedJavaStream: a type 2 record whose Java stream ends
// inside a complete record ends the file (Flink's EOFException); in a type
// 1 record it is corruption (its serializer wraps every error).
func TestReader_TruncatedJavaStream(t *testing.T) {
	fsys := loadFS(t, fixtureDirs[0])
	data := fsys["events.0"].Data
	offs := recordOffsets(data)
	reset := offs[5]
	n := int(binary.BigEndian.Uint32(data[reset+4:]))
	cut := append(append([]byte(nil), data[:reset+8+n-10]...), data[reset+8+n:]...)
	binary.BigEndian.PutUint32(cut[reset+4:], uint32(n-10))
	fsys["events.0"] = &fstest.MapFile{Data: cut}
	lines, warnings, err := readAll(t, fsys)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || warnings[0].Kind != WarnTorn || warnings[0].Offset != int64(reset) {
		t.Fatalf("warnings %v, want one torn record at %d", warnings, reset)
	}
	if len(lines) != 5+3+1 {
		t.Fatalf("records = %d, want 9 (the record after the reset is hidden)", len(lines))
	}

	fsys = loadFS(t, fixtureDirs[0])
	fin := offs[3]
	n = int(binary.BigEndian.Uint32(data[fin+4:]))
	payload := append([]byte(nil), data[fin+8:fin+8+n]...)
	l1 := int(binary.BigEndian.Uint32(payload))
	binary.BigEndian.PutUint32(payload, uint32(l1-20))
	payload = append(payload[:4+l1-20], payload[4+l1:]...)
	rec := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 1), uint32(len(payload)))
	fsys["events.0"] = &fstest.MapFile{Data: append(append(append([]byte(nil), data[:fin]...), rec...), payload...)}
	_, _, err = readAll(t, fsys)
	wantCorrupt(t, err, "events.0", fin, "event stream at payload byte 4: java stream offset")
	if !errors.Is(err, javaser.ErrTruncated) {
		t.Fatalf("error %v, want it to match javaser.ErrTruncated", err)
	}
}

func TestReader_NullEventSkipped(t *testing.T) {
	fsys := fstest.MapFS{}
	null := []byte{0xac, 0xed, 0x00, 0x05, 0x70}
	rec := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 2), uint32(len(null)))
	fsys["events.0"] = &fstest.MapFile{Data: append(rec, null...)}
	lines, warnings, err := readAll(t, fsys)
	if err != nil || len(lines) != 0 {
		t.Fatalf("records %v, error %v; want none", lines, err)
	}
	if len(warnings) != 1 || warnings[0].Kind != WarnSkipped {
		t.Fatalf("warnings %v, want one skipped record", warnings)
	}
}

func TestNewReader_Missing(t *testing.T) {
	_, err := OpenDir(filepath.Join(t.TempDir(), "nope"))
	if !errors.Is(err, ErrNotJobEvents) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("error %v, want ErrNotJobEvents and fs.ErrNotExist", err)
	}
	lines, warnings, err := readAll(t, fstest.MapFS{})
	if err != nil || len(lines) != 0 || len(warnings) != 0 {
		t.Fatalf("empty directory: %v %v %v", lines, warnings, err)
	}
}
