package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/pkg/replay"
)

func TestStats_Table(t *testing.T) {
	r := runCLI(t, "stats", logPath("failover.jsonl")).wantCode(t, 0)
	for _, want := range []string{
		"job wordcount: finished, 33 events, wall 45.132s, 1 failover",
		"│ source │ 3           │ 4        │ 1      │ 0      │ 404ms  │ 1.316s │",
		"critical path (5 steps):",
		"│ source/2 │ 1       │ w1     │ failover   │ 42.213s │",
		"lost to failovers: 41s downtime + 1.316s redone work = 42.316s",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Fatalf("stats table lacks %q:\n%s", want, r.stdout)
		}
	}
	if r.stderr != "" {
		t.Fatalf("stderr = %q, want nothing", r.stderr)
	}
}

// TestStats_JSON: the JSON form decodes into replay.Stats, after the
// flag given past the argument.
func TestStats_JSON(t *testing.T) {
	r := runCLI(t, "stats", logPath("running.jsonl"), "--format", "json").wantCode(t, 0)
	var st replay.Stats
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if st.Status != "running" || len(st.Vertices) != 4 || len(st.Failovers) != 0 || len(st.CriticalPath) == 0 {
		t.Fatalf("stats = %+v", st)
	}
}

// TestStats_Bucket: a log imported into a bucket gives the same JSON as
// its JSONL file.
func TestStats_Bucket(t *testing.T) {
	dir := t.TempDir()
	runCLI(t, "import", logPath("failover.jsonl"), dir).wantCode(t, 0)
	a := runCLI(t, "stats", dir, "--format", "json").wantCode(t, 0)
	b := runCLI(t, "stats", logPath("failover.jsonl"), "--format", "json").wantCode(t, 0)
	if a.stdout != b.stdout {
		t.Fatalf("bucket:\n%s\njsonl:\n%s", a.stdout, b.stdout)
	}
}

func TestStats_Errors(t *testing.T) {
	runCLI(t, "stats").wantOneLineError(t, 2, "want 1 argument")
	runCLI(t, "stats", t.TempDir()+"/none.jsonl").wantOneLineError(t, 2, "no event log at")
	runCLI(t, "stats", logPath("bad-syntax.jsonl")).wantOneLineError(t, 2, "line ")
	runCLI(t, "stats", logPath("healthy.jsonl"), "--format", "yaml").wantOneLineError(t, 2, "bad --format")
}
