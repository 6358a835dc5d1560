//go:build !unix

package flink

import "time"

// cpuTime returns 0 where the process's CPU time is not known.
func cpuTime() time.Duration { return 0 }
