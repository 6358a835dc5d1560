//go:build unix

// Package cputime measures the CPU time of the running process, so that
// benchmarks can report work per CPU second, which a machine shared with
// other work disturbs less than wall time.
package cputime

import (
	"syscall"
	"time"
)

// Process returns the CPU time (user and system, every thread) the process
// has used so far; 0 if it cannot be read.
func Process() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
