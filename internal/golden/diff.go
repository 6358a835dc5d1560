package golden

import (
	"fmt"
	"strings"
)

// context is how many equal lines Diff shows around each change.
const context = 2

// maxCells bounds the work of Diff: longer inputs are reported by their
// first differing line only.
const maxCells = 4_000_000

// Diff returns a line diff of want and got: lines only in want start with
// "-", lines only in got with "+", and up to two equal lines around each
// change with " ". Each hunk starts with the line numbers it covers.
// Equal inputs give "".
func Diff(want, got string) string {
	if want == got {
		return ""
	}
	a, b := splitLines(want), splitLines(got)
	if len(a)*len(b) > maxCells {
		return firstDifference(a, b)
	}
	return render(editScript(a, b))
}

// splitLines splits s after each newline; a last line without one is
// marked, so that a missing final newline shows in the diff.
func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		if strings.HasSuffix(l, "\n") {
			lines[i] = strings.TrimSuffix(l, "\n")
		} else {
			lines[i] = l + " (no newline at end)"
		}
	}
	return lines
}

// edit is one line of an edit script: op is ' ', '-' or '+'; aLine and
// bLine are its 1-based line numbers in want and got.
type edit struct {
	op           byte
	text         string
	aLine, bLine int
}

// editScript computes a shortest edit script from a to b through their
// longest common subsequence.
func editScript(a, b []string) []edit {
	// lcs[i][j] is the length of the LCS of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var script []edit
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			script = append(script, edit{' ', a[i], i + 1, j + 1})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			script = append(script, edit{'-', a[i], i + 1, j + 1})
			i++
		default:
			script = append(script, edit{'+', b[j], i + 1, j + 1})
			j++
		}
	}
	return script
}

// render prints the changes of script with their context, one hunk per
// group of changes.
func render(script []edit) string {
	var sb strings.Builder
	for start := 0; start < len(script); {
		if script[start].op == ' ' {
			start++
			continue
		}
		from := max(0, start-context)
		end := start
		for end < len(script) && !equalRun(script, end) {
			end++
		}
		to := min(len(script), end+context)
		fmt.Fprintf(&sb, "@@ want line %d, got line %d @@\n", script[from].aLine, script[from].bLine)
		for _, e := range script[from:to] {
			fmt.Fprintf(&sb, "%c%s\n", e.op, e.text)
		}
		start = to
	}
	return sb.String()
}

// equalRun reports whether script[i:] starts with more than 2*context
// equal lines (or only equal lines until its end), which ends a hunk.
func equalRun(script []edit, i int) bool {
	for k := i; k < i+2*context+1; k++ {
		if k == len(script) {
			return true
		}
		if script[k].op != ' ' {
			return false
		}
	}
	return true
}

// firstDifference reports the first line where a and b differ.
func firstDifference(a, b []string) string {
	for i := 0; ; i++ {
		switch {
		case i == len(a) && i == len(b):
			return ""
		case i == len(a):
			return fmt.Sprintf("@@ line %d @@\n+%s\n(want ends here)\n", i+1, b[i])
		case i == len(b):
			return fmt.Sprintf("@@ line %d @@\n-%s\n(got ends here)\n", i+1, a[i])
		case a[i] != b[i]:
			return fmt.Sprintf("@@ line %d @@\n-%s\n+%s\n", i+1, a[i], b[i])
		}
	}
}
