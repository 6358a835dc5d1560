package format_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/jobevent/jobevent/internal/loggen"
	"github.com/jobevent/jobevent/pkg/format"
)

// BenchmarkEncodeSegment_LogMix encodes 100k-event segments of the log
// that bench/log.sh writes through the store (loggen's benchmark job at a
// failure rate of 0.1): the encoder's share of the store's write figure.
func BenchmarkEncodeSegment_LogMix(b *testing.B) {
	const n = 100_000
	o := loggen.BenchOptions(1, n/2, n)
	o.FailureRate, o.SnapshotEvery = 0.1, 8
	g := loggen.Job(o)
	events := make([]format.Event, 0, n)
	for {
		e, err := g.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		events = append(events, e)
	}
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := format.EncodeSegment(&buf, events); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len())/float64(len(events)), "B/event")
	b.ReportMetric(float64(len(events))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
