package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/internal/human"
)

// The usage plumbing every command shares: usage errors that carry the
// command's usage hint, missing arguments and flags named as the usage
// line names them.

// onUsageError turns a flag parsing error of cli into a one-line usage
// error carrying the command's usage hint.
func onUsageError(c *cli.Context, err error, _ bool) error {
	name, usage, flags := "", c.App.UsageText, c.App.Flags
	if isSubcommand(c) {
		name, usage, flags = c.Command.Name+": ", usageHint(c.Command), c.Command.Flags
	}
	if msg, suggested, ok := unknownFlag(err, flags); ok && suggested {
		return &usageError{msg: name + msg}
	} else if ok {
		return &usageError{msg: name + msg, help: helpCommandLine(c)}
	}
	return &usageError{msg: name + err.Error(), usage: usage}
}

// helpCommandLine is the command line that prints the help of the
// command running in c.
func helpCommandLine(c *cli.Context) string {
	if isSubcommand(c) {
		return "jobevent " + c.Command.Name + " --help"
	}
	return "jobevent --help"
}

// isSubcommand reports whether c runs one of the app's commands rather
// than the app itself.
func isSubcommand(c *cli.Context) bool {
	return c.Command != nil && c.Command.Name != "" && c.Command.Name != c.App.Name
}

// usageHint is the first line of a command's usage text.
func usageHint(cmd *cli.Command) string {
	hint, _, _ := strings.Cut(cmd.UsageText, "\n")
	return strings.TrimSpace(hint)
}

// usagef returns a usage error of the command running in c.
func usagef(c *cli.Context, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if !isSubcommand(c) {
		return &usageError{msg: msg, usage: c.App.UsageText}
	}
	return &usageError{msg: c.Command.Name + ": " + msg, usage: usageHint(c.Command)}
}

// missingf returns the usage error of a command line that lacks something
// the command needs: it points at the command's help.
func missingf(c *cli.Context, format string, args ...any) error {
	return &usageError{msg: c.Command.Name + ": " + fmt.Sprintf(format, args...), help: helpCommandLine(c)}
}

// missingArgs returns "missing LOG: " for the positional arguments after
// the first n that the command's usage line names, "" when it names none.
func missingArgs(c *cli.Context, n int) string {
	words := strings.Fields(usageHint(c.Command))
	var names []string
	for _, w := range words[min(2, len(words)):] {
		if strings.HasPrefix(w, "-") || strings.HasPrefix(w, "[") || strings.HasPrefix(w, "(") {
			break
		}
		names = append(names, w)
	}
	if n >= len(names) {
		return ""
	}
	return "missing " + strings.Join(names[n:], " ") + ": "
}

// requireFlags returns a usage error naming each flag of names that is
// not set (with the placeholder of its usage: --events LOG), and also the
// positional argument arg unless it is "".
func requireFlags(c *cli.Context, arg string, names ...string) error {
	var missing []string
	if arg != "" {
		missing = append(missing, arg)
	}
	for _, name := range names {
		if !c.IsSet(name) {
			missing = append(missing, "--"+name+flagPlaceholder(c.Command, name))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	list := strings.Join(missing, ", ")
	if n := len(missing); n > 1 {
		list = strings.Join(missing[:n-1], ", ") + " and " + missing[n-1]
	}
	return missingf(c, "missing %s", list)
}

// flagPlaceholder returns " LOG" for a flag of cmd whose usage names its
// value `LOG`, "" for a flag without one.
func flagPlaceholder(cmd *cli.Command, name string) string {
	for _, f := range cmd.Flags {
		if df, ok := f.(cli.DocGenerationFlag); ok && slices.Contains(f.Names(), name) {
			if _, rest, ok := strings.Cut(df.GetUsage(), "`"); ok {
				if ph, _, ok := strings.Cut(rest, "`"); ok && ph != "" {
					return " " + ph
				}
			}
		}
	}
	return ""
}

// wantArgs checks the number of positional arguments: at least min, at
// most max (max < 0: any number).
func wantArgs(c *cli.Context, min, max int) error {
	n := c.NArg()
	switch {
	case n < min && min == max:
		return missingf(c, "%swant %s, got %d", missingArgs(c, n), human.Count(min, "argument"), n)
	case n < min:
		return missingf(c, "%swant at least %s, got %d", missingArgs(c, n), human.Count(min, "argument"), n)
	case max >= 0 && n > max && min == max:
		return usagef(c, "want %s, got %d: unexpected %q", human.Count(max, "argument"), n, c.Args().Get(max))
	case max >= 0 && n > max:
		return usagef(c, "want at most %s, got %d: unexpected %q", human.Count(max, "argument"), n, c.Args().Get(max))
	}
	return nil
}
