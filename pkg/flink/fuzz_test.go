package flink

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// FuzzReader reads arbitrary bytes as events.0 (and their second half as
// events.1): no input panics, every error is a one-line *CorruptError, and
// every warning is one line.
func FuzzReader(f *testing.F) {
	// The fixtures, and the files of real Flink runs when the repository
	// holds them.
	real, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "flink", "*", "*", "job-events*", "events.*"))
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
		for {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				var ce *CorruptError
				if !errors.As(err, &ce) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("error %q is not a one-line *CorruptError", err)
				}
				break
			}
			if rec.Event == nil {
				t.Fatalf("record at %s@%d without an event", rec.File, rec.Offset)
			}
		}
		for _, w := range r.Warnings() {
			if strings.Contains(w.String(), "\n") {
				t.Fatalf("warning %q spans lines", w)
			}
		}
	})
}
