package format

import (
	"bytes"
	"io"
	"testing"
)

const benchEvents = 100_000

func BenchmarkEncodeSegment(b *testing.B) {
	events := realisticEvents(benchEvents, 1)
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := EncodeSegment(&buf, events); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len())/benchEvents, "B/event")
	b.ReportMetric(float64(benchEvents*b.N)/b.Elapsed().Seconds(), "events/s")
}

func BenchmarkDecodeSegment(b *testing.B) {
	data := encode(b, realisticEvents(benchEvents, 1))
	buf := make([]Event, segmentBatch)
	b.ReportAllocs()
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
		if total != benchEvents {
			b.Fatalf("decoded %d events, want %d", total, benchEvents)
		}
	}
	b.ReportMetric(float64(len(data))/benchEvents, "B/event")
	b.ReportMetric(float64(benchEvents*b.N)/b.Elapsed().Seconds(), "events/s")
}

func BenchmarkAppendJSON(b *testing.B) {
	events := realisticEvents(benchEvents, 1)
	var dst []byte
	b.ReportAllocs()
	for b.Loop() {
		dst = dst[:0]
		for i := range events {
			dst = AppendJSON(dst, &events[i])
		}
	}
	b.ReportMetric(float64(len(dst))/benchEvents, "B/event")
	b.ReportMetric(float64(benchEvents*b.N)/b.Elapsed().Seconds(), "events/s")
}

func BenchmarkJSONReader(b *testing.B) {
	events := realisticEvents(benchEvents, 1)
	data := encodeJSON(events)
	b.ReportAllocs()
	for b.Loop() {
		r := NewJSONReader(bytes.NewReader(data))
		for {
			if _, err := r.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(benchEvents*b.N)/b.Elapsed().Seconds(), "events/s")
}
