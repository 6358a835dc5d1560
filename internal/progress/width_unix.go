//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package progress

import (
	"os"

	"golang.org/x/sys/unix"
)

// windowWidth asks the terminal of f for its width; 0 when it cannot tell.
func windowWidth(f *os.File) int {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}
