package main

import (
	"bytes"
	"strings"
	"testing"
)

// Seconds in JSON are rounded to the millisecond, whatever the key's
// place; other numbers, and text that looks like a key, are left alone.
func TestWriteJSON_RoundsSeconds(t *testing.T) {
	v := map[string]any{
		"wall_seconds": 3.0405581710000003,
		"seconds":      0.0004,
		"stats":        map[string]any{"redone_seconds": 41.00049999, "events": 3.0405581710000003},
		"note":         `"x_seconds": 1.23456`,
		"n_seconds":    []float64{1.5},
	}
	var buf bytes.Buffer
	if err := writeJSON(&buf, v); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	for _, want := range []string{`"wall_seconds": 3.041` + "\n", `"seconds": 0,`, `"redone_seconds": 41` + "\n",
		`"events": 3.0405581710000003`, `"note": "\"x_seconds\": 1.23456"`, `"n_seconds": [`} {
		if !strings.Contains(got, want) {
			t.Errorf("json lacks %s:\n%s", want, got)
		}
	}
}

// Durations in text read as a person says them: whole seconds past a
// minute.
func TestStatus_HeartbeatAge(t *testing.T) {
	age := 851.532
	var buf bytes.Buffer
	st := &jobStatus{Log: "l", Job: "j", State: "running", Heartbeat: "stale", HeartbeatAgeSeconds: &age}
	if err := printStatus(&buf, st); err != nil {
		t.Fatal(err)
	}
	if want := "heartbeat:  14m12s ago (stale)\n"; !strings.Contains(buf.String(), want) {
		t.Errorf("status lacks %q:\n%s", want, buf.String())
	}
}
