package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// reorderArgs moves the flags of the named command before its positional
// arguments, so that "jobevent replay LOG --dry-run" means what it says:
// urfave/cli v2 stops parsing flags at the first positional argument.
// Values of flags that take one ("--format json") stay with their flag, a
// lone "-" is positional (stdin), and everything after "--" is positional.
// args[0] is the program name; app-level flags before the command name are
// kept in place. An unknown command is left for the app to report.
func reorderArgs(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	i := 1
	for i < len(args) && isFlag(args[i]) && args[i] != "--" {
		i++ // app-level flags: --help, --version
	}
	if i >= len(args) {
		return args
	}
	cmd := app.Command(args[i])
	if cmd == nil || cmd.Name == "help" {
		return args
	}
	out := make([]string, 0, len(args)+1)
	out = append(out, args[:i+1]...)
	return append(out, reorderCommandArgs(cmd, args[i+1:])...)
}

// reorderCommandArgs returns the command's flags first, then "--" and the
// positional arguments in their order. A flag missing its value is left
// last, so that parsing reports it.
func reorderCommandArgs(cmd *cli.Command, args []string) []string {
	takesValue := valueFlags(cmd)
	var flags, positional []string
	for i := 0; i < len(args); i++ {
		tok := args[i]
		switch {
		case tok == "--":
			positional = append(positional, args[i+1:]...)
			i = len(args)
		case isFlag(tok):
			flags = append(flags, tok)
			name := strings.TrimLeft(tok, "-")
			if strings.Contains(name, "=") || !takesValue[name] {
				break
			}
			if i+1 == len(args) {
				return flags // "flag needs an argument"
			}
			i++
			flags = append(flags, args[i])
		default:
			positional = append(positional, tok)
		}
	}
	if len(positional) > 0 {
		flags = append(flags, "--")
		flags = append(flags, positional...)
	}
	return flags
}

// valueFlags returns the names (and aliases) of the command's flags that
// take a value: every flag but the boolean ones.
func valueFlags(cmd *cli.Command) map[string]bool {
	m := make(map[string]bool)
	for _, f := range cmd.Flags {
		if _, isBool := f.(*cli.BoolFlag); isBool {
			continue
		}
		for _, name := range f.Names() {
			m[name] = true
		}
	}
	return m
}

// isFlag reports whether tok looks like a flag: it starts with "-" and is
// not "-" alone.
func isFlag(tok string) bool {
	return len(tok) > 1 && tok[0] == '-'
}
