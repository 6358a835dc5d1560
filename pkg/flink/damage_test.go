package flink

import (
	"errors"
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

// TestOpen_NoRecordsSaysWhy: a directory that gives no record is called
// empty only when it is: torn-only and gapped directories say so, naming
// the file.
func TestOpen_NoRecordsSaysWhy(t *testing.T) {
	real, err := os.ReadFile("../../testdata/flink/1.20.5/min-pause-released-producer/job-events/events.1")
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
