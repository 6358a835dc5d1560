package blob

import (
	"fmt"
	"io"
	"os/exec"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jobevent/jobevent/internal/blobtest"
	"github.com/jobevent/jobevent/internal/blobtest/gcstest"
	"github.com/jobevent/jobevent/pkg/format"
)

// The cloud benchmarks run the event store against every backend: mem,
// file, and the emulators (gofakes3 and fake-gcs-server in process,
// Azurite when azurite-blob is on PATH). bench/cloud.sh runs them and
// prints a table; run one with e.g.
//
//	go test -run '^$' -bench 'BenchmarkCloudSegmentWrite/s3' -benchtime 200x ./pkg/blob/

// benchBackend is one backend of the cloud benchmarks.
type benchBackend struct {
	name   string
	newLog func(b *testing.B, name string) string // URL of a new, empty log
}

// benchBackends starts the servers the backends need for b. Azure is left
// out, with a note, when azurite-blob is not on PATH.
func benchBackends(b *testing.B) []benchBackend {
	dir := b.TempDir()
	s3 := blobtest.NewS3Server(b).Bucket(b)
	gs := gcstest.NewServer(b).Bucket(b)
	backends := []benchBackend{
		{"mem", func(b *testing.B, name string) string { return "mem://bench-" + name }},
		{"file", func(b *testing.B, name string) string { return "file://" + dir + "?prefix=" + name + "/" }},
		{"s3", func(b *testing.B, name string) string { return blobtest.WithPrefix(s3, name+"/") }},
		{"gs", func(b *testing.B, name string) string { return blobtest.WithPrefix(gs, name+"/") }},
	}
	if _, err := exec.LookPath("azurite-blob"); err == nil {
		az := blobtest.NewAzurite(b).Bucket(b)
		backends = append(backends, benchBackend{"azblob", func(b *testing.B, name string) string { return blobtest.WithPrefix(az, name+"/") }})
	} else {
		b.Log("azblob: azurite-blob not on PATH; skipped")
	}
	return backends
}

func benchCreate(b *testing.B, url string) *Log {
	l, err := Create(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	return l
}

// BenchmarkCloudSegmentWrite measures the latency of one segment upload
// (1,000 events, about 10 KB: one flush of a busy master) as the Writer
// makes it: a fencing check (a listing of epochs/) and a conditional
// upload. It reports the p50 and p99 of the iterations.
func BenchmarkCloudSegmentWrite(b *testing.B) {
	pool := genEvents(1000, 21)
	for _, be := range benchBackends(b) {
		b.Run(be.name, func(b *testing.B) {
			l := benchCreate(b, be.newLog(b, fmt.Sprintf("write-%d", time.Now().UnixNano())))
			if err := l.ClaimEpoch(ctx, EpochInfo{Epoch: 1, Master: "bench", StartSeq: 1}); err != nil {
				b.Fatal(err)
			}
			w := l.NewWriter(1, 1, WriterOptions{FlushInterval: -1, BufferSize: 64 << 20})
			defer w.Close()
			var lat []time.Duration
			for b.Loop() {
				for _, e := range pool {
					w.Append(e)
				}
				start := time.Now()
				if err := w.Flush(ctx); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			slices.Sort(lat)
			b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
			b.ReportMetric(ms(lat[min(len(lat)-1, len(lat)*99/100)]), "p99-ms")
		})
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BenchmarkCloudRead1M reads a log of 1M events, written by the Writer
// with the default 1 MiB buffer, from start to end.
func BenchmarkCloudRead1M(b *testing.B) {
	if testing.Short() {
		b.Skip("writes 1M events per backend")
	}
	pool := genEvents(8192, 1)
	for _, be := range benchBackends(b) {
		b.Run(be.name, func(b *testing.B) {
			l := benchCreate(b, be.newLog(b, fmt.Sprintf("read1m-%d", time.Now().UnixNano())))
			writeStream(b, l, pool)
			segs, err := l.Segments(ctx)
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			start := time.Now()
			for b.Loop() {
				n++
				if got := readCount(b, l); got != benchEvents {
					b.Fatalf("read %d events, want %d", got, benchEvents)
				}
			}
			b.ReportMetric(float64(benchEvents*n)/time.Since(start).Seconds(), "events/s")
			b.ReportMetric(float64(len(segs)), "segments")
		})
	}
}

// readCount reads the whole log and returns the number of events.
func readCount(b *testing.B, l *Log) int {
	r, err := l.NewReader(ctx, ReaderOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	count := 0
	for {
		_, err := r.Next()
		if err == io.EOF {
			return count
		}
		if err != nil {
			b.Fatal(err)
		}
		count++
	}
}

// segmentsPerLog are the log sizes of BenchmarkCloudReadSegments.
var segmentsPerLog = []int{100, 1000, 10_000}

// BenchmarkCloudReadSegments reads a finished log of 100, 1,000 and
// 10,000 segments of 10 events each (a quiet master flushing every
// second) from start to end, before and after Compact; "list" times the
// listing alone (S3 pages through 1,000 keys at a time), "compact" the
// compaction itself.
func BenchmarkCloudReadSegments(b *testing.B) {
	if testing.Short() {
		b.Skip("writes 10,000 segments per backend")
	}
	for _, be := range benchBackends(b) {
		for _, n := range segmentsPerLog {
			b.Run(fmt.Sprintf("%s/%d", be.name, n), func(b *testing.B) {
				l := benchCreate(b, be.newLog(b, fmt.Sprintf("segs-%d-%d", n, time.Now().UnixNano())))
				events := tinySegments(b, l, n)
				b.Run("list", func(b *testing.B) {
					for b.Loop() {
						if segs, err := l.Segments(ctx); err != nil || len(segs) != n {
							b.Fatalf("listed %d segments (%v), want %d", len(segs), err, n)
						}
					}
				})
				b.Run("before", func(b *testing.B) { benchRead(b, l, events) })
				b.Run("compact", func(b *testing.B) {
					for b.Loop() {
						res, err := Compact(ctx, l, CompactOptions{})
						if err != nil {
							b.Fatal(err)
						}
						if res.SegmentsBefore == n {
							b.ReportMetric(float64(res.SegmentsAfter), "segments-after")
						}
					}
				})
				b.Run("after", func(b *testing.B) { benchRead(b, l, events) })
			})
		}
	}
}

func benchRead(b *testing.B, l *Log, events int) {
	for b.Loop() {
		if got := readCount(b, l); got != events {
			b.Fatalf("read %d events, want %d", got, events)
		}
	}
}

// tinySegments writes a finished log of n segments of 10 events, eight
// uploads at a time, and returns the number of events.
func tinySegments(b *testing.B, l *Log, n int) int {
	const per = 10
	if err := l.ClaimEpoch(ctx, EpochInfo{Epoch: 1, Master: "bench", StartSeq: 1}); err != nil {
		b.Fatal(err)
	}
	events := numbered(genEvents(n*per, 22), 1, 1)
	events[len(events)-1] = format.Event{Seq: int64(n * per), Epoch: 1, Kind: format.KindJobFinished, Job: "wordcount", Status: "finished"}
	next := make(chan int)
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if _, err := l.WriteSegment(ctx, events[i*per:(i+1)*per]); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := range n {
		select {
		case next <- i:
		case err := <-errs:
			b.Fatal(err)
		}
	}
	close(next)
	wg.Wait()
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
	return len(events)
}
