package format

import (
	"errors"
	"io"
	"reflect"
	"testing"
)

// projections are the field sets tested: what the commands ask for, and
// single fields.
var projections = []Fields{
	AllFields,
	0, // seq only
	FieldKind,
	FieldEpoch | FieldBytesOut,
	FieldSeq | FieldEpoch | FieldKind | FieldGraph | FieldRecovering | FieldVertex | FieldSubtask |
		FieldParallelism | FieldAttempt | FieldPartitions | FieldSubtasks | FieldCoordinators | FieldStatus,
	FieldTime | FieldJob | FieldMaster | FieldWorker | FieldError | FieldReason,
	FieldRecordsIn | FieldRecordsOut | FieldBytesIn,
}

// project returns e with the fields outside fs (and seq kept)
// zeroed: what a reader projected on fs returns.
func project(e Event, fs Fields) Event {
	fs |= FieldSeq
	var p Event
	keep := func(f Fields, copyField func()) {
		if fs&f != 0 {
			copyField()
		}
	}
	keep(FieldSeq, func() { p.Seq = e.Seq })
	keep(FieldTime, func() { p.Time = e.Time })
	keep(FieldEpoch, func() { p.Epoch = e.Epoch })
	keep(FieldKind, func() { p.Kind = e.Kind })
	keep(FieldJob, func() { p.Job = e.Job })
	keep(FieldGraph, func() { p.Graph = e.Graph })
	keep(FieldMaster, func() { p.Master = e.Master })
	keep(FieldRecovering, func() { p.Recovering = e.Recovering })
	keep(FieldVertex, func() { p.Vertex = e.Vertex })
	keep(FieldSubtask, func() { p.Subtask = e.Subtask })
	keep(FieldParallelism, func() { p.Parallelism = e.Parallelism })
	keep(FieldAttempt, func() { p.Attempt = e.Attempt })
	keep(FieldWorker, func() { p.Worker = e.Worker })
	keep(FieldRecordsIn, func() { p.RecordsIn = e.RecordsIn })
	keep(FieldRecordsOut, func() { p.RecordsOut = e.RecordsOut })
	keep(FieldBytesIn, func() { p.BytesIn = e.BytesIn })
	keep(FieldBytesOut, func() { p.BytesOut = e.BytesOut })
	keep(FieldPartitions, func() { p.Partitions = e.Partitions })
	keep(FieldError, func() { p.Error = e.Error })
	keep(FieldSubtasks, func() { p.Subtasks = e.Subtasks })
	keep(FieldReason, func() { p.Reason = e.Reason })
	keep(FieldCoordinators, func() { p.Coordinators = e.Coordinators })
	keep(FieldStatus, func() { p.Status = e.Status })
	return p
}

// decodeProjected reads data whole with the projection fs, in reads of
// batch events.
func decodeProjected(data []byte, fs Fields, batch int) ([]Event, error) {
	sr, err := OpenSegment(data)
	if err != nil {
		return nil, err
	}
	sr.Project(fs)
	return readRest(sr, batch)
}

// readRest reads the rest of sr in reads of batch events.
func readRest(sr *SegmentReader, batch int) ([]Event, error) {
	buf := make([]Event, batch)
	var all []Event
	for {
		n, err := sr.Read(buf)
		all = append(all, buf[:n]...)
		if errors.Is(err, io.EOF) {
			return all, nil
		}
		if err != nil {
			return all, err
		}
	}
}

// checkProjections requires every projection of data to read the full
// decode's events with the other fields zero, or, when the full decode
// fails, the projected reads to succeed or fail without panicking.
func checkProjections(t *testing.T, data []byte, batches ...int) {
	t.Helper()
	full, fullErr := decodeAll(data)
	for _, fs := range projections {
		for _, batch := range batches {
			got, err := decodeProjected(data, fs, batch)
			if fullErr != nil {
				// Which column fails first depends on how many rows a
				// read decodes at a time: compare at the full decode's.
				if fs == AllFields && batch >= segmentBatch && (err == nil || err.Error() != fullErr.Error()) {
					t.Fatalf("all fields, batch %d: error %v, want %v", batch, err, fullErr)
				}
				continue
			}
			if err != nil {
				t.Fatalf("fields %s, batch %d: %v", fs, batch, err)
			}
			if len(got) != len(full) {
				t.Fatalf("fields %s, batch %d: %d events, want %d", fs, batch, len(got), len(full))
			}
			for i := range full {
				if want := project(full[i], fs); !reflect.DeepEqual(got[i], want) {
					t.Fatalf("fields %s, batch %d, event %d:\n got %#v\nwant %#v", fs, batch, i, got[i], want)
				}
				if !reflect.DeepEqual(full[i].Project(fs), got[i]) {
					t.Fatalf("fields %s: Event.Project of event %d differs from the projected read", fs, i)
				}
			}
		}
	}
}

func TestSegmentReader_Project(t *testing.T) {
	batches := []int{1, 7, segmentBatch, 1000}
	checkProjections(t, encode(t, sampleEvents()), batches...)
	checkProjections(t, encode(t, realisticEvents(3000, 7)), batches...)
}

// TestSegmentReader_ReusedBuffer: a read writes every field it decodes in
// every row, the NULL lists too, so that a buffer read into again holds
// nothing of the events read into it before. The sample's 17 events,
// lists of every kind among them, repeated, fall in every slot of a
// buffer in turn.
func TestSegmentReader_ReusedBuffer(t *testing.T) {
	var events []Event
	for len(events) < 3*segmentBatch {
		for _, e := range sampleEvents() {
			e.Seq = int64(len(events) + 1)
			events = append(events, e)
		}
	}
	data := encode(t, events)
	got, err := decodeProjected(data, AllFields, 10)
	if err != nil {
		t.Fatal(err)
	}
	if want := normalized(events); !reflect.DeepEqual(got, want) {
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("event %d read into a used buffer:\n got %#v\nwant %#v", i, got[i], want[i])
			}
		}
		t.Fatalf("read %d events, want %d", len(got), len(want))
	}
	checkProjections(t, data, 1, 7, 10, segmentBatch, 1000)
}

// TestSegmentReader_ProjectAfterRead checks that a projection asked for
// after the first read changes nothing.
func TestSegmentReader_ProjectAfterRead(t *testing.T) {
	data := encode(t, realisticEvents(600, 3))
	events, err := decodeAll(data)
	if err != nil {
		t.Fatal(err)
	}
	sr, err := OpenSegment(data)
	if err != nil {
		t.Fatal(err)
	}
	first, err := sr.Next()
	if err != nil {
		t.Fatal(err)
	}
	sr.Project(FieldEpoch)
	rest, err := readRest(sr, 100)
	if err != nil {
		t.Fatal(err)
	}
	got := append([]Event{first}, rest...)
	if !reflect.DeepEqual(got, events) {
		t.Fatalf("events read after a late Project differ from the full decode")
	}
}

func TestParseFields(t *testing.T) {
	fs, err := ParseFields("seq", "bytes_out", " epoch")
	if err != nil {
		t.Fatal(err)
	}
	if want := FieldSeq | FieldEpoch | FieldBytesOut; fs != want {
		t.Fatalf("fields = %s, want %s", fs, want)
	}
	if got := AllFields.String(); got != "seq,time,epoch,kind,job,graph,master,recovering,vertex,subtask,parallelism,attempt,worker,records_in,records_out,bytes_in,bytes_out,partitions,error,subtasks,reason,coordinators,status" {
		t.Fatalf("AllFields = %s", got)
	}
	if _, err := ParseFields("bytes"); err == nil {
		t.Fatal("ParseFields(bytes): no error")
	}
}

// FuzzProjection checks that a projected read of any input never panics
// and, where the full decode succeeds, returns its events with the other
// fields zero.
func FuzzProjection(f *testing.F) {
	segmentSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		// One read size: a damaged footer can claim many rows.
		checkProjections(t, data, segmentBatch)
		if sealed, ok := resealed(data); ok {
			checkProjections(t, sealed, segmentBatch)
		}
	})
}

// BenchmarkDecodeSegment_Projected decodes 100k-event segments with the
// projections of the commands: two columns of a count/sum query (seq and
// kind come with them), and validate's.
func BenchmarkDecodeSegment_Projected(b *testing.B) {
	data := encode(b, realisticEvents(benchEvents, 1))
	for _, p := range []struct {
		name string
		fs   Fields
	}{{"bytes_out", FieldEpoch | FieldBytesOut}, {"validate", projections[3]}, {"all", AllFields}} {
		b.Run(p.name, func(b *testing.B) {
			b.ReportAllocs()
			report := throughput(b)
			buf := make([]Event, segmentBatch)
			for b.Loop() {
				sr, err := OpenSegment(data)
				if err != nil {
					b.Fatal(err)
				}
				sr.Project(p.fs)
				for err == nil {
					_, err = sr.Read(buf)
				}
				if err != io.EOF {
					b.Fatal(err)
				}
			}
			report(benchEvents)
		})
	}
}
