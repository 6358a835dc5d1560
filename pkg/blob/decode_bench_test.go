package blob

import (
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/jobevent/jobevent/internal/loggen"
	"github.com/jobevent/jobevent/pkg/format"
)

// BenchmarkReader_Ways reads a 500k-event generated log (segments of 100k
// events, mem://) each way a command reads: every field event by event,
// by batches, a two-column count (bytes_out) by batches; decoding inline
// (the reader's goroutine alone) and on 1, 2 and 4 workers ahead. Rates
// are per wall second (bench/read.sh, which also gives CPU seconds,
// runs the same reads beside DuckDB on a 1M-event log).
func BenchmarkReader_Ways(b *testing.B) {
	o := loggen.BenchOptions(7, 50_000, 500_000)
	o.Failovers = 0 // one epoch: segments written as they come
	events := loggen.Events(o)
	l, err := Create(ctx, uniqueMem("bench-ways"))
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	for i := 0; i < len(events); i += 100_000 {
		if _, err := l.WriteSegment(ctx, events[i:min(i+100_000, len(events))]); err != nil {
			b.Fatal(err)
		}
	}
	ways := []struct {
		name    string
		batches bool
		fields  format.Fields
	}{{"next", false, 0}, {"batches", true, 0}, {"count", true, format.FieldBytesOut}}
	for _, w := range ways {
		for _, workers := range []int{0, 1, 2, 4} {
			name := fmt.Sprintf("%s/workers=%d", w.name, workers)
			if workers == 0 {
				name = w.name + "/inline"
			}
			b.Run(name, func(b *testing.B) {
				opts := ReaderOptions{Fields: w.fields, DecodeWorkers: workers, inline: workers == 0}
				start := time.Now()
				for b.Loop() {
					if n := readEvents(b, l, opts, w.batches); n != len(events) {
						b.Fatalf("read %d events, want %d", n, len(events))
					}
				}
				total := float64(len(events) * b.N)
				b.ReportMetric(total/time.Since(start).Seconds(), "events/s")
			})
		}
	}
}

// readEvents reads l with opts, by batches or event by event, and returns the
// number of events.
func readEvents(b *testing.B, l *Log, opts ReaderOptions, batches bool) int {
	r, err := l.NewReader(ctx, opts)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	n := 0
	for {
		var err error
		if batches {
			var batch []format.Event
			batch, err = r.NextBatch()
			n += len(batch)
		} else if _, err = r.Next(); err == nil {
			n++
		}
		if errors.Is(err, io.EOF) {
			return n
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}
