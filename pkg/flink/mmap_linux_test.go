package flink

import (
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A mapped file cut short while it is read is an error of that file, never
// a crash: the pages past its new end fault in the goroutines that read
// them.
func TestReader_MappedFileTruncated(t *testing.T) {
	var unit []byte
	for _, dir := range fixtureDirs {
		b, err := os.ReadFile(filepath.Join(dir, "job-events", "events.0"))
		if err != nil {
			continue
		}
		for _, off := range recordOffsets(b) {
			if end := off + 8 + int(binary.BigEndian.Uint32(b[off+4:])); end <= len(b) {
				unit = append(unit, b[off:end]...)
			}
		}
	}
	if len(unit) == 0 {
		t.Skip("no fixture records")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "events.0")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for written := 0; written < 24*chunkSize; written += len(unit) {
		if _, err := f.Write(unit); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	r, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 4096); err != nil {
		t.Fatal(err)
	}
	n := 1
	for {
		_, err := r.Next()
		if err == io.EOF {
			t.Fatalf("%d records and the end, want an error for the file cut short", n)
		}
		if err != nil {
			if !strings.Contains(err.Error(), "events.0: the file changed while it was read") {
				t.Fatalf("after %d records: %v, want the file changed while it was read", n, err)
			}
			t.Logf("after %d records: %v", n, err)
			return
		}
		n++
	}
}
