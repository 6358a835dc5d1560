// Package testenv is for tests that need a program that may not be
// installed (a browser, a shell, tmux, a blob emulator): without it they
// skip, except in CI (CI=true), where they fail; and at the end of the
// package's run one line says what was skipped for lack of what.
//
// A package whose tests call Need runs them through Main:
//
//	func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
//
// and a run without tmux then ends with
//
//	github.com/jobevent/jobevent/cmd/jobevent: skipped 1 test without tmux (apt-get install tmux)
package testenv

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"testing"
)

// missing counts, per missing program, the tests that skipped for it.
var missing = struct {
	sync.Mutex
	tests   map[string]int
	install map[string]string
}{tests: map[string]int{}, install: map[string]string{}}

// Need returns the path of the program name. When name is not on PATH, it
// fails t in CI (CI=true) and skips it elsewhere, saying how to install
// it (install, e.g. "apt-get install tmux"), and counts the skip for
// Main's summary. Safe for concurrent use.
func Need(t testing.TB, name, install string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not installed (%s); CI must run this test", name, install)
	}
	missing.Lock()
	missing.tests[name]++
	missing.install[name] = install
	missing.Unlock()
	t.Skipf("%s is not installed (%s): skipping; with CI=true this is a failure", name, install)
	return ""
}

// Main runs the tests of a package, then reports the tests that Need
// skipped, in one line naming the package, and returns the exit code for
// os.Exit. The line goes to stdout under -v (and -json). Otherwise it
// goes to the terminal (/dev/tty), because `go test ./...` shows the
// output of a package that passes only with -v; without a terminal it
// goes to stdout, where `go test` in the package's directory shows it.
func Main(m *testing.M) int {
	code := m.Run()
	line := Summary()
	if line == "" {
		return code
	}
	line = packagePath() + ": " + line + "\n"
	if !testing.Verbose() {
		if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
			io.WriteString(tty, line)
			tty.Close()
			return code
		}
	}
	io.WriteString(os.Stdout, line)
	return code
}

// Summary returns what Need skipped so far, as "skipped 12 tests without
// azurite-blob (npm install ...), 2 without tmux (...)", or "" when it
// skipped nothing.
func Summary() string {
	missing.Lock()
	defer missing.Unlock()
	names := make([]string, 0, len(missing.tests))
	for name := range missing.tests {
		names = append(names, name)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = fmt.Sprintf("%s without %s (%s)", tests(missing.tests[name]), name, missing.install[name])
	}
	if len(parts) == 0 {
		return ""
	}
	return "skipped " + strings.Join(parts, ", ")
}

// tests is "1 test" or "n tests".
func tests(n int) string {
	if n == 1 {
		return "1 test"
	}
	return fmt.Sprintf("%d tests", n)
}

// packagePath is the import path of the package under test, from the
// test binary's build information (whose main path is the package's
// with ".test"), or the binary's name.
func packagePath() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Path != "" {
		return strings.TrimSuffix(bi.Path, ".test")
	}
	return filepath.Base(os.Args[0])
}
