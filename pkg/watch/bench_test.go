package watch

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/logsource"
)

// benchFixture is the committed Flink run whose HA cluster directory every
// generated cluster copies: its plan file names its job, so each cluster
// holds one job under that id, as a real HA storage directory does.
const benchFixture = "../../testdata/flink/1.20.5/rebalance-hash/ha/default"

// benchTree writes clusters Flink HA cluster directories under dir/ha
// (<cluster>/<job id>/job-events/events.N and the plan file, the fixture's
// bytes) and logs jobevent logs (testdata/logs/healthy.jsonl as a Parquet
// segment) under dir/logs, and returns the SOURCE URLs.
func benchTree(tb testing.TB, dir string, clusters, logs int) []string {
	tb.Helper()
	ents, err := os.ReadDir(benchFixture)
	if err != nil {
		tb.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range ents {
		if e.IsDir() {
			evs, _ := filepath.Glob(filepath.Join(benchFixture, e.Name(), "job-events", "events.*"))
			for _, f := range evs {
				data, _ := os.ReadFile(f)
				files[filepath.Join(e.Name(), "job-events", filepath.Base(f))] = data
			}
			continue
		}
		data, _ := os.ReadFile(filepath.Join(benchFixture, e.Name()))
		files[e.Name()] = data
	}
	for c := range clusters {
		for name, data := range files {
			p := filepath.Join(dir, "ha", fmt.Sprintf("cluster-%04d", c), name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, data, 0o644); err != nil {
				tb.Fatal(err)
			}
		}
	}
	srcs := []string{filepath.Join(dir, "ha")}
	if logs == 0 {
		return srcs
	}
	ctx := context.Background()
	src, err := logsource.Open(ctx, "../../testdata/logs/healthy.jsonl", logsource.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	var evs []format.Event
	for {
		e, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			tb.Fatal(err)
		}
		evs = append(evs, e)
	}
	src.Close()
	os.MkdirAll(filepath.Join(dir, "logs"), 0o755)
	b, err := blob.OpenBucket(ctx, filepath.Join(dir, "logs"))
	if err != nil {
		tb.Fatal(err)
	}
	defer b.Close()
	for i := range logs {
		if _, err := b.Sub(fmt.Sprintf("log-%04d/", i)).Log().WriteSegment(ctx, evs); err != nil {
			tb.Fatal(err)
		}
	}
	return append(srcs, filepath.Join(dir, "logs"))
}

// benchWatcher archives the generated tree once (the first poll) and
// returns the watcher, its clock advanced by the interval at each call.
func benchWatcher(b *testing.B, clusters, logs int) (*Watcher, func()) {
	dir := b.TempDir()
	srcs := benchTree(b, dir, clusters, logs)
	root := filepath.Join(dir, "archive")
	os.MkdirAll(root, 0o755)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	interval := 2 * time.Second
	w, err := New(context.Background(), Options{Sources: srcs, Archive: root, Interval: interval, Now: func() time.Time { return now }})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { w.Close() })
	ctx := context.Background()
	if err := w.Claim(ctx); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := w.Poll(ctx); err != nil {
		b.Fatal(err)
	}
	b.Logf("first poll (archives %d Flink jobs, plans %d logs): %v", clusters, logs, time.Since(start).Round(time.Millisecond))
	if n := len(w.jobs); n != clusters {
		b.Fatalf("%d jobs watched, want %d", n, clusters)
	}
	for _, j := range w.jobs {
		if j.haFile == "" || !j.exp.planned {
			b.Fatalf("job %s: plan file %q, planned %v after the first poll", j.key, j.haFile, j.exp.planned)
		}
	}
	return w, func() { now = now.Add(interval) }
}

// BenchmarkPollUnchanged is one poll of an unchanged tree of 1,000 Flink
// jobs (and 100 jobevent logs): a listing and nothing read.
func BenchmarkPollUnchanged(b *testing.B) {
	w, tick := benchWatcher(b, 1000, 100)
	ctx := context.Background()
	copied, searches := testutil.ToFloat64(w.m.copied), w.haSearches
	cpu0, n := cpuTime(), 0
	b.ResetTimer()
	for b.Loop() {
		n++
		tick()
		if err := w.Poll(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1e3/float64(n), "cpu-ms/poll")
	if c := testutil.ToFloat64(w.m.copied); c != copied {
		b.Fatalf("polls of an unchanged tree copied %v bytes", c-copied)
	}
	if w.haSearches != searches {
		b.Fatalf("polls of an unchanged tree searched %d times for plan files", w.haSearches-searches)
	}
}

// BenchmarkPollHour is an hour of polls at the default interval (1,800
// polls of 2 s, the clock simulated, back to back) of the unchanged tree:
// it reports the heap in use and the RSS before and after, which must
// stay flat.
func BenchmarkPollHour(b *testing.B) {
	w, tick := benchWatcher(b, 1000, 100)
	ctx := context.Background()
	heap0, rss0 := memNow()
	cpu0 := cpuTime()
	var took time.Duration
	polls := 0
	for b.Loop() {
		start := time.Now()
		for range 1800 {
			tick()
			if err := w.Poll(ctx); err != nil {
				b.Fatal(err)
			}
		}
		took += time.Since(start)
		polls += 1800
	}
	heap1, rss1 := memNow()
	b.ReportMetric(float64(took.Milliseconds())/float64(polls), "ms/poll")
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1e3/float64(polls), "cpu-ms/poll")
	b.ReportMetric(float64(heap0)/(1<<20), "heap-start-MiB")
	b.ReportMetric(float64(heap1)/(1<<20), "heap-end-MiB")
	b.ReportMetric(float64(rss0)/(1<<20), "rss-start-MiB")
	b.ReportMetric(float64(rss1)/(1<<20), "rss-end-MiB")
	if heap1 > heap0+heap0/4+4<<20 {
		b.Fatalf("heap in use grew from %d to %d bytes over %d polls of an unchanged tree", heap0, heap1, polls)
	}
}

// memNow is the heap in use after a collection, and the process's RSS
// (0 where /proc is missing).
func memNow() (heap, rss uint64) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	data, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseUint(f[1], 10, 64)
			rss = kb << 10
		}
	}
	return ms.HeapInuse, rss
}

// cpuTime is the CPU time (user and system) the process used so far: on a
// loaded machine, what a poll costs whatever share of the cores it got.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
