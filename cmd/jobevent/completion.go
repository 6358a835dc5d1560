package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/pkg/format"
)

func newCompletionCommand() *cli.Command {
	return &cli.Command{
		Name:  "completion",
		Usage: "print a shell completion script (bash, zsh or fish)",
		UsageText: "jobevent completion bash|zsh|fish [--format table|json]\n\n" +
			"EXAMPLES:\n" +
			"   source <(jobevent completion bash)                  # bash, this shell\n" +
			"   jobevent completion bash > /etc/bash_completion.d/jobevent\n" +
			"   jobevent completion zsh > \"${fpath[1]}/_jobevent\"   # zsh, then restart it\n" +
			"   jobevent completion fish > ~/.config/fish/completions/jobevent.fish",
		Description: "Prints a completion script for the shell: command names, each command's flags, the values\n" +
			"of --format and --kind, and file names for the arguments and the FILE flags. The script\n" +
			"lists the commands of this build, so regenerate it after an upgrade. --format json prints\n" +
			"the same data as JSON (commands, their flags and values), for other tools.",
		Flags: []cli.Flag{formatFlag("table", "json")},
		Action: func(c *cli.Context) error {
			if err := wantArgs(c, 1, 1); err != nil {
				return err
			}
			spec := completionSpec(c.App)
			if c.String("format") == "json" {
				return writeJSON(c.App.Writer, spec)
			}
			switch shell := c.Args().First(); shell {
			case "bash":
				return writeBashCompletion(c.App.Writer, spec)
			case "zsh":
				return writeZshCompletion(c.App.Writer, spec)
			case "fish":
				return writeFishCompletion(c.App.Writer, spec)
			default:
				return usagef(c, "unknown shell %q: want bash, zsh or fish", shell)
			}
		},
	}
}

// compCommand is one command as the completion scripts see it.
type compCommand struct {
	Name  string     `json:"name"`
	Usage string     `json:"usage"`
	Flags []compFlag `json:"flags"`
	Args  []string   `json:"args,omitempty"` // fixed argument words; none: file names
}

// compFlag is one flag of a command.
type compFlag struct {
	Name       string   `json:"name"`
	Usage      string   `json:"usage"`
	TakesValue bool     `json:"takes_value"`
	Repeatable bool     `json:"repeatable"`
	Values     []string `json:"values,omitempty"` // the values it takes, when they are a fixed set
	Files      bool     `json:"files"`            // its value is a file or directory name
}

// completionSpec describes the app's visible commands, from their
// definitions, so that the scripts never go stale.
func completionSpec(app *cli.App) []compCommand {
	var out []compCommand
	var names []string
	for _, cmd := range app.Commands {
		if cmd.Hidden || cmd.Name == "help" {
			continue
		}
		cc := compCommand{Name: cmd.Name, Usage: cmd.Usage, Flags: []compFlag{}}
		takes := valueFlags(cmd)
		for _, f := range cmd.Flags {
			cc.Flags = append(cc.Flags, compFlagOf(f, takes))
		}
		cc.Flags = append(cc.Flags, compFlag{Name: "help", Usage: "show help"})
		if cmd.Name == "completion" {
			cc.Args = []string{"bash", "zsh", "fish"}
		}
		out = append(out, cc)
		names = append(names, cmd.Name)
	}
	sort.Strings(names)
	return append(out, compCommand{Name: "help", Usage: "show the help of a command", Flags: []compFlag{}, Args: names})
}

func compFlagOf(f cli.Flag, takes map[string]bool) compFlag {
	name := f.Names()[0]
	usage := ""
	if d, ok := f.(cli.DocGenerationFlag); ok {
		usage = strings.ReplaceAll(d.GetUsage(), "`", "")
	}
	cf := compFlag{Name: name, Usage: usage, TakesValue: takes[name]}
	switch f.(type) {
	case *cli.StringSliceFlag, *cli.IntSliceFlag, *cli.Int64SliceFlag:
		cf.Repeatable = true
	}
	switch {
	case name == "format":
		cf.Values = formatValues(usage)
	case name == "kind":
		for _, k := range format.Kinds {
			cf.Values = append(cf.Values, string(k))
		}
	case cf.TakesValue:
		cf.Files = strings.Contains(usage, "FILE") || strings.Contains(usage, "DIR") || strings.Contains(usage, "LOG")
	}
	return cf
}

// formatValues reads the values of a --format flag back from its usage,
// "output FORMAT: table, json or csv", which formatFlag writes.
func formatValues(usage string) []string {
	_, list, ok := strings.Cut(usage, ": ")
	if !ok {
		return nil
	}
	return strings.FieldsFunc(strings.ReplaceAll(list, " or ", ","), func(r rune) bool { return r == ',' || r == ' ' })
}

// flagWords returns the flags of cmd as typed: --name.
func flagWords(cmd compCommand) string {
	words := make([]string, len(cmd.Flags))
	for i, f := range cmd.Flags {
		words[i] = "--" + f.Name
	}
	return strings.Join(words, " ")
}

func commandWords(spec []compCommand) string {
	words := make([]string, len(spec))
	for i, c := range spec {
		words[i] = c.Name
	}
	return strings.Join(words, " ")
}

// writeBashCompletion writes a bash script completing commands, flags,
// flag values and (for everything else) file names.
func writeBashCompletion(w io.Writer, spec []compCommand) error {
	var b strings.Builder
	b.WriteString(`# bash completion for jobevent, written by "jobevent completion bash".
# Load it with: source <(jobevent completion bash)
_jobevent() {
    local cur prev cmd i
    cur="${COMP_WORDS[COMP_CWORD]}"
    prev="${COMP_WORDS[COMP_CWORD-1]}"
    cmd=""
    for ((i = 1; i < COMP_CWORD; i++)); do
        case "${COMP_WORDS[i]}" in
            -*) ;;
            *) cmd="${COMP_WORDS[i]}"; break ;;
        esac
    done
    COMPREPLY=()
    if [[ -z "$cmd" ]]; then
`)
	fmt.Fprintf(&b, "        COMPREPLY=($(compgen -W %s -- \"$cur\"))\n        return 0\n    fi\n", shQuote(commandWords(spec)+" --help --version"))
	b.WriteString("    case \"$cmd\" in\n")
	for _, cmd := range spec {
		fmt.Fprintf(&b, "        %s)\n", cmd.Name)
		var values, bare []string
		for _, f := range cmd.Flags {
			switch {
			case len(f.Values) > 0:
				values = append(values, fmt.Sprintf("                --%s) COMPREPLY=($(compgen -W %s -- \"$cur\")); return 0 ;;\n",
					f.Name, shQuote(strings.Join(f.Values, " "))))
			case f.TakesValue && !f.Files:
				bare = append(bare, "--"+f.Name)
			}
		}
		if len(values)+len(bare) > 0 {
			b.WriteString("            case \"$prev\" in\n")
			b.WriteString(strings.Join(values, ""))
			if len(bare) > 0 {
				fmt.Fprintf(&b, "                %s) return 0 ;;\n", strings.Join(bare, "|"))
			}
			b.WriteString("            esac\n")
		}
		fmt.Fprintf(&b, "            if [[ \"$cur\" == -* ]]; then\n                COMPREPLY=($(compgen -W %s -- \"$cur\"))\n                return 0\n            fi\n",
			shQuote(flagWords(cmd)))
		if len(cmd.Args) > 0 {
			fmt.Fprintf(&b, "            COMPREPLY=($(compgen -W %s -- \"$cur\"))\n", shQuote(strings.Join(cmd.Args, " ")))
		}
		b.WriteString("            ;;\n")
	}
	b.WriteString("    esac\n    return 0\n}\ncomplete -o default -o bashdefault -F _jobevent jobevent\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeZshCompletion writes a zsh completion function (#compdef), usable
// from $fpath or sourced.
func writeZshCompletion(w io.Writer, spec []compCommand) error {
	var b strings.Builder
	b.WriteString(`#compdef jobevent
# zsh completion for jobevent, written by "jobevent completion zsh".
# Save it as _jobevent in a directory of $fpath, or load it with: source <(jobevent completion zsh)
_jobevent() {
    local -a commands
    commands=(
`)
	for _, cmd := range spec {
		fmt.Fprintf(&b, "        %s\n", shQuote(cmd.Name+":"+cmd.Usage))
	}
	b.WriteString(`    )
    if (( CURRENT == 2 )); then
        _describe -t commands 'jobevent command' commands
        return
    fi
    local cmd=${words[2]}
    shift words
    (( CURRENT-- ))
    case $cmd in
`)
	for _, cmd := range spec {
		fmt.Fprintf(&b, "        %s)\n            _arguments -s", cmd.Name)
		for _, f := range cmd.Flags {
			fmt.Fprintf(&b, " \\\n                %s", shQuote(zshFlagSpec(f)))
		}
		if len(cmd.Args) > 0 {
			fmt.Fprintf(&b, " \\\n                %s", shQuote("*:argument:("+strings.Join(cmd.Args, " ")+")"))
		} else {
			fmt.Fprintf(&b, " \\\n                %s", shQuote("*:file:_files"))
		}
		b.WriteString("\n            ;;\n")
	}
	b.WriteString(`    esac
}
if [[ ${zsh_eval_context[-1]} == loadautofunc ]]; then
    _jobevent "$@"
else
    compdef _jobevent jobevent
fi
`)
	_, err := io.WriteString(w, b.String())
	return err
}

// zshFlagSpec is the _arguments spec of one flag.
func zshFlagSpec(f compFlag) string {
	desc := strings.NewReplacer("[", "\\[", "]", "\\]", ":", "\\:").Replace(f.Usage)
	spec := "--" + f.Name
	if f.Repeatable {
		spec = "*" + spec
	}
	if !f.TakesValue {
		return spec + "[" + desc + "]"
	}
	spec += "=[" + desc + "]:" + strings.ToUpper(f.Name) + ":"
	switch {
	case len(f.Values) > 0:
		return spec + "(" + strings.Join(f.Values, " ") + ")"
	case f.Files:
		return spec + "_files"
	}
	return spec + " "
}

// writeFishCompletion writes fish completions.
func writeFishCompletion(w io.Writer, spec []compCommand) error {
	var b strings.Builder
	b.WriteString(`# fish completion for jobevent, written by "jobevent completion fish".
# Save it as ~/.config/fish/completions/jobevent.fish, or load it with: jobevent completion fish | source
complete -c jobevent -f
`)
	all := commandWords(spec)
	for _, cmd := range spec {
		fmt.Fprintf(&b, "complete -c jobevent -n %s -a %s -d %s\n",
			shQuote("not __fish_seen_subcommand_from "+all), shQuote(cmd.Name), shQuote(cmd.Usage))
	}
	for _, cmd := range spec {
		cond := shQuote("__fish_seen_subcommand_from " + cmd.Name)
		for _, f := range cmd.Flags {
			fmt.Fprintf(&b, "complete -c jobevent -n %s -l %s", cond, f.Name)
			switch {
			case len(f.Values) > 0:
				fmt.Fprintf(&b, " -x -a %s", shQuote(strings.Join(f.Values, " ")))
			case f.Files:
				b.WriteString(" -r -F")
			case f.TakesValue:
				b.WriteString(" -x")
			}
			fmt.Fprintf(&b, " -d %s\n", shQuote(f.Usage))
		}
		if len(cmd.Args) > 0 {
			fmt.Fprintf(&b, "complete -c jobevent -n %s -a %s\n", cond, shQuote(strings.Join(cmd.Args, " ")))
		} else {
			fmt.Fprintf(&b, "complete -c jobevent -n %s -F\n", cond)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// shQuote quotes s for bash, zsh and fish alike: in single quotes, where
// each single quote of s closes the quotes, comes escaped with a
// backslash, and reopens them.
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
