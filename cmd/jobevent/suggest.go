package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// suggest returns the candidate that got most likely misspells: the
// closest one within an edit distance of 2 (1 for words of up to 3
// letters; a swap of two neighbours counts 1; of two as close, one that
// got begins), else the only candidate that got begins. It returns ""
// when none fits.
func suggest(got string, candidates []string) string {
	limit := 2
	if len(got) <= 3 {
		limit = 1
	}
	best, bestDist := "", limit+1
	for _, c := range candidates {
		d := editDistance(got, c)
		if d < bestDist || d == bestDist && d <= limit && strings.HasPrefix(c, got) && !strings.HasPrefix(best, got) {
			best, bestDist = c, d
		}
	}
	if best != "" || got == "" {
		return best
	}
	var prefixed []string
	for _, c := range candidates {
		if strings.HasPrefix(c, got) {
			prefixed = append(prefixed, c)
		}
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	return ""
}

// editDistance is the optimal string alignment distance of a and b: the
// insertions, deletions, substitutions and swaps of neighbours that turn
// a into b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// d[i][j] is the distance of ra[:i] and rb[:j].
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// commandCandidates returns the names and aliases of the app's visible
// commands.
func commandCandidates(app *cli.App) []string {
	var names []string
	for _, cmd := range app.Commands {
		if !cmd.Hidden {
			names = append(names, cmd.Names()...)
		}
	}
	return names
}

// flagCandidates returns the names and aliases of flags, and help's.
func flagCandidates(flags []cli.Flag) []string {
	names := []string{"help"}
	for _, f := range flags {
		names = append(names, f.Names()...)
	}
	return names
}

// unknownCommand is the usage error of a command name that names no
// command: with a suggestion when one is close, else the list.
func unknownCommand(app *cli.App, prefix, name string) error {
	if s := suggest(name, commandCandidates(app)); s != "" {
		return &usageError{msg: fmt.Sprintf("%sunknown command %q; did you mean %q?", prefix, name, s)}
	}
	return &usageError{msg: fmt.Sprintf("%sunknown command %q; commands: %s", prefix, name, commandNames(app)),
		help: "jobevent --help"}
}

// undefinedFlagPrefix starts the error of Go's flag package for a flag
// that is not defined.
const undefinedFlagPrefix = "flag provided but not defined: -"

// unknownFlag rewrites the flag package's error for an undefined flag as
// one that names the flag and suggests the closest flag of flags
// (suggested says whether it found one); ok is false for every other
// error.
func unknownFlag(err error, flags []cli.Flag) (msg string, suggested, ok bool) {
	name, found := strings.CutPrefix(err.Error(), undefinedFlagPrefix)
	if !found {
		return "", false, false
	}
	name = strings.TrimLeft(name, "-")
	msg = "unknown flag " + dashes(name)
	if s := suggest(name, flagCandidates(flags)); s != "" {
		return msg + "; did you mean " + dashes(s) + "?", true, true
	}
	return msg, false, true
}

// dashes returns a flag name as typed: -q, --dry-run.
func dashes(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}
