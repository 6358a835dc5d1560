//go:build !unix

package format

import "time"

// processCPU is not measured on this platform.
func processCPU() time.Duration { return 0 }
