// Package testlog reads canonical JSONL logs (testdata/logs and the like,
// and the logs of the scenario files of testdata/replay) for tests.
package testlog

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/internal/scenario"
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
	events, err := decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return events
}

// decode decodes a JSONL log.
func decode(r io.Reader) ([]format.Event, error) {
	jr := format.NewJSONReader(r)
	var events []format.Event
	for {
		e, err := jr.Next()
		if errors.Is(err, io.EOF) {
			return events, nil
		}
		if err != nil {
			return nil, err
		}
		events = append(events, e)
	}
}

// ReadScenario returns the events of the `log` block of the scenario file
// at path (testdata/replay/*.txt, internal/scenario); a file that does not
// parse, has no log block or whose log does not decode fails the test.
func ReadScenario(t testing.TB, path string) []format.Event {
	t.Helper()
	f, err := scenario.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b := f.Block("log")
	if b == nil {
		t.Fatalf("%s: no log block", path)
	}
	events, err := decode(strings.NewReader(b.Input))
	if err != nil {
		t.Fatalf("%s: log: %v", f.Pos(b), err)
	}
	return events
}
