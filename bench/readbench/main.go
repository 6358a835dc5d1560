// Command readbench measures reading a jobevent log in process, as
// bench/read.sh runs it beside DuckDB on the same segment files: a
// two-column query (the count of events and the sum of bytes_out) through
// the column reader and through the projected event reader, a full scan
// into events (by batches, and event by event), and replay.Validate. Each
// is run once untimed, then -runs times; it prints the median wall time,
// the CPU time (user and system, the whole process) of that run, and
// events per second.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"runtime/trace"
	"sort"
	"time"

	"github.com/jobevent/jobevent/internal/cputime"
	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

func main() {
	var (
		url     = flag.String("log", "", "the log: a bucket URL or a directory")
		runs    = flag.Int("runs", 3, "runs of each measure (the median is printed)")
		workers = flag.Int("workers", 0, "decode workers (0: the reader's default)")
		only    = flag.String("only", "", "run only this measure: count, countev, scan, next, validate")
		prof    = flag.String("cpuprofile", "", "write a CPU profile of the measures to this file")
		tr      = flag.String("trace", "", "write an execution trace of the measures to this file")
	)
	flag.Parse()
	if *url == "" {
		fmt.Fprintln(os.Stderr, "usage: readbench -log URL [-runs N] [-workers N] [-only MEASURE] [-cpuprofile FILE]")
		os.Exit(2)
	}
	if *prof != "" {
		f, err := os.Create(*prof)
		if err != nil {
			fail(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fail(err)
		}
		defer pprof.StopCPUProfile()
	}
	if *tr != "" {
		f, err := os.Create(*tr)
		if err != nil {
			fail(err)
		}
		if err := trace.Start(f); err != nil {
			fail(err)
		}
		defer trace.Stop()
	}
	ctx := context.Background()
	l, err := blob.Open(ctx, *url)
	if err != nil {
		fail(err)
	}
	defer l.Close()
	measures := []struct {
		name string
		run  func(context.Context, *blob.Log, int) (int64, string, error)
	}{
		{"count", countSum},
		{"countev", countSumEvents},
		{"scan", scanBatches},
		{"next", scanNext},
		{"validate", validate},
	}
	fmt.Printf("%-10s %10s %10s %14s  %s\n", "measure", "wall ms", "cpu ms", "events/s", "result")
	for _, m := range measures {
		if *only != "" && *only != m.name {
			continue
		}
		var spans []span
		var events int64
		var result string
		// A warm-up run, not timed (duckdb.mjs does the same): the first
		// run after the log was written pays for the machine settling.
		if _, _, err := m.run(ctx, l, *workers); err != nil {
			fail(fmt.Errorf("%s: %w", m.name, err))
		}
		for range *runs {
			start, cpu0 := time.Now(), cputime.Process()
			events, result, err = m.run(ctx, l, *workers)
			spans = append(spans, span{time.Since(start), cputime.Process() - cpu0})
			if err != nil {
				fail(fmt.Errorf("%s: %w", m.name, err))
			}
		}
		sort.Slice(spans, func(i, j int) bool { return spans[i].wall < spans[j].wall })
		s := spans[len(spans)/2]
		fmt.Printf("%-10s %10.1f %10.1f %14.0f  %s\n", m.name, ms(s.wall), ms(s.cpu), float64(events)/s.wall.Seconds(), result)
	}
}

type span struct{ wall, cpu time.Duration }

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "readbench:", err)
	os.Exit(1)
}

// batches reads the log by batches with the projection fields and calls
// f on each batch.
func batches(ctx context.Context, l *blob.Log, workers int, fields format.Fields, f func([]format.Event)) error {
	r, err := l.NewReader(ctx, blob.ReaderOptions{Fields: fields, DecodeWorkers: workers})
	if err != nil {
		return err
	}
	defer r.Close()
	for {
		b, err := r.NextBatch()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		f(b)
	}
}

// countSum is `SELECT count(*), sum(bytes_out)` over the log as read,
// column by column (blob.ColumnReader).
func countSum(ctx context.Context, l *blob.Log, workers int) (int64, string, error) {
	r, err := l.NewColumnReader(ctx, blob.ReaderOptions{Fields: format.FieldBytesOut, DecodeWorkers: workers})
	if err != nil {
		return 0, "", err
	}
	defer r.Close()
	var n, sum int64
	for {
		c, err := r.Next()
		if errors.Is(err, io.EOF) {
			return n, fmt.Sprintf("count %d, sum(bytes_out) %d", n, sum), nil
		}
		if err != nil {
			return n, "", err
		}
		n += int64(c.Len())
		for _, v := range c.BytesOut {
			sum += v
		}
	}
}

// countSumEvents is countSum through events: the projected reader's
// batches.
func countSumEvents(ctx context.Context, l *blob.Log, workers int) (int64, string, error) {
	var n, sum int64
	err := batches(ctx, l, workers, format.FieldBytesOut, func(b []format.Event) {
		n += int64(len(b))
		for i := range b {
			sum += b[i].BytesOut
		}
	})
	return n, fmt.Sprintf("count %d, sum(bytes_out) %d", n, sum), err
}

// scanBatches decodes every field of every event, by batches.
func scanBatches(ctx context.Context, l *blob.Log, workers int) (int64, string, error) {
	var n int64
	err := batches(ctx, l, workers, 0, func(b []format.Event) { n += int64(len(b)) })
	return n, fmt.Sprintf("%d events, every field", n), err
}

// scanNext decodes every field of every event, event by event.
func scanNext(ctx context.Context, l *blob.Log, workers int) (int64, string, error) {
	r, err := l.NewReader(ctx, blob.ReaderOptions{DecodeWorkers: workers})
	if err != nil {
		return 0, "", err
	}
	defer r.Close()
	var n int64
	for {
		_, err := r.Next()
		if errors.Is(err, io.EOF) {
			return n, fmt.Sprintf("%d events, every field, one at a time", n), nil
		}
		if err != nil {
			return n, "", err
		}
		n++
	}
}

// validate runs replay.Validate as `jobevent validate` does: by batches,
// projected on the fields it checks.
func validate(ctx context.Context, l *blob.Log, workers int) (int64, string, error) {
	r, err := l.NewReader(ctx, blob.ReaderOptions{Fields: replay.ValidateFields, DecodeWorkers: workers})
	if err != nil {
		return 0, "", err
	}
	defer r.Close()
	fs := replay.Validate(r, replay.ValidateOptions{})
	segs, err := l.Segments(ctx)
	if err != nil {
		return 0, "", err
	}
	var n int64
	for _, s := range segs {
		n += s.Last - s.First + 1
	}
	return n, fmt.Sprintf("%d findings", len(fs)), nil
}
