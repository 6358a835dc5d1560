package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/jobevent/jobevent/internal/answer"
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
func commandErrorLine(err error, command string) string { return answer.ErrorLine(err, command) }

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
	fmt.Fprintln(w, "jobevent: warning: "+quote.Line(answer.StripInternal(msg)))
}

// libraryPackages are the library's package names errors may start with
// (answer.LibraryPackages).
var libraryPackages = answer.LibraryPackages

// userText rewrites an error message of command for the user (answer.UserText).
func userText(msg, command string) string { return answer.UserText(msg, command) }
