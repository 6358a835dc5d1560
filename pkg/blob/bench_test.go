package blob

import (
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/jobevent/jobevent/pkg/format"
)

// benchEvents is the size of the realistic stream the benchmarks write and
// read.
const benchEvents = 1_000_000

// writeStream appends benchEvents events (cycling through a pool of
// generated ones) through a Writer with the default options and closes it.
func writeStream(b *testing.B, l *Log, pool []format.Event) {
	if err := l.ClaimEpoch(ctx, EpochInfo{Epoch: 1, Master: "bench", StartSeq: 1}); err != nil {
		b.Fatal(err)
	}
	w := l.NewWriter(1, 1, WriterOptions{})
	for i := range benchEvents {
		if _, err := w.Append(pool[i%len(pool)]); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}

func benchmarkWriter(b *testing.B, newURL func(i int) string) {
	pool := genEvents(8192, 1)
	var bytes int64
	var segments int
	n := 0
	start := time.Now()
	for b.Loop() {
		n++
		l, err := Create(ctx, newURL(n))
		if err != nil {
			b.Fatal(err)
		}
		writeStream(b, l, pool)
		segs, err := l.Segments(ctx)
		if err != nil {
			b.Fatal(err)
		}
		bytes, segments = 0, len(segs)
		for _, s := range segs {
			bytes += s.Size
		}
		l.Close()
	}
	b.ReportMetric(float64(benchEvents*n)/time.Since(start).Seconds(), "events/s")
	b.ReportMetric(float64(bytes)/benchEvents, "B/event")
	b.ReportMetric(float64(segments), "segments")
}

// BenchmarkWriter_File writes a 1M-event stream through the Writer to a
// file:// log with the default 1 MiB buffer.
func BenchmarkWriter_File(b *testing.B) {
	dir := b.TempDir()
	benchmarkWriter(b, func(i int) string { return fmt.Sprintf("file://%s?prefix=run%d/", dir, i) })
}

// BenchmarkWriter_Mem is BenchmarkWriter_File on mem://, the cost of the
// writer and the codec alone.
func BenchmarkWriter_Mem(b *testing.B) {
	benchmarkWriter(b, func(i int) string { return fmt.Sprintf("mem://bench-writer-%d", i) })
}

func benchmarkReader(b *testing.B, url string) {
	l, err := Create(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	writeStream(b, l, genEvents(8192, 1))
	n := 0
	start := time.Now()
	for b.Loop() {
		n++
		r, err := l.NewReader(ctx, ReaderOptions{})
		if err != nil {
			b.Fatal(err)
		}
		count := 0
		for {
			_, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			count++
		}
		if count != benchEvents {
			b.Fatalf("read %d events, want %d", count, benchEvents)
		}
	}
	b.ReportMetric(float64(benchEvents*n)/time.Since(start).Seconds(), "events/s")
}

// BenchmarkReader_File reads a 1M-event file:// log written by the Writer.
func BenchmarkReader_File(b *testing.B) {
	benchmarkReader(b, "file://"+b.TempDir())
}

// BenchmarkReader_Mem is BenchmarkReader_File on mem://.
func BenchmarkReader_Mem(b *testing.B) {
	benchmarkReader(b, "mem://bench-reader")
}

// BenchmarkAppend measures Append alone: the cost a master pays per event
// on its own goroutine.
func BenchmarkAppend(b *testing.B) {
	l, err := Create(ctx, "mem://bench-append")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	pool := genEvents(8192, 1)
	w := l.NewWriter(1, 1, WriterOptions{})
	i := 0
	for b.Loop() {
		w.Append(pool[i%len(pool)])
		i++
	}
	b.StopTimer()
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}
