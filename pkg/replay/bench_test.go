package replay_test

import (
	"runtime"
	"sync"
	"testing"

	"github.com/jobevent/jobevent/internal/loggen"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// The benchmark log: 100,000 subtasks, 1,000,000 events (loggen's
// BenchOptions), generated once per process. The plan benchmarks use the
// state alone, streamed from the generator, so that a million events held
// in memory do not burden the collector while they run; the fold and
// validate benchmarks need the events (and come last in the file).
var bench struct {
	stateOnce, eventsOnce sync.Once
	state                 *replay.State
	events                []format.Event
}

func benchOptions() loggen.Options { return loggen.BenchOptions(1, 100_000, 1_000_000) }

func benchState(b *testing.B) *replay.State {
	b.Helper()
	bench.stateOnce.Do(func() {
		g := loggen.Job(benchOptions())
		for {
			if _, err := g.Next(); err != nil {
				break
			}
		}
		bench.state = g.State()
	})
	return bench.state
}

func benchEvents(b *testing.B) []format.Event {
	b.Helper()
	bench.eventsOnce.Do(func() { bench.events = loggen.Events(benchOptions()) })
	return bench.events
}

// heapInUse returns the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkPlan plans the failover of the 100k-subtask job, every
// recorded partition available (A built outside the loop).
func BenchmarkPlan(b *testing.B) {
	st := benchState(b)
	avail := replay.AllRecorded(st)
	b.ReportAllocs()
	var plan *replay.RecoveryPlan
	for b.Loop() {
		plan = replay.Plan(st, avail)
	}
	b.ReportMetric(float64(len(plan.Subtasks)), "subtasks")
}

// BenchmarkDryRun is what `replay --dry-run` does after reading the log:
// build A from the recorded partitions minus a lost worker, then plan.
func BenchmarkDryRun(b *testing.B) {
	st := benchState(b)
	b.ReportAllocs()
	for b.Loop() {
		avail, err := replay.BuildAvailability(st, replay.AvailabilityOptions{LostWorkers: []string{"w7"}})
		if err != nil {
			b.Fatal(err)
		}
		_ = replay.Plan(st, avail)
	}
}

// BenchmarkPlanDryRun is what `replay --dry-run` does after reading the
// log since it plans with PlanDryRun: without what-if options (A is every
// recorded partition and is not built), and with a lost worker (asked of
// the state directly), against BenchmarkDryRun's map.
func BenchmarkPlanDryRun(b *testing.B) {
	st := benchState(b)
	for _, c := range []struct {
		name string
		o    replay.AvailabilityOptions
	}{
		{"all-recorded", replay.AvailabilityOptions{}},
		{"lost-worker", replay.AvailabilityOptions{LostWorkers: []string{"w7"}}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := replay.PlanDryRun(st, c.o, replay.PlanOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFold folds the 1M-event log; it reports the events folded per
// second and the live heap of the resulting state.
func BenchmarkFold(b *testing.B) {
	events := benchEvents(b)
	before := heapInUse()
	var st *replay.State
	b.ReportAllocs()
	for b.Loop() {
		st, _ = replay.Fold(&replay.SliceSource{Events: events}, 0)
	}
	b.ReportMetric(float64(len(events))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(heapInUse()-before)/(1<<20), "state-MiB")
	runtime.KeepAlive(st)
}

// BenchmarkFoldAndPlan is the whole dry run from events in memory: fold
// the 1M events, build A, plan. It reports the peak live heap.
func BenchmarkFoldAndPlan(b *testing.B) {
	events := benchEvents(b)
	before := heapInUse()
	var peak uint64
	b.ReportAllocs()
	for b.Loop() {
		st, _ := replay.Fold(&replay.SliceSource{Events: events}, 0)
		plan := replay.Plan(st, replay.AllRecorded(st))
		b.StopTimer()
		if h := heapInUse() - before; h > peak {
			peak = h
		}
		runtime.KeepAlive(plan)
		b.StartTimer()
	}
	b.ReportMetric(float64(peak)/(1<<20), "live-MiB")
}

// BenchmarkValidate validates the 1M-event log; it reports events per
// second.
func BenchmarkValidate(b *testing.B) {
	events := benchEvents(b)
	b.ReportAllocs()
	for b.Loop() {
		if fs := replay.Validate(&replay.SliceSource{Events: events}, replay.ValidateOptions{}); len(fs) != 0 {
			b.Fatalf("findings: %v", fs[0])
		}
	}
	b.ReportMetric(float64(len(events))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
