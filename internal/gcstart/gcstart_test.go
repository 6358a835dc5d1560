package gcstart

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// untuned clears GOGC and GOMEMLIMIT from the environment, sets GOGC to
// 100 and no memory limit (math.MaxInt64), and puts both back after t.
func untuned(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	p, l := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetGCPercent(p); debug.SetMemoryLimit(l) })
}

// gcPercent returns GOGC as set now.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// Heap turns the collector off, raises GOGC while the live heap is small
// and restores it, and the memory limit, once the live heap passes half the
// starting heap.
func TestHeap(t *testing.T) {
	untuned(t)

	Heap(64 << 20)
	if p := gcPercent(); p != -1 {
		t.Fatalf("GOGC after Heap = %d, want -1 until the first collection", p)
	}
	waitPercent(t, func(p int) bool { return p > 100 }, "above 100 while the live heap is small")
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Fatalf("memory limit after the first collection = %d, want none (%d)", l, int64(math.MaxInt64))
	}

	live := make([][]byte, 0, 48)
	for range 48 {
		live = append(live, make([]byte, 1<<20))
	}
	waitPercent(t, func(p int) bool { return p == 100 }, "100 once the live heap is 48 MiB")
	runtime.KeepAlive(live)
}

// With GOGC set, Heap leaves the collector alone.
func TestHeap_GOGCSet(t *testing.T) {
	t.Setenv("GOGC", "150")
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	Heap(64 << 20)
	if p := gcPercent(); p != 150 {
		t.Fatalf("GOGC after Heap = %d, want 150 as set", p)
	}
}

// waitPercent collects until GOGC satisfies ok: the tuner runs in a
// cleanup, after a collection.
func waitPercent(t *testing.T, ok func(int) bool, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		time.Sleep(time.Millisecond)
		p := gcPercent()
		if ok(p) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GOGC = %d, want %s", p, want)
		}
	}
}

// SetPercent while the starting heap holds ends it: GOGC and the memory
// limit are the target's at once, and its restore puts back the target
// from before Heap.
func TestSetPercent_WhileTuning(t *testing.T) {
	untuned(t)

	Heap(64 << 20)
	restore := SetPercent(200)
	if p := gcPercent(); p != 200 {
		t.Fatalf("GOGC after SetPercent = %d, want 200", p)
	}
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Fatalf("memory limit after SetPercent = %d, want none (%d)", l, int64(math.MaxInt64))
	}
	for range 3 { // the pending cleanup leaves it alone
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if p := gcPercent(); p != 200 {
		t.Fatalf("GOGC after collections = %d, want 200 still", p)
	}
	restore()
	if p := gcPercent(); p != 100 {
		t.Fatalf("GOGC after restore = %d, want 100", p)
	}
}
