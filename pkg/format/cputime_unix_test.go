//go:build unix

package format

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user + system) the process has used, so
// that benchmarks can report throughput per CPU second, which a busy
// machine disturbs less than wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
