package runtime

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// benchJob is flink-failover scaled up: numbers 0..N-1 from 8 splits,
// keyed mod 10000, counted, written.
func benchJob(b *testing.B, numbers int) *Spec {
	b.Helper()
	spec, err := ParseSpec("bench.yaml", []byte(fmt.Sprintf(`job: bench
vertices:
  - {id: numbers, operator: sequence, args: {from: 0, to: %d, splits: 8}, parallelism: 4}
  - {id: mod, operator: map, args: {fn: mod, n: 10000}, parallelism: 4}
  - {id: count, operator: count, parallelism: 4}
  - {id: sink, operator: sink, args: {output: out}, parallelism: 2}
edges:
  - {from: numbers, to: mod, pattern: pointwise}
  - {from: mod, to: count, pattern: all_to_all}
  - {from: count, to: sink, pattern: pointwise}
settings:
  execution.batch.job-recovery.snapshot.min-pause: 0s
`, numbers-1)))
	if err != nil {
		b.Fatal(err)
	}
	return spec
}

// BenchmarkRecording runs the same job with the event log on file://,
// on mem://, and on a null log that keeps nothing: the difference is what
// recording costs (target: under 3% of wall time).
func BenchmarkRecording(b *testing.B) {
	for _, store := range []string{"null", "mem", "file"} {
		b.Run("store="+store, func(b *testing.B) {
			root := b.TempDir()
			var wall, recording float64
			for i := 0; i < b.N; i++ {
				dir := filepath.Join(root, fmt.Sprint(i))
				i := i
				opts := Options{Dir: dir}
				switch store {
				case "null":
					opts.Log = NewNullLog(1)
				case "mem":
					opts.Events = fmt.Sprintf("mem://bench-%d-%d?prefix=bench/", time.Now().UnixNano(), i)
				}
				sum, err := Run(context.Background(), benchJob(b, 2_000_000), opts)
				if err != nil {
					b.Fatal(err)
				}
				wall, recording = wall+sum.Wall, recording+sum.Recording
				b.StopTimer()
				os.RemoveAll(dir)
				b.StartTimer()
			}
			// The share of the wall time the master spent waiting on the
			// log: a measure of the overhead that machine noise does not
			// drown (the A/B difference of ns/op is the other).
			b.ReportMetric(100*recording/wall, "%recording")
		})
	}
}

// BenchmarkRecovery compares a clean run with the recovery of a crash at
// about 90% of the log (target: recovery ≤ 20% of a clean run). Each
// iteration of "resume" crashes a run first, outside the timer.
func BenchmarkRecovery(b *testing.B) {
	root := b.TempDir()
	probe := filepath.Join(root, "probe")
	sum, err := Run(context.Background(), benchJob(b, 2_000_000), Options{Dir: probe, Seeded: true, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	crashAt := sum.LastSeq * 9 / 10
	runs := 0
	b.Run("clean", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			runs++
			dir := filepath.Join(root, "clean", fmt.Sprint(runs))
			if _, err := Run(context.Background(), benchJob(b, 2_000_000), Options{Dir: dir, Seeded: true, Seed: 1}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(fmt.Sprintf("resume-after-%d-of-%d", crashAt, sum.LastSeq), func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			runs++
			dir := filepath.Join(root, "resume", fmt.Sprint(runs))
			opts := Options{Dir: dir, Seeded: true, Seed: 1, CrashAfterSeq: crashAt}
			var crash *CrashError
			if _, err := Run(context.Background(), benchJob(b, 2_000_000), opts); !errors.As(err, &crash) {
				b.Fatalf("crash run: %v", err)
			}
			opts.CrashAfterSeq, opts.Resume = 0, true
			b.StartTimer()
			if _, err := Run(context.Background(), benchJob(b, 2_000_000), opts); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkScheduling measures the master's cost per subtask for jobs of
// 100 to 10,000 subtasks that do next to nothing (null log, one number
// each): ns/subtask should stay roughly flat. "sources" is one vertex, no
// partitions: scheduling and the protocol alone; "two-stage" adds a
// pointwise consumer, so every source subtask writes a partition file.
func BenchmarkScheduling(b *testing.B) {
	for _, shape := range []string{"sources", "two-stage"} {
		for _, n := range []int{100, 1000, 10000} {
			b.Run(fmt.Sprintf("%s/subtasks=%d", shape, n), func(b *testing.B) {
				text := fmt.Sprintf("job: sched\nvertices:\n  - {id: numbers, operator: sequence, args: {from: 0, to: %d, splits: %d}, parallelism: %d}\n", n-1, n, n)
				if shape == "two-stage" {
					text = fmt.Sprintf("job: sched\nvertices:\n  - {id: numbers, operator: sequence, args: {from: 0, to: %d, splits: %d}, parallelism: %d}\n", n/2-1, n/2, n/2) +
						fmt.Sprintf("  - {id: keep, operator: filter, args: {fn: even}, parallelism: %d}\n", n/2) +
						"edges:\n  - {from: numbers, to: keep, pattern: pointwise}\n"
				}
				spec, err := ParseSpec("sched.yaml", []byte(text))
				if err != nil {
					b.Fatal(err)
				}
				root := b.TempDir()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					opts := Options{Dir: filepath.Join(root, fmt.Sprint(i)), Log: NewNullLog(1), Workers: 4, Slots: 8}
					if _, err := Run(context.Background(), spec, opts); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/subtask")
			})
		}
	}
}
