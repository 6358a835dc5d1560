package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/jobevent/jobevent/internal/quote"
)

// Exit codes of the jobevent command (docs/cli.md).
const (
	exitOK       = 0
	exitFindings = 1 // validate errors, diff differences, a failed job
	exitFailure  = 2 // usage error, bad input, corruption, I/O failure
	exitCrash    = 3 // the deliberate crash of --crash-after-seq
)

// exitCoder is implemented by errors that choose the process exit code.
// Commands return such an error to end with a code other than 2, e.g. the
// runtime's deliberate crash returns one whose ExitCode is 3.
type exitCoder interface {
	ExitCode() int
}

// exitError ends the command with code. Its message is printed as the one
// error line unless it is empty (findings that were already printed).
type exitError struct {
	code int
	err  error // nil: nothing more to say
}

func (e *exitError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// ExitCode returns the exit code the command ends with.
func (e *exitError) ExitCode() int { return e.code }

// findings returns the error a command ends with when it found something to
// report (validate errors, diff differences): exit 1. The message may be
// empty when the output already says it.
func findings(format string, args ...any) error {
	if format == "" {
		return &exitError{code: exitFindings}
	}
	return &exitError{code: exitFindings, err: fmt.Errorf(format, args...)}
}

// usageError is a bad command line: exit 2, with the command's usage hint
// or a pointer to its help.
type usageError struct {
	msg   string
	usage string // first line of the command's usage text, may be empty
	help  string // the command line that prints the help, may be empty
}

func (e *usageError) Error() string {
	msg := e.msg
	if e.usage != "" {
		msg += " (usage: " + e.usage + ")"
	}
	if e.help != "" {
		msg += "; see '" + e.help + "'"
	}
	return msg
}

// ExitCode returns 2.
func (e *usageError) ExitCode() int { return exitFailure }

// exitCode maps an error returned by the app to the process exit code:
// nil is 0, an error with an ExitCode method chooses its code, context
// cancellation (Ctrl-C) of a command that was told to run until
// interrupted is handled by that command, and every other error is 2.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var c exitCoder
	if errors.As(err, &c) {
		return c.ExitCode()
	}
	return exitFailure
}

// errorLine renders err as the one line printed on stderr, or "" when
// there is nothing to print. Multi-line messages of other libraries are
// folded onto one line.
func errorLine(err error) string { return commandErrorLine(err, "") }

// commandErrorLine is errorLine for the error that the command named
// command ("" for none) ended with.
func commandErrorLine(err error, command string) string {
	if err == nil {
		return ""
	}
	msg := err.Error()
	if errors.Is(err, context.Canceled) && msg == context.Canceled.Error() {
		msg = "interrupted"
	}
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	parts := lines[:0]
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "jobevent: " + quote.Line(userText(strings.Join(parts, "; "), command))
}

// internalPrefix matches the package prefix of the library's sentinel
// errors ("jobevent/replay: unknown vertex"), which names Go packages,
// not anything a user typed.
var internalPrefix = regexp.MustCompile(`(^|[ (])jobevent/(blob|drill|flink|format|javaser|replay|runtime): `)

// libraryPackages are the names the library's errors start with when they
// say which package wrapped them ("replay: after seq 8: ...").
var libraryPackages = map[string]bool{"blob": true, "drill": true, "flink": true, "format": true,
	"javaser": true, "replay": true, "runtime": true}

// userText rewrites an error message of command for the user: the
// library's package prefixes go ("jobevent/replay: ", and "replay: "
// unless replay is the command), and so does a context repeated by two
// wrappers ("replay: replay: ...").
func userText(msg, command string) string {
	msg = internalPrefix.ReplaceAllString(msg, "$1")
	parts := strings.Split(msg, ": ")
	if len(parts) > 1 && libraryPackages[parts[0]] && parts[0] != command {
		parts = parts[1:]
	}
	out := parts[:1]
	for _, p := range parts[1:] {
		if p == out[0] || libraryPackages[p] || p == out[len(out)-1] {
			continue
		}
		out = append(out, p)
	}
	return strings.Join(out, ": ")
}

// printError writes the error line of err to w, if it has one.
func printError(w io.Writer, err error) {
	if line := errorLine(err); line != "" {
		fmt.Fprintln(w, line)
	}
}

// warnf writes one "jobevent: warning: ..." line to w, without the
// library's package prefixes (internalPrefix).
func warnf(w io.Writer, format string, args ...any) {
	msg := strings.ReplaceAll(fmt.Sprintf(format, args...), "\n", "; ")
	msg = internalPrefix.ReplaceAllString(msg, "$1")
	fmt.Fprintln(w, "jobevent: warning: "+quote.Line(msg))
}
