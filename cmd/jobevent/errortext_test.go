package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/pkg/replay"
)

// repeated returns a context that line says twice ("replay: x: replay:
// y"), or "".
func repeated(line string) string {
	seen := make(map[string]bool)
	for _, part := range strings.Split(line, ": ") {
		if seen[part] {
			return part
		}
		seen[part] = true
	}
	return ""
}

// Failing commands say what failed once, in the user's words: no Go
// package path of the library ("jobevent/replay: ") and no context
// repeated by two wrappers ("replay: replay: ").
func TestErrorText_NoInternalPrefixes(t *testing.T) {
	dir := t.TempDir()
	available := filepath.Join(dir, "available.json")
	if err := os.WriteFile(available, []byte(`[{"vertex":"source","subtask":0,"attempt":1,"consumer":"words","worker":"w1"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	running, gap := logPath("running.jsonl"), logPath("gap.jsonl")
	runs := [][]string{
		{"replay", running, "--dry-run", "--lost-partition", "nosuch/0"},
		{"replay", running, "--dry-run", "--sweep", "--lost-partition", "nosuch/0"},
		{"replay", running, "--dry-run", "--no-workers", "--available", available},
		{"replay", gap, "--dry-run"},
		{"stats", gap},
		{"status", gap},
		{"diff", gap, logPath("healthy.jsonl")},
		{"timeline", gap, "--svg", filepath.Join(dir, "t.svg")},
		{"drill", "../../testdata/jobs/wordcount.yaml", "--faults", "nosuch"},
		{"import", gap, uniqueMem("gap")},
	}
	for _, args := range runs {
		r := runCLI(t, args...).wantCode(t, 2)
		lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
		line := lines[len(lines)-1] // after notes and warnings
		for _, l := range lines {
			if strings.Contains(l, "jobevent/") {
				t.Errorf("%q: %q names a Go package", args, l)
			}
		}
		if part := repeated(line); part != "" {
			t.Errorf("%q: %q says %q twice", args, line, part)
		}
		if first, _, _ := strings.Cut(strings.TrimPrefix(line, "jobevent: "), ": "); libraryPackages[first] && first != args[0] {
			t.Errorf("%q: %q starts with the library's package, not the command", args, line)
		}
	}
	want := `jobevent: replay: --lost-partition nosuch/0: unknown vertex "nosuch"; the job's vertices are source, words, count, sink`
	if r := runCLI(t, runs[0]...); !strings.Contains(r.stderr, "\n"+want) {
		t.Errorf("stderr = %q, want a line starting with %q", r.stderr, want)
	}
}

func TestUserText(t *testing.T) {
	tests := []struct{ msg, command, want string }{
		{"replay: replay: lost partition x/0: vertex \"x\": jobevent/replay: unknown vertex", "replay",
			"replay: lost partition x/0: vertex \"x\": unknown vertex"},
		{"replay: stats after seq 8: a.jsonl: seq gap", "stats", "stats after seq 8: a.jsonl: seq gap"},
		{"drill: bad --faults: jobevent/drill: unknown fault \"x\"", "drill", "drill: bad --faults: unknown fault \"x\""},
		{"open /srv/jobevent/blob: no such file", "dump", "open /srv/jobevent/blob: no such file"},
	}
	for _, tt := range tests {
		if got := userText(tt.msg, tt.command); got != tt.want {
			t.Errorf("userText(%q, %q) = %q, want %q", tt.msg, tt.command, got, tt.want)
		}
	}
}

// A spec whose duration setting has no unit is refused before anything is
// written, in one line naming the key, the value and a unit.
func TestRun_UnitlessDuration(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "u.yaml")
	data := "job: u\nvertices:\n  - {id: s, operator: sequence, args: {to: 3}, parallelism: 1}\nsettings:\n  heartbeat.interval: 2\n"
	if err := os.WriteFile(spec, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "log")
	want := "u.yaml:5: settings.heartbeat.interval: 2 has no unit; write 2s or 2000ms"
	runCLI(t, "run", spec, "--events", log, "--work-dir", filepath.Join(dir, "work")).wantOneLineError(t, 2, want)
	runCLI(t, "drill", spec, "--points", "1").wantOneLineError(t, 2, want)
	if _, err := os.Stat(log); !os.IsNotExist(err) {
		t.Errorf("the refused run left %s behind (%v)", log, err)
	}
}

func TestWarnf_NoInternalPrefixes(t *testing.T) {
	var buf strings.Builder
	warnf(&buf, "%s: %v", "x.jsonl", fmt.Errorf("seq 3: %w", replay.ErrUnknownVertex))
	if got, want := buf.String(), "jobevent: warning: x.jsonl: seq 3: unknown vertex\n"; got != want {
		t.Errorf("warning = %q, want %q", got, want)
	}
}
