package progress

import (
	"io"
	"os"
	"strconv"

	"github.com/mattn/go-isatty"
)

// IsTerminal reports whether w is an *os.File open on a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return false
	}
	fd := f.Fd()
	return isatty.IsTerminal(fd) || isatty.IsCygwinTerminal(fd)
}

// TerminalWidth returns the width in columns of the terminal f is open
// on; failing that, $COLUMNS (read with getenv); failing that, 80.
func TerminalWidth(f *os.File, getenv func(string) string) int {
	if n := windowWidth(f); n > 0 {
		return n
	}
	if n, err := strconv.Atoi(getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 80
}
