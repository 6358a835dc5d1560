package drill

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobevent/jobevent/internal/testenv"
	"github.com/jobevent/jobevent/pkg/runtime"
)

// specWith parses a one-source, one-sink spec whose sink writes to output
// and whose text source reads input.
func specWith(t *testing.T, input, output string) *runtime.Spec {
	t.Helper()
	yaml := "job: tiny\nvertices:\n" +
		"  - {id: src, operator: text, args: {input: " + input + ", split_size: 512}, parallelism: 1}\n" +
		"  - {id: sink, operator: sink, args: {output: " + output + "}, parallelism: 1}\n" +
		"edges:\n  - {from: src, to: sink, pattern: pointwise}\n"
	spec, err := runtime.ParseSpec("tiny.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

func TestRun_NotDrillable(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	if err := os.MkdirAll(filepath.Join(base, "in"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "in", "a.txt"), []byte("a b c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	for _, tc := range []struct {
		name, input, output, want string
	}{
		// mem:// buckets live as long as the process: a name of its own per
		// run, so that -count=N does not find the last run's output.
		{"shared mem output", "in", fmt.Sprintf("mem://drill-shared-%d", time.Now().UnixNano()), "not a relative local path"},
		{"absolute output", "in", filepath.ToSlash(outside), "not under the run directory"},
		{"input above the base", "../" + filepath.Base(outside), "out", "relative inputs under"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Run(testenv.Context(t), specWith(t, tc.input, tc.output), Options{Dir: base, TempDir: t.TempDir(), Faults: []Fault{FaultMaster}})
			if !errors.Is(err, ErrNotDrillable) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want ErrNotDrillable saying %q", err, tc.want)
			}
		})
	}
}

// TestRun_OwnInputs drills a spec whose input lives beside it, with the
// scratch directory on another path: the inputs are copied into every run
// directory and the outputs stay apart.
func TestRun_OwnInputs(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	if err := os.MkdirAll(filepath.Join(base, "in"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(base, "in", name), []byte("to be or not to be\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Run(testenv.Context(t), specWith(t, "in", "out"), Options{Dir: base, TempDir: t.TempDir(), At: []int64{5}, Faults: []Fault{FaultMaster, FaultWorker}})
	if err != nil {
		t.Fatal(err)
	}
	wantAllPassed(t, res)
	if _, err := os.Stat(filepath.Join(base, "out")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the drill wrote into the spec's directory: %v", err)
	}
}

func TestDiffOutput(t *testing.T) {
	t.Parallel()
	want := map[string][]byte{"out/a": []byte("1"), "out/b": []byte("2"), "out/c": []byte("3")}
	got := map[string][]byte{"out/a": []byte("1"), "out/b": []byte("x"), "out/.staging/s": []byte("3")}
	if d := diffOutput(want, want); d != "" {
		t.Fatalf("diff of equal outputs = %q", d)
	}
	if d, w := diffOutput(want, got), "differ: out/b (1 bytes, want 1); missing: out/c; extra: out/.staging/s"; d != w {
		t.Fatalf("diff = %q, want %q", d, w)
	}
}

func TestShellQuote(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"testdata/jobs/a.yaml":     "testdata/jobs/a.yaml",
		"jobevents?prefix=a/":      "'jobevents?prefix=a/'",
		"it's here":                `'it'\''s here'`,
		"":                         "''",
		"/tmp/x-1/w2@host:9,a+b%c": "/tmp/x-1/w2@host:9,a+b%c",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
