package format

import (
	"bytes"
	"io"
	"testing"

	"github.com/jobevent/jobevent/internal/cputime"
)

const benchEvents = 100_000

// throughput reports events per wall second and per CPU second of the
// benchmark loop; it starts measuring when called and reports when the
// returned function is called.
func throughput(b *testing.B) func(events int) {
	cpu0 := cputime.Process()
	return func(events int) {
		total := float64(events) * float64(b.N)
		b.ReportMetric(total/b.Elapsed().Seconds(), "events/s")
		if cpu := cputime.Process() - cpu0; cpu > 0 {
			b.ReportMetric(total/cpu.Seconds(), "events/cpu-s")
		}
	}
}

// segmentSizes are the segment sizes benchmarked: a typical flush of the
// writer and a compacted segment.
var segmentSizes = []struct {
	name string
	n    int
}{{"1k", 1_000}, {"100k", benchEvents}}

func BenchmarkEncodeSegment(b *testing.B) {
	for _, size := range segmentSizes {
		b.Run(size.name, func(b *testing.B) {
			events := realisticEvents(size.n, 1)
			var buf bytes.Buffer
			b.ReportAllocs()
			report := throughput(b)
			for b.Loop() {
				buf.Reset()
				if err := EncodeSegment(&buf, events); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(buf.Len())/float64(size.n), "B/event")
			report(size.n)
		})
	}
}

func BenchmarkDecodeSegment(b *testing.B) {
	for _, size := range segmentSizes {
		b.Run(size.name, func(b *testing.B) {
			data := encode(b, realisticEvents(size.n, 1))
			buf := make([]Event, segmentBatch)
			b.ReportAllocs()
			report := throughput(b)
			for b.Loop() {
				sr, err := OpenSegment(data)
				if err != nil {
					b.Fatal(err)
				}
				total := 0
				for {
					n, err := sr.Read(buf)
					total += n
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				if total != size.n {
					b.Fatalf("decoded %d events, want %d", total, size.n)
				}
			}
			b.ReportMetric(float64(len(data))/float64(size.n), "B/event")
			report(size.n)
		})
	}
}

func BenchmarkAppendJSON(b *testing.B) {
	events := realisticEvents(benchEvents, 1)
	var dst []byte
	b.ReportAllocs()
	report := throughput(b)
	for b.Loop() {
		dst = dst[:0]
		for i := range events {
			dst = AppendJSON(dst, &events[i])
		}
	}
	b.ReportMetric(float64(len(dst))/benchEvents, "B/event")
	report(benchEvents)
}

func BenchmarkJSONReader(b *testing.B) {
	benchJSONReader(b, func(r io.Reader) eventSource { return NewJSONReader(r) })
}

// eventSource is what the JSON lines benchmarks read.
type eventSource interface{ Next() (Event, error) }

// benchJSONReader reads realistic events as JSON lines through the reader
// that open returns.
func benchJSONReader(b *testing.B, open func(io.Reader) eventSource) {
	events := realisticEvents(benchEvents, 1)
	data := encodeJSON(events)
	b.ReportAllocs()
	report := throughput(b)
	for b.Loop() {
		r := open(bytes.NewReader(data))
		for {
			if _, err := r.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
	report(benchEvents)
}
