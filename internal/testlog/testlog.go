// Package testlog reads canonical JSONL logs (testdata/logs and the like)
// for tests.
package testlog

import (
	"errors"
	"io"
	"os"
	"testing"

	"github.com/jobevent/jobevent/pkg/format"
)

// Read returns the events of the JSONL log at path; a file that does not
// open or decode fails the test.
func Read(t testing.TB, path string) []format.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := format.NewJSONReader(f)
	var events []format.Event
	for {
		e, err := r.Next()
		if errors.Is(err, io.EOF) {
			return events
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		events = append(events, e)
	}
}
