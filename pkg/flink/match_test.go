package flink

import (
	"strings"
	"testing"
)

func TestMatchVertex(t *testing.T) {
	names := map[string]string{
		"cbc357ccb763df2852fee8c4fc7d55f2": "Source: numbers -> src",
		"90bea66de1c231edf33913ecd54406c1": "map -> Map",
		"dc2290bb6f8f5cd2bd425368843494fe": "Keyed Reduce -> (agg, Map)",
		"86af91655b6aec1274713963eab7f743": "Window(Tumbling, 5) -> sink: Writer",
	}
	for _, c := range []struct{ key, want, err string }{
		{"cbc357ccb763df2852fee8c4fc7d55f2", "cbc357ccb763df2852fee8c4fc7d55f2", ""},
		{"Source: numbers -> src", "cbc357ccb763df2852fee8c4fc7d55f2", ""},
		{"src", "cbc357ccb763df2852fee8c4fc7d55f2", ""},
		{"Source: numbers", "cbc357ccb763df2852fee8c4fc7d55f2", ""},
		{"agg", "dc2290bb6f8f5cd2bd425368843494fe", ""},
		{"Window(Tumbling, 5)", "86af91655b6aec1274713963eab7f743", ""},
		{"map -> Map", "90bea66de1c231edf33913ecd54406c1", ""},
		{"Map", "", "ambiguous: it matches 90bea66de1c231edf33913ecd54406c1 (map -> Map), dc2290bb6f8f5cd2bd425368843494fe"},
		{"nothing", "", "names no vertex"},
		{"0123456789abcdef0123456789abcdef", "", "names no vertex"},
	} {
		got, err := MatchVertex(names, c.key)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("MatchVertex(%q) = %q, %v; want an error with %q", c.key, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("MatchVertex(%q) = %q, %v; want %q", c.key, got, err, c.want)
		}
	}
}
