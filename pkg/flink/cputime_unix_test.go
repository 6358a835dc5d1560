//go:build unix

package flink

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used (user and system, every
// thread), so that benchmarks can report work per CPU second on a machine
// shared with other work.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
