// Package quote makes text that comes from a log safe to print: names,
// keys and values read from segments, JSONL files and Java streams go into
// error lines, warnings, tables and CI annotations, and must not carry
// terminal escapes, line breaks or invalid UTF-8 with them. Every message
// that quotes bytes from a log goes through Name or Line.
package quote

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// unsafe reports whether r must not reach a terminal or a one-line
// message as is: C0 and C1 controls (ESC among them), DEL, the Unicode
// line and paragraph separators, and the bidirectional overrides that
// reorder what a reader sees.
func unsafe(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029 ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// Safe reports whether s can be printed as is.
func Safe(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || unsafe(r) {
			return false
		}
	}
	return true
}

// Name returns a value from a log for a message: s as is when it is safe,
// else quoted as a Go string ("\x1b[2J"), so that it stays on one line and
// shows what the bytes are.
func Name(s string) string {
	if Safe(s) {
		return s
	}
	return strconv.Quote(s)
}

// Line returns a whole message that may hold bytes from a log with every
// unsafe rune and invalid byte escaped in place (\x1b, \n, \u2028, \xff),
// the rest unchanged.
func Line(s string) string {
	if Safe(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			b.WriteString(`\x` + strconv.FormatUint(uint64(s[i])>>4, 16) + strconv.FormatUint(uint64(s[i])&0xf, 16))
		case unsafe(r):
			q := strconv.QuoteToASCII(string(r))
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
