package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/internal/testenv"
	"github.com/jobevent/jobevent/pkg/format"
)

func TestReorderArgs(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	tests := []struct {
		args, want []string
	}{
		{[]string{"jobevent"}, []string{"jobevent"}},
		{[]string{"jobevent", "--version"}, []string{"jobevent", "--version"}},
		{[]string{"jobevent", "replay", "LOG", "--dry-run"}, []string{"jobevent", "replay", "--dry-run", "--", "LOG"}},
		{[]string{"jobevent", "replay", "LOG", "--at", "7", "--lost-worker", "w2", "--format=json"},
			[]string{"jobevent", "replay", "--at", "7", "--lost-worker", "w2", "--format=json", "--", "LOG"}},
		{[]string{"jobevent", "dump", "--format", "json", "LOG", "--kind", "snapshot"},
			[]string{"jobevent", "dump", "--format", "json", "--kind", "snapshot", "--", "LOG"}},
		{[]string{"jobevent", "dump", "LOG", "--follow", "--since", "3"},
			[]string{"jobevent", "dump", "--follow", "--since", "3", "--", "LOG"}},
		{[]string{"jobevent", "import", "-", "LOG", "--format", "json"},
			[]string{"jobevent", "import", "--format", "json", "--", "-", "LOG"}},
		{[]string{"jobevent", "dump", "--", "--odd-name", "--format"},
			[]string{"jobevent", "dump", "--", "--odd-name", "--format"}},
		{[]string{"jobevent", "dump", "LOG", "--format"}, []string{"jobevent", "dump", "--format"}},
		{[]string{"jobevent", "nosuch", "x", "--y"}, []string{"jobevent", "nosuch", "x", "--y"}},
		{[]string{"jobevent", "help", "dump"}, []string{"jobevent", "help", "dump"}},
	}
	for _, tt := range tests {
		if got := reorderArgs(app, tt.args); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("reorderArgs(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

func TestVersion(t *testing.T) {
	r := runCLI(t, "--version").wantCode(t, 0)
	if !strings.HasPrefix(r.stdout, "jobevent version ") || !strings.Contains(r.stdout, "schema "+format.SchemaVersion) {
		t.Fatalf("stdout = %q, want the version and the schema version %s", r.stdout, format.SchemaVersion)
	}
}

// crashError stands for the runtime's deliberate crash.
type crashError struct{}

func (crashError) Error() string { return "crashed after seq 7" }
func (crashError) ExitCode() int { return 3 }

func TestExitCode(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{nil, 0},
		{errors.New("boom"), 2},
		{findings(""), 1},
		{fmt.Errorf("wrapped: %w", findings("x")), 1},
		{&usageError{msg: "bad"}, 2},
		{crashError{}, 3},
		{fmt.Errorf("run: %w", crashError{}), 3},
	}
	for _, tt := range tests {
		if got := exitCode(tt.err); got != tt.want {
			t.Errorf("exitCode(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}

func TestErrorLine(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{findings(""), ""},
		{errors.New("a\n  b\n\nc\n"), "jobevent: a; b; c"},
		{&usageError{msg: "dump: bad", usage: "jobevent dump LOG"}, "jobevent: dump: bad (usage: jobevent dump LOG)"},
	}
	for _, tt := range tests {
		if got := errorLine(tt.err); got != tt.want {
			t.Errorf("errorLine(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	healthy := logPath("healthy.jsonl")
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"unknown command", []string{"nosuch"}, []string{`unknown command "nosuch"`, "dump"}},
		{"unknown help topic", []string{"help", "nosuch"}, []string{`help: unknown command "nosuch"`}},
		{"unknown app flag", []string{"--nosuch"}, []string{"jobevent: unknown flag --nosuch; see 'jobevent --help'"}},
		{"unknown flag", []string{"dump", healthy, "--nosuch"}, []string{"dump: unknown flag --nosuch; see 'jobevent dump --help'"}},
		{"bad format", []string{"dump", healthy, "--format", "xml"}, []string{`bad --format "xml": want table, json or csv`, "usage: jobevent dump"}},
		{"bad format replay", []string{"replay", healthy, "--dry-run", "--format", "csv"}, []string{`bad --format "csv": want table or json`}},
		{"bad format validate", []string{"validate", healthy, "--format", "yaml"}, []string{`want table, json or github`}},
		{"bad format import", []string{"import", healthy, "mem://x", "--format", "csv"}, []string{`bad --format "csv"`}},
		{"bad format diff", []string{"diff", healthy, healthy, "--format", "csv"}, []string{`bad --format "csv"`}},
		{"no args", []string{"dump"}, []string{"dump: missing LOG: want 1 argument, got 0; see 'jobevent dump --help'"}},
		{"too many args", []string{"dump", healthy, healthy}, []string{"dump: want 1 argument, got 2"}},
		{"import args", []string{"import", healthy}, []string{"import: missing LOG: want 2 arguments, got 1"}},
		{"diff args", []string{"diff", healthy}, []string{"diff: missing LOG_B: want 2 arguments, got 1"}},
		{"validate args", []string{"validate"}, []string{"validate: missing LOG...: want at least 1 argument, got 0"}},
		{"master without spec and log", []string{"master"}, []string{"master: missing SPEC.yaml and --events LOG; see 'jobevent master --help'"}},
		{"master resumed without log", []string{"master", "--resume"}, []string{"master: missing --events LOG; see 'jobevent master --help'"}},
		{"worker without log and dir", []string{"worker"}, []string{"worker: missing --events LOG and --dir DIR; see 'jobevent worker --help'"}},
		{"bad kind", []string{"dump", healthy, "--kind", "nosuch"}, []string{`unknown --kind "nosuch"`, "job_submitted"}},
		{"bad subtask", []string{"dump", healthy, "--subtask", "-1"}, []string{"bad --subtask -1"}},
		{"bad since", []string{"dump", healthy, "--since", "9", "--until", "3"}, []string{"bad --since 9 / --until 3"}},
		{"flag value missing", []string{"dump", healthy, "--vertex"}, []string{"flag needs an argument"}},
		{"bad int", []string{"dump", healthy, "--epoch", "x"}, []string{"dump:", "epoch"}},
		{"no-workers and available", []string{"replay", healthy, "--dry-run", "--no-workers", "--available", "x.json"}, []string{"--no-workers and --available exclude each other"}},
		{"bad lost partition", []string{"replay", healthy, "--dry-run", "--lost-partition", "source"}, []string{`bad --lost-partition "source"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runCLI(t, tt.args...).wantOneLineError(t, 2, tt.want...)
		})
	}
}

func TestHelpHasExamples(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	for _, cmd := range app.Commands {
		if cmd.Name == "help" {
			continue
		}
		r := runCLI(t, cmd.Name, "--help").wantCode(t, 0)
		if !strings.Contains(r.stdout, "EXAMPLE") || !strings.Contains(r.stdout, "jobevent "+cmd.Name) {
			t.Errorf("%s --help has no example:\n%s", cmd.Name, r.stdout)
		}
		if !strings.Contains(r.stdout, "--format") {
			t.Errorf("%s --help has no --format flag:\n%s", cmd.Name, r.stdout)
		}
	}
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}} {
		if r := runCLI(t, args...).wantCode(t, 0); !strings.Contains(r.stdout, "replay") {
			t.Errorf("%s does not list the commands:\n%s", args[0], r.stdout)
		}
	}
}

// Without a command, jobevent prints its short usage on stderr and ends
// as a usage error does.
func TestNoCommand(t *testing.T) {
	r := runCLI(t).wantCode(t, 2)
	if r.stdout != "" {
		t.Errorf("stdout = %q, want nothing", r.stdout)
	}
	for _, want := range []string{"usage: jobevent COMMAND", "\n  replay ", "\n  status ", "'jobevent COMMAND --help'"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}

// A command or flag a letter or two away from a real one is suggested.
func TestUsageErrors_DidYouMean(t *testing.T) {
	running := logPath("running.jsonl")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"replya"}, `jobevent: unknown command "replya"; did you mean "replay"?`},
		{[]string{"dupm", running}, `jobevent: unknown command "dupm"; did you mean "dump"?`},
		{[]string{"stat", running}, `jobevent: unknown command "stat"; did you mean "stats"?`},
		{[]string{"help", "replya"}, `jobevent: help: unknown command "replya"; did you mean "replay"?`},
		{[]string{"replay", "--dryrun", running}, `jobevent: replay: unknown flag --dryrun; did you mean --dry-run?`},
		{[]string{"replay", running, "--dry-run", "--lost-wroker", "w2"}, `jobevent: replay: unknown flag --lost-wroker; did you mean --lost-worker?`},
		{[]string{"dump", running, "--formt", "json"}, `jobevent: dump: unknown flag --formt; did you mean --format?`},
		{[]string{"drill", "x.yaml", "--quite"}, `jobevent: drill: unknown flag --quite; did you mean --quiet?`},
	}
	for _, tt := range tests {
		r := runCLI(t, tt.args...)
		r.wantOneLineError(t, 2)
		if got := strings.TrimSuffix(r.stderr, "\n"); got != tt.want {
			t.Errorf("%q: stderr = %q, want %q", tt.args, got, tt.want)
		}
	}
}

func TestSuggest(t *testing.T) {
	commands := []string{"dump", "diff", "drill", "replay", "run", "stats", "status"}
	tests := []struct{ got, want string }{
		{"replya", "replay"}, // a swap
		{"rplay", "replay"},  // a letter left out
		{"dmp", "dump"},
		{"statu", "status"},
		{"rep", "replay"}, // the only command it begins
		{"d", ""},         // begins three
		{"xyz", ""},
		{"validate", ""},
	}
	for _, tt := range tests {
		if got := suggest(tt.got, commands); got != tt.want {
			t.Errorf("suggest(%q) = %q, want %q", tt.got, got, tt.want)
		}
	}
}

func TestRunApp_RecoversPanics(t *testing.T) {
	var out, errb bytes.Buffer
	app := newApp(&out, &errb)
	app.Commands = append(app.Commands, &cli.Command{
		Name:   "boom",
		Action: func(*cli.Context) error { var m map[string]int; m["x"]++; return nil },
	})
	code := runApp(testenv.Context(t), app, []string{"jobevent", "boom"})
	r := result{code: code, stdout: out.String(), stderr: errb.String()}
	r.wantCode(t, 2)
	if !strings.HasPrefix(r.stderr, "jobevent: internal error: ") || strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("stderr = %q, want one internal error line", r.stderr)
	}
}
