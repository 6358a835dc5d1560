//go:build !unix

// Package cputime measures the CPU time of the running process, so that
// benchmarks can report work per CPU second, which a machine shared with
// other work disturbs less than wall time.
package cputime

import "time"

// Process returns 0: the process's CPU time is not measured on this
// platform.
func Process() time.Duration { return 0 }
