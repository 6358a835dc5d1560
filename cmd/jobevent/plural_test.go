package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// One of a thing is singular in every text output.
func TestOutput_Singular(t *testing.T) {
	r := runCLI(t, "import", logPath("healthy.jsonl"), t.TempDir()).wantCode(t, 0)
	if !strings.HasSuffix(r.stderr, ": 1 segment, 1 epoch\n") {
		t.Errorf("import summary = %q, want it to end with \"1 segment, 1 epoch\"", r.stderr)
	}
	var out bytes.Buffer
	st := &replay.Stats{Job: "j", Status: "finished", Events: 1,
		CriticalPath: []replay.PathStep{{SubtaskRef: format.SubtaskRef{Vertex: "v"}, Attempt: 1, Wait: replay.WaitStart}}}
	if err := printStats(&out, st); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"job j: finished, 1 event, wall 0s, 0 failovers\n", "critical path (1 step):\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stats table lacks %q:\n%s", want, out.String())
		}
	}
}
