// Package golden compares what a test produced with a golden file under
// testdata/, and rewrites the file instead when the test binary runs with
// -update:
//
//	go test ./cmd/jobevent ./pkg/format ./pkg/replay ./pkg/runtime -update
//
// Review the diff of every rewritten file before committing it. A package
// whose tests import golden gets the -update flag from it and must not
// define its own.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ with what the tests produce (review the diff)")

// Updating reports whether the test binary runs with -update: tests that
// keep expectations of their own (a corpus, a scenario file) rewrite them
// then.
func Updating() bool { return *update }

// Compare fails t when got differs from the file at path, with a line diff
// (want first), and says how to rewrite the file. With -update it writes
// got to path instead, creating its directory.
func Compare(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		Write(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("output differs from %s (go test -update rewrites it; review the diff):\n%s", path, Diff(string(want), string(got)))
	}
}

// Write writes data to path, creating its directory; a failure fails t.
func Write(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
