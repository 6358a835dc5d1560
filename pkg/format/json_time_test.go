package format

import (
	"strings"
	"testing"
	"time"
)

// TestCanonicalTime: the fast path for canonical times agrees with
// time.Parse wherever it accepts a time, and leaves everything it does not
// accept (out of range fields, other forms) to time.Parse.
func TestCanonicalTime(t *testing.T) {
	for _, tc := range []struct {
		s  string
		ok bool
	}{
		{"2026-12-02T10:00:01.000000000Z", true},
		{"0000-01-01T00:00:00.000000000Z", true},
		{"9999-12-31T23:59:59.999999999Z", true},
		{"2024-02-29T12:00:00.123456789Z", true},
		{"2000-02-29T12:00:00.000000001Z", true},
		{"1900-02-29T12:00:00.000000000Z", false},
		{"2023-02-29T12:00:00.000000000Z", false},
		{"2026-04-31T00:00:00.000000000Z", false},
		{"2026-13-01T00:00:00.000000000Z", false},
		{"2026-00-01T00:00:00.000000000Z", false},
		{"2026-01-00T00:00:00.000000000Z", false},
		{"2026-01-01T24:00:00.000000000Z", false},
		{"2026-01-01T23:60:00.000000000Z", false},
		{"2026-01-01T23:59:60.000000000Z", false},
		{"2026-01-01T23:59:5a.000000000Z", false},
		{"2026-01-01T10:00:00.00000000+Z", false},
		{"2026-01-01T10:00:00.000000000+01:00", false},
		{"2026-01-01T10:00:00Z", false},
		{"2026-01-01 10:00:00.000000000Z", false},
	} {
		got, ok := canonicalTime([]byte(tc.s))
		if ok != tc.ok {
			t.Errorf("canonicalTime(%q) ok = %v, want %v", tc.s, ok, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		want, err := time.Parse(time.RFC3339Nano, tc.s)
		if err != nil {
			t.Errorf("time.Parse(%q): %v", tc.s, err)
			continue
		}
		if !got.Equal(want) || got.Location() != time.UTC || got != want.UTC() {
			t.Errorf("canonicalTime(%q) = %v, want %v", tc.s, got, want.UTC())
		}
	}
}

// TestJSONReader_NestedErrorPaths: errors inside arrays and objects name
// the element's full path, and a duplicate member of an element is caught.
func TestJSONReader_NestedErrorPaths(t *testing.T) {
	const head = `{"seq":1,"time":"2026-12-02T10:00:00.000000000Z","epoch":1,"job":"j",`
	for _, tc := range []struct{ line, want string }{
		{head + `"kind":"job_submitted","graph":{"vertices":[{"id":"a"},{"id":7}]}}`, `line 1: field "graph.vertices[1].id": want string, got number`},
		{head + `"kind":"subtask_finished","vertex":"a","subtask":0,"attempt":0,"worker":"w","records_in":0,"records_out":0,"bytes_in":0,"bytes_out":0,"partitions":[{"consumer":"b","bytes":1,"records":1},{"consumer":"b","bytes":1,"bytes":2}]}`, `line 1: field "partitions[1].bytes": duplicate field`},
		{head + `"kind":"subtasks_reset","subtasks":[{"vertex":"a","subtask":0},{"vertex":"a","nope":1}],"reason":"r"}`, `line 1: field "subtasks[1].nope": unknown field`},
	} {
		_, err := NewJSONReader(strings.NewReader(tc.line + "\n")).Next()
		if err == nil || err.Error() != tc.want {
			t.Errorf("error = %v, want %s", err, tc.want)
		}
	}
}
