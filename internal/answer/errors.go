package answer

import (
	"context"
	"errors"
	"regexp"
	"strings"

	"github.com/jobevent/jobevent/internal/quote"
)

// ErrorLine renders err as the one line the CLI prints on stderr, and the
// server's JSON errors carry: "jobevent: ..." or "" when there is
// nothing to say. Multi-line messages of other libraries are folded onto
// one line; command ("" for none) is the command that ended with err.
func ErrorLine(err error, command string) string {
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
	return "jobevent: " + quote.Line(UserText(strings.Join(parts, "; "), command))
}

// internalPrefix matches the package prefix of the library's sentinel
// errors ("jobevent/replay: unknown vertex"), which names Go packages,
// not anything a user typed.
var internalPrefix = regexp.MustCompile(`(^|[ (])jobevent/(blob|drill|flink|format|javaser|replay|runtime): `)

// LibraryPackages are the names the library's errors start with when they
// say which package wrapped them ("replay: after seq 8: ...").
var LibraryPackages = map[string]bool{"blob": true, "drill": true, "flink": true, "format": true,
	"javaser": true, "replay": true, "runtime": true}

// StripInternal removes the library's package prefixes
// ("jobevent/replay: ") from msg.
func StripInternal(msg string) string { return internalPrefix.ReplaceAllString(msg, "$1") }

// UserText rewrites an error message of command for the user: the
// library's package prefixes go ("jobevent/replay: ", and "replay: "
// unless replay is the command), and so does a context repeated by two
// wrappers ("replay: replay: ...").
func UserText(msg, command string) string {
	msg = StripInternal(msg)
	parts := strings.Split(msg, ": ")
	if len(parts) > 1 && LibraryPackages[parts[0]] && parts[0] != command {
		parts = parts[1:]
	}
	out := parts[:1]
	for _, p := range parts[1:] {
		if p == out[0] || LibraryPackages[p] || p == out[len(out)-1] {
			continue
		}
		out = append(out, p)
	}
	return strings.Join(out, ": ")
}
