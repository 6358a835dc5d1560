package format

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"
	"time"
	"unicode/utf8"
)

// decodeJSONL decodes data until the first error and returns the events
// before it.
func decodeJSONL(data []byte) ([]Event, error) {
	r := NewJSONReader(bytes.NewReader(data))
	var out []Event
	for {
		e, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, e)
	}
}

func jsonSeeds(f *testing.F) {
	f.Add(encodeJSON(sampleEvents()))
	f.Add(encodeJSON(realisticEvents(40, 3)))
	f.Add([]byte(`{"kind":"job_submitted","job":"j","graph":{"vertices":[{"id":"a"}],"edges":[{"from":"a","to":"b"}]}}` + "\n" +
		`{"kind":"master_started"}` + "\n\n" + `{"kind":"snapshot","coordinators":{"a":"AAE="},"time":"2026-12-02T10:00:00.5+02:00"}`))
	f.Add([]byte(`{"kind":"subtask_finished","partitions":[],"subtask":1}`))
	f.Add([]byte(`{"kind":"subtask_failed","error":"\ud83d\ude00\u0000"}`))
	f.Add([]byte("{\"kind\":\"job_finished\",\"status\":\"a\xffb\"}\r\n"))
}

// FuzzJSONReader checks that no input panics and that whatever is accepted
// re-encodes canonically and decodes to the same events.
func FuzzJSONReader(f *testing.F) {
	jsonSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		events, err := decodeJSONL(data)
		var se *SyntaxError
		if err != nil && !errors.As(err, &se) {
			t.Fatalf("error %v is not a *SyntaxError", err)
		}
		canonical := encodeJSON(events)
		if !utf8.Valid(canonical) {
			t.Fatalf("canonical JSONL is not valid UTF-8: %q", canonical)
		}
		again, err := decodeJSONL(canonical)
		if err != nil {
			t.Fatalf("canonical JSONL does not decode: %v\n%s", err, canonical)
		}
		if !reflect.DeepEqual(again, events) {
			t.Fatalf("events change in a round trip:\n got %#v\nwant %#v", again, events)
		}
		if b := encodeJSON(again); !bytes.Equal(b, canonical) {
			t.Fatalf("canonical form is not a fixed point:\n%s\n%s", b, canonical)
		}
	})
}

// fuzzEvent builds an event of kind index k from fuzz arguments.
func fuzzEvent(k uint8, seq, nanos int64, epoch int32, s1, s2 string, n1 int32, n2 int64, flag bool, blob []byte) Event {
	e := Event{Seq: seq, Time: time.Unix(0, nanos).UTC(), Epoch: epoch, Kind: Kinds[int(k)%len(Kinds)], Job: s1}
	e.Graph = &Graph{
		Vertices: []Vertex{{ID: s1, Operator: s2, Parallelism: n1, MaxParallelism: -n1, Coordinator: s2}},
		Edges:    []Edge{{From: s1, To: s2, Pattern: s1}},
	}
	e.Master, e.Recovering = s2, flag
	e.Vertex, e.Subtask, e.Parallelism, e.Attempt, e.Worker = s1, n1, n1/2, n1/3, s2
	e.RecordsIn, e.RecordsOut, e.BytesIn, e.BytesOut = n2, -n2, n2/2, n2/3
	if flag {
		e.Partitions = []Partition{{Consumer: s2, Bytes: n2, Records: int64(n1)}}
	}
	e.Error, e.Reason, e.Status = s2, s1, s2
	e.Subtasks = []SubtaskRef{{Vertex: s2, Subtask: n1}}
	e.Coordinators = map[string][]byte{s1: blob, s2 + "x": nil}
	return e
}

// FuzzJSONRoundTrip checks Event → JSONL → Event: the line decodes, and to
// the normalized event when its strings are valid UTF-8; the decoded event
// re-encodes to the same line.
func FuzzJSONRoundTrip(f *testing.F) {
	f.Add(uint8(0), int64(1), int64(0), int32(1), "wordcount", "none", int32(2), int64(100), false, []byte("state"))
	f.Add(uint8(4), int64(99), int64(1<<62), int32(3), "src", "", int32(-1), int64(-7), true, []byte{})
	f.Add(uint8(5), int64(-5), int64(-1), int32(0), "ünï\"\\\n", "\x00\xff", int32(1<<30), int64(1<<62), true, []byte(nil))
	f.Fuzz(func(t *testing.T, k uint8, seq, nanos int64, epoch int32, s1, s2 string, n1 int32, n2 int64, flag bool, blob []byte) {
		e := fuzzEvent(k, seq, nanos, epoch, s1, s2, n1, n2, flag, blob)
		line := AppendJSON(nil, &e)
		got, err := decodeJSONL(line)
		if err != nil || len(got) != 1 {
			t.Fatalf("decode %s: %d events, %v", line, len(got), err)
		}
		if again := AppendJSON(nil, &got[0]); !bytes.Equal(again, line) {
			t.Fatalf("re-encoded line differs:\n got %s\nwant %s", again, line)
		}
		if utf8.ValidString(s1) && utf8.ValidString(s2) {
			want := e
			want.Normalize()
			if !reflect.DeepEqual(got[0], want) {
				t.Fatalf("decoded event differs:\n got %#v\nwant %#v", got[0], want)
			}
		}
	})
}

func segmentSeeds(f *testing.F) {
	valid := encode(f, sampleEvents())
	f.Add(valid)
	f.Add(encode(f, realisticEvents(300, 5)))
	f.Add(encode(f, nil))
	f.Add(valid[:len(valid)/2])
	f.Add([]byte("PAR1"))
	f.Add([]byte("PAR1\x00\x00\x00\x00PAR1"))
}

// resealed returns a copy of data with its checksum recomputed, when it has
// one, so that fuzzing reaches the Parquet decoder and not only the
// checksum.
func resealed(data []byte) ([]byte, bool) {
	if checkTail(data) != nil {
		return nil, false
	}
	off, err := checksumValue(data)
	if err != nil {
		return nil, false
	}
	out := bytes.Clone(data)
	copy(out[off:], checksumPlaceholder)
	if sealChecksum(out) != nil {
		return nil, false
	}
	return out, true
}

// checkDamaged requires that data decodes or fails with one of the
// segment errors, without panicking.
func checkDamaged(t *testing.T, data []byte) {
	_, err := decodeAll(data)
	var ve *VersionError
	if err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrNoFooter) && !errors.As(err, &ve) {
		t.Fatalf("error %v is none of ErrCorrupt, ErrNoFooter, *VersionError", err)
	}
}

// FuzzOpenSegment checks that no input panics OpenSegment or the reader,
// with the checksum as found and recomputed.
func FuzzOpenSegment(f *testing.F) {
	segmentSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDamaged(t, data)
		if sealed, ok := resealed(data); ok {
			checkDamaged(t, sealed)
		}
	})
}

// FuzzSegmentRoundTrip checks JSONL → Event → segment → Event: whatever
// the JSON reader accepts and a segment can hold comes back unchanged.
func FuzzSegmentRoundTrip(f *testing.F) {
	jsonSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		events, _ := decodeJSONL(data)
		var buf bytes.Buffer
		if err := EncodeSegment(&buf, events); err != nil {
			if errors.Is(err, ErrTimeRange) {
				return
			}
			t.Fatalf("EncodeSegment: %v", err)
		}
		got, err := decodeAll(buf.Bytes())
		if err != nil {
			t.Fatalf("decode segment: %v", err)
		}
		if len(got) == 0 && len(events) == 0 {
			return
		}
		for i := range events {
			if events[i].Time.IsZero() { // stored as the Unix epoch
				events[i].Time = unixEpoch
			}
		}
		if !reflect.DeepEqual(got, events) {
			t.Fatalf("segment round trip differs:\n got %#v\nwant %#v", got, events)
		}
	})
}
