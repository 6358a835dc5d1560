// Package gcstart gives a process a starting heap: the garbage collector
// does not run before the heap reaches it, nor lets its goal fall below it
// while the live heap is small, and runs as GOGC says once the live heap
// has grown past half of it.
//
// A command that reads a log allocates most of its garbage in its first
// fraction of a second; with the runtime's 4 MiB starting heap the
// collector runs a dozen times while the heap grows to its working size,
// each time with the decoding goroutines paying for write barriers. The Go
// compiler starts its heap larger for the same reason.
package gcstart

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Default is the starting heap of jobevent's commands: a 100k-record
// Flink directory replays with 4 collections instead of 14, for about 30
// MiB more at its peak.
const Default = 64 << 20

var (
	mu      sync.Mutex
	tuning  bool  // from Heap until the live heap reaches half the starting heap, or SetPercent
	start   int64 // the starting heap
	percent = 100 // GOGC to settle on
	limit   int64 // the memory limit to settle on
	live    = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
)

// Heap keeps the collector's heap goal at bytes or above until the live
// heap reaches half of it, then leaves GOGC as it was. It does nothing
// when GOGC or GOMEMLIMIT is set in the environment: the user's own tuning
// stands. Call it once, first thing in main.
func Heap(bytes int64) {
	if userTuned() || bytes <= 0 {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	// Until the first collection, the memory limit alone triggers it.
	tuning, start = true, bytes
	percent, limit = debug.SetGCPercent(-1), debug.SetMemoryLimit(bytes)
	arm()
}

// SetPercent sets GOGC to p and ends Heap's starting heap, if it still
// holds: a command that knows its heap sets its own target. The function
// it returns puts the previous target back. It does nothing when GOGC is
// set in the environment.
func SetPercent(p int) (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	mu.Lock()
	defer mu.Unlock()
	prev := set(p)
	return func() {
		mu.Lock()
		defer mu.Unlock()
		set(prev)
	}
}

// set ends the starting heap and sets GOGC, and returns the previous
// target; mu is held.
func set(p int) (prev int) {
	if tuning {
		tuning = false
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(p)
		return percent
	}
	return debug.SetGCPercent(p)
}

func userTuned() bool { return os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" }

// arm calls after once the next collection has run: a pointer-shaped
// sentinel is never one of the runtime's tiny combined allocations, which
// could outlive the collection.
func arm() {
	runtime.AddCleanup(new(*byte), func(struct{}) { after() }, struct{}{})
}

// after sets GOGC for a goal of the starting heap over the live heap the
// last collection left, or settles on the target once that is the
// target's own goal.
func after() {
	mu.Lock()
	defer mu.Unlock()
	if !tuning {
		return // SetPercent ended it
	}
	debug.SetMemoryLimit(limit)
	metrics.Read(live)
	l := live[0].Value.Uint64()
	want := -1
	if l > 0 && percent >= 0 {
		want = int(float64(start)/float64(l)*100) - 100
	}
	if want <= percent {
		tuning = false
		debug.SetGCPercent(percent)
		return
	}
	debug.SetGCPercent(want)
	arm()
}
