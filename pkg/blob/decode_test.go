package blob

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/jobevent/jobevent/internal/loggen"
	"github.com/jobevent/jobevent/pkg/format"
)

// The decoding pipeline, the batches and the projection are checked
// against the reference: the same reader decoding each segment in its own
// goroutine, whole, event by event (ReaderOptions.inline), on generated
// logs of several shapes and segment sizes, damaged in the ways the
// reader rules name. Events, notices and errors must be the same, in the
// same order: a trace of what a caller sees.

// writeLog writes events as segments of at most per events, never across
// an epoch, claiming each epoch at its first seq, and returns the keys.
func writeLog(t *testing.T, l *Log, events []format.Event, per int) []string {
	t.Helper()
	var keys []string
	for i := 0; i < len(events); {
		j := i + 1
		for j < len(events) && j-i < per && events[j].Epoch == events[i].Epoch {
			j++
		}
		if i == 0 || events[i].Epoch != events[i-1].Epoch {
			claim(t, l, events[i].Epoch, events[i].Seq)
		}
		key, err := l.WriteSegment(ctx, events[i:j])
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, key)
		i = j
	}
	return keys
}

// readWay is one way of reading a log.
type readWay struct {
	name    string
	workers int
	batches bool
	fields  format.Fields
	columns bool // a ColumnReader
	whole   bool // each segment decoded by one goroutine (ReaderOptions.whole)
}

var readWays = []readWay{
	{"next/2", 2, false, 0, false, false},
	{"batch/1", 1, true, 0, false, false},
	{"batch/2", 2, true, 0, false, false},
	{"batch/2/whole", 2, true, 0, false, true},
	{"batch/1/whole/validate", 1, true, format.FieldKind | format.FieldGraph | format.FieldVertex | format.FieldSubtask |
		format.FieldAttempt | format.FieldPartitions | format.FieldSubtasks | format.FieldStatus, false, true},
	{"batch/2/validate", 2, true, format.FieldKind | format.FieldGraph | format.FieldVertex | format.FieldSubtask |
		format.FieldAttempt | format.FieldPartitions | format.FieldSubtasks | format.FieldStatus, false, false},
	{"next/2/bytes_out", 2, false, format.FieldBytesOut, false, false},
	{"batch/2/bytes_out", 2, true, format.FieldBytesOut, false, false},
	{"columns/inline/bytes_out", -1, true, format.FieldBytesOut, true, false},
	{"columns/1/bytes_out", 1, true, format.FieldBytesOut, true, false},
	{"columns/2/bytes_out", 2, true, format.FieldBytesOut, true, false},
	{"columns/2/all", 2, true, format.ColumnFields, true, false},
}

// trace reads the log the way w says and returns what a caller sees:
// each call's notices, then its events (projected on fields), then the
// error that ended the read.
func trace(t *testing.T, l *Log, opts ReaderOptions, w readWay, fields format.Fields) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if w.columns {
		return traceColumns(t, ctx, l, opts, fields)
	}
	r, err := l.NewReader(ctx, opts)
	if err != nil {
		return []string{"open: " + err.Error()}
	}
	defer r.Close()
	var out []string
	seen := func(events ...format.Event) {
		for _, n := range r.Notices() {
			out = append(out, fmt.Sprintf("notice %+v", n))
		}
		for _, e := range events {
			j, err := json.Marshal(e.Project(fields))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, r.Key()+" "+string(j))
		}
	}
	for {
		var err error
		if w.batches {
			var b []format.Event
			b, err = r.NextBatch()
			if err == nil && len(b) == 0 {
				t.Fatalf("%s: an empty batch without an error", w.name)
			}
			seen(b...)
		} else {
			var e format.Event
			e, err = r.Next()
			if err == nil {
				seen(e)
			} else {
				seen()
			}
		}
		if err != nil {
			return append(out, "end: "+err.Error())
		}
	}
}

// checkWays requires every way of reading the log to trace as the
// reference does.
func checkWays(t *testing.T, name string, l *Log, opts ReaderOptions) {
	t.Helper()
	ref := opts
	ref.inline = true
	refs := make(map[format.Fields][]string)
	for _, w := range readWays {
		fields := format.AllFields
		if w.fields != 0 {
			fields = w.fields | format.FieldSeq | format.FieldEpoch
		}
		want, ok := refs[fields]
		if !ok {
			want = trace(t, l, ref, readWay{name: "reference"}, fields)
			refs[fields] = want
		}
		o := opts
		o.DecodeWorkers, o.Fields, o.whole = w.workers, w.fields, w.whole
		got := trace(t, l, o, w, fields)
		if !reflect.DeepEqual(got, want) {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			g, x := "(none)", "(none)"
			if i < len(got) {
				g = got[i]
			}
			if i < len(want) {
				x = want[i]
			}
			t.Fatalf("%s, %s, %+v: step %d of %d:\n got %s\nwant %s (of %d)", name, w.name, opts, i, len(got), g, x, len(want))
		}
	}
}

// damages are the ways a log is damaged, by its segment keys.
var damages = []struct {
	name string
	do   func(t *testing.T, l *Log, keys []string)
}{
	{"intact", func(*testing.T, *Log, []string) {}},
	{"torn tail", func(t *testing.T, l *Log, keys []string) { mangle(t, l, keys[len(keys)-1], truncateHalf) }},
	{"truncated middle", func(t *testing.T, l *Log, keys []string) { mangle(t, l, keys[len(keys)/2], truncateHalf) }},
	{"bit flip", func(t *testing.T, l *Log, keys []string) { mangle(t, l, keys[len(keys)/2], flipMiddle) }},
	{"missing segment", func(t *testing.T, l *Log, keys []string) {
		if err := l.Delete(ctx, keys[len(keys)/2]); err != nil {
			t.Fatal(err)
		}
	}},
	{"not parquet", func(t *testing.T, l *Log, keys []string) {
		mangle(t, l, keys[len(keys)/3], func([]byte) []byte { return []byte("hello\n") })
	}},
}

func TestReader_DecodeDifferential(t *testing.T) {
	shapes := []struct {
		name string
		o    loggen.Options
	}{
		{"clean", loggen.Options{Seed: 1, Vertices: 4, MaxParallelism: 30}},
		{"failures", loggen.Options{Seed: 2, Vertices: 6, MaxParallelism: 40, FailureRate: 0.3, PartitionLossRate: 0.05}},
		{"failovers", loggen.Options{Seed: 3, Vertices: 5, MaxParallelism: 50, FailureRate: 0.1, Failovers: 2, LoseWorkerOnFailover: true}},
		{"bench", loggen.BenchOptions(4, 400, 3000)},
	}
	sizes := []int{1, 7, 1500, 5000}
	if testing.Short() {
		sizes = []int{7, 1500}
	}
	for _, shape := range shapes {
		events := loggen.Events(shape.o)
		if len(events) < 50 {
			t.Fatalf("%s: %d events", shape.name, len(events))
		}
		for _, per := range sizes {
			for _, d := range damages {
				name := fmt.Sprintf("%s, %d events, segments of %d, %s", shape.name, len(events), per, d.name)
				l := memLog(t)
				evs := events
				if per == 1 {
					evs = events[:min(len(events), 200)] // a segment per event: 200 objects are enough
				}
				keys := writeLog(t, l, evs, per)
				d.do(t, l, keys)
				checkWays(t, name, l, ReaderOptions{})
				if d.name == "intact" || d.name == "bit flip" {
					checkWays(t, name, l, ReaderOptions{Since: int64(len(evs) / 3), Until: int64(len(evs) * 2 / 3)})
				}
			}
		}
	}
}

// TestReader_DecodeDifferentialFenced: rows of a fenced master and a
// segment covered by a compacted one read the same every way.
func TestReader_DecodeDifferentialFenced(t *testing.T) {
	events := loggen.Events(loggen.Options{Seed: 5, Vertices: 5, MaxParallelism: 40, Failovers: 1})
	second := -1
	for i := range events {
		if events[i].Epoch == 2 {
			second = i
			break
		}
	}
	if second < 10 {
		t.Fatalf("no second epoch (at %d)", second)
	}
	for _, per := range []int{3, 100, 2000} {
		l := memLog(t)
		writeLog(t, l, events, per)
		// A fenced master of epoch 1 went on writing after epoch 2 began.
		fenced := append([]format.Event(nil), events[second:second+20]...)
		for i := range fenced {
			fenced[i].Epoch = 1
		}
		if _, err := l.WriteSegment(ctx, append(append([]format.Event(nil), events[second-5:second]...), fenced...)); err != nil {
			t.Fatal(err)
		}
		// A compaction leftover that agrees with its cover.
		if _, err := l.WriteSegment(ctx, events[second+30:second+60]); err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("fenced and covered, segments of %d", per)
		checkWays(t, name, l, ReaderOptions{})
		checkWays(t, name, l, ReaderOptions{Since: int64(second - 2)})
	}
}

// TestReader_CloseStopsDecoding: a reader closed in the middle of a log,
// or whose context ends, leaves no goroutine behind.
func TestReader_CloseStopsDecoding(t *testing.T) {
	l := memLog(t)
	events := loggen.Events(loggen.BenchOptions(6, 4000, 20000))
	writeLog(t, l, events, 1000)
	before := runtime.NumGoroutine()
	for _, stopAfter := range []int{0, 1, 1500, 7000} {
		for _, cancelCtx := range []bool{false, true} {
			cctx, cancel := context.WithCancel(ctx)
			r, err := l.NewReader(cctx, ReaderOptions{DecodeWorkers: 2})
			if err != nil {
				t.Fatal(err)
			}
			for n := 0; n < stopAfter; {
				b, err := r.NextBatch()
				if err != nil {
					t.Fatal(err)
				}
				n += len(b)
			}
			if cancelCtx {
				cancel()
				if _, err := r.NextBatch(); !errors.Is(err, context.Canceled) && stopAfter > 0 {
					// a batch already decoded may still be handed out
					for err == nil {
						_, err = r.NextBatch()
					}
					if !errors.Is(err, context.Canceled) {
						t.Fatalf("after cancel: err = %v, want context.Canceled", err)
					}
				}
			}
			r.Close()
			cancel()
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines after the readers closed, %d before", n, before)
	}
}
