package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jobevent/jobevent/internal/golden"
	"github.com/jobevent/jobevent/internal/testenv"
)

// Paths of the shared test data, relative to this package.
const (
	logsDir   = "../../testdata/logs"
	goldenDir = "../../testdata/golden"
)

// result is what one in-process run of the app gave.
type result struct {
	code   int
	stdout string
	stderr string
	args   []string // the arguments after "jobevent"
}

// uniqueMem returns the URL of a mem:// bucket no other test of this
// process uses (mem:// buckets live as long as the process: -count=N).
func uniqueMem(name string) string {
	return fmt.Sprintf("mem://%s-%d", name, memBuckets.Add(1))
}

var memBuckets atomic.Int64

// runCLI runs "jobevent args..." in process, exactly as main would, and
// returns the exit code and the output.
func runCLI(t *testing.T, args ...string) result {
	t.Helper()
	return runCLIWith(t, testenv.Context(t), "", args...)
}

// runCLIWith runs the app with a context (cancel it to interrupt) and the
// given standard input.
func runCLIWith(t *testing.T, ctx context.Context, stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := runMain(ctx, append([]string{"jobevent"}, args...), strings.NewReader(stdin), &out, &errb)
	return result{code: code, stdout: out.String(), stderr: errb.String(), args: args}
}

// runCLIChanged runs "jobevent args..." in process on an application
// that change has altered (a broken planner, a forced terminal).
func runCLIChanged(t *testing.T, change func(*application), args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	a := newApplication(strings.NewReader(""), &out, &errb)
	change(a)
	code := a.run(testenv.Context(t), append([]string{"jobevent"}, args...))
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// wantCode fails the test when the run did not end with code.
func (r result) wantCode(t *testing.T, code int) result {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit code = %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
	return r
}

// wantOneLineError checks the contract for every failure: the exit code,
// exactly one "jobevent: ..." line on stderr containing each of want, and
// no trace of a panic.
func (r result) wantOneLineError(t *testing.T, code int, want ...string) {
	t.Helper()
	r.wantCode(t, code)
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "jobevent: ") || !strings.HasSuffix(r.stderr, "\n") {
		t.Fatalf("stderr = %q, want one line starting with \"jobevent: \"", r.stderr)
	}
	for _, bad := range []string{"panic", "goroutine", "runtime error"} {
		if strings.Contains(r.stderr, bad) {
			t.Fatalf("stderr = %q, must not mention %q", r.stderr, bad)
		}
	}
	for _, w := range want {
		if !strings.Contains(lines[0], w) {
			t.Fatalf("stderr = %q, want it to contain %q", lines[0], w)
		}
	}
}

// golden compares the run's stdout with the golden file
// testdata/golden/name, or rewrites the file with -update (review the
// diff). See goldenAt.
func (r result) golden(t *testing.T, name string) {
	t.Helper()
	r.goldenAt(t, filepath.Join(goldenDir, name))
}

// goldenAt compares the run's stdout with the golden file at path. The
// file's first line is the command that printed the rest, as it runs from
// the repository's root ("# cd cmd/jobevent && jobevent replay ..."): a
// golden made by another command than the test's fails, with the two
// first lines in the diff.
func (r result) goldenAt(t *testing.T, path string) {
	t.Helper()
	golden.Compare(t, path, []byte(goldenCommand(r.args)+"\n"+r.stdout))
}

// goldenCommand is the first line of a golden file: "jobevent args...",
// quoted for a POSIX shell, run in this package's directory.
func goldenCommand(args []string) string {
	words := []string{"# cd cmd/jobevent && jobevent"}
	for _, a := range args {
		words = append(words, shellWord(a))
	}
	return strings.Join(words, " ")
}

// logPath is the path of a log of testdata/logs.
func logPath(name string) string { return filepath.Join(logsDir, name) }

// readLog returns the bytes of a log of testdata/logs.
func readLog(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(logPath(name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// goodLogs are the well-formed logs of testdata/logs: import and dump
// must round-trip each byte for byte.
var goodLogs = []string{"healthy.jsonl", "failover.jsonl", "running.jsonl", "no-batch-snapshot.jsonl"}

// syncBuffer is a bytes.Buffer safe for one writer goroutine and readers,
// which signals every write on changed.
type syncBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func newSyncBuffer() *syncBuffer { return &syncBuffer{changed: make(chan struct{}, 1)} }

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.buf.Write(p)
	select {
	case b.changed <- struct{}{}:
	default:
	}
	return n, err
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
