package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/internal/testenv"
)

// shellOrSkip returns the path of a shell, skipping the test when it is
// not installed, except in CI (CI=true), where it fails.
func shellOrSkip(t *testing.T, name string) string {
	t.Helper()
	return testenv.Need(t, name, "apt-get install "+name)
}

// completionScript writes the script of "jobevent completion SHELL" to a
// file and returns its path.
func completionScript(t *testing.T, shell string) string {
	t.Helper()
	r := runCLI(t, "completion", shell).wantCode(t, 0)
	path := filepath.Join(t.TempDir(), "jobevent."+shell)
	if err := os.WriteFile(path, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestCompletion_Bash: the script parses (bash -n) and completes
// commands, flags, flag values and fixed arguments.
func TestCompletion_Bash(t *testing.T) {
	bash := shellOrSkip(t, "bash")
	script := completionScript(t, "bash")
	run(t, bash, "-n", script)
	complete := func(words ...string) string {
		t.Helper()
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = shQuote(w)
		}
		prog := "source " + shQuote(script) + "; COMP_WORDS=(" + strings.Join(quoted, " ") + "); COMP_CWORD=" +
			strconv.Itoa(len(words)-1) + "; _jobevent; echo \"${COMPREPLY[*]}\"; complete -p jobevent"
		return run(t, bash, "--norc", "-c", prog)
	}
	tests := []struct {
		words []string
		want  string
	}{
		{[]string{"jobevent", "ti"}, "timeline\n"},
		{[]string{"jobevent", "sta"}, "stats status\n"},
		{[]string{"jobevent", "replay", "LOG", "--sw"}, "--sweep\n"},
		{[]string{"jobevent", "dump", "--format", ""}, "table json csv\n"},
		{[]string{"jobevent", "dump", "--kind", "subtask_f"}, "subtask_finished subtask_failed\n"},
		{[]string{"jobevent", "completion", ""}, "bash zsh fish\n"},
		{[]string{"jobevent", "timeline", "--format", "j"}, "json\n"},
	}
	for _, tt := range tests {
		out := complete(tt.words...)
		if !strings.HasPrefix(out, tt.want) || !strings.Contains(out, "-F _jobevent jobevent") {
			t.Errorf("complete %q = %q, want %q then the complete line", tt.words, out, tt.want)
		}
	}
}

// TestCompletion_Zsh: the script parses (zsh -n) and, sourced after
// compinit, registers its function for jobevent.
func TestCompletion_Zsh(t *testing.T) {
	zsh := shellOrSkip(t, "zsh")
	script := completionScript(t, "zsh")
	run(t, zsh, "-n", script)
	out := run(t, zsh, "-f", "-c", "autoload -Uz compinit && compinit -u -D && source "+shQuote(script)+
		" && print -r -- ${_comps[jobevent]} && (( ${+functions[_jobevent]} )) && print ok")
	if out != "_jobevent\nok\n" {
		t.Fatalf("zsh: %q, want _jobevent registered", out)
	}
}

// TestCompletion_Fish: the script parses (fish --no-execute) and
// completes commands, flags and values.
func TestCompletion_Fish(t *testing.T) {
	fish := shellOrSkip(t, "fish")
	script := completionScript(t, "fish")
	run(t, fish, "--no-execute", script)
	complete := func(line string) string {
		t.Helper()
		return run(t, fish, "--no-config", "-c", "source "+shQuote(script)+"; complete -C"+shQuote(line))
	}
	for line, want := range map[string][]string{
		"jobevent sta":              {"stats\tper-vertex statistics"},
		"jobevent timeline --ht":    {"--html\t"},
		"jobevent stats --format ":  {"json\t", "table\t"},
		"jobevent completion ":      {"bash", "fish", "zsh"},
		"jobevent replay x --point": {"--points\t"},
	} {
		out := complete(line)
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("complete %q = %q, want it to contain %q", line, out, w)
			}
		}
	}
}

// TestCompletion_JSON: the JSON form lists every command with its flags.
func TestCompletion_JSON(t *testing.T) {
	r := runCLI(t, "completion", "bash", "--format", "json").wantCode(t, 0)
	var spec []compCommand
	if err := json.Unmarshal([]byte(r.stdout), &spec); err != nil {
		t.Fatal(err)
	}
	byName := make(map[string]compCommand)
	for _, c := range spec {
		byName[c.Name] = c
	}
	for _, name := range []string{"dump", "replay", "timeline", "stats", "completion", "help"} {
		if _, ok := byName[name]; !ok {
			t.Fatalf("command %s missing from %s", name, r.stdout)
		}
	}
	found := false
	for _, f := range byName["timeline"].Flags {
		if f.Name == "html" {
			found = f.TakesValue && f.Files
		}
	}
	if !found {
		t.Fatalf("timeline --html: want a flag taking a file: %+v", byName["timeline"].Flags)
	}
}

func TestCompletion_Usage(t *testing.T) {
	runCLI(t, "completion", "tcsh").wantOneLineError(t, 2, "unknown shell \"tcsh\"")
	runCLI(t, "completion").wantOneLineError(t, 2, "want 1 argument")
}
