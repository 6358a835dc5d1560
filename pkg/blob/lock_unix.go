//go:build unix

package blob

import (
	"errors"
	"os"
	"syscall"
)

// processGone reports whether no process of this host has pid (signal 0
// finds none). A process of another user is alive (EPERM).
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// pidNamespace names this process's PID namespace ("pid:[4026531836]" on
// Linux), or "" where there is none to read.
func pidNamespace() string {
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return ""
	}
	return ns
}
