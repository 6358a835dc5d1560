package format

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"testing"
	"time"
)

// streamed encodes events through a SegmentStream in runs of run events.
func streamed(t *testing.T, events []Event, run int) ([]byte, error) {
	t.Helper()
	var out bytes.Buffer
	s := NewSegmentStream(&out)
	for len(events) > 0 {
		n := min(run, len(events))
		if err := s.Write(events[:n]); err != nil {
			if cerr := s.Close(); cerr != err {
				t.Fatalf("Close after Write's error %v: %v", err, cerr)
			}
			return nil, err
		}
		events = events[n:]
	}
	err := s.Close()
	return out.Bytes(), err
}

// TestSegmentStream_SameBytes: a segment streamed in runs is the one
// EncodeSegment writes, across row groups and in both schema versions.
func TestSegmentStream_SameBytes(t *testing.T) {
	withDatasets := realisticEvents(3000, 8)
	withDatasets[0].Graph.Datasets = []Dataset{{ID: "d1", Producer: "source"}}
	cases := []struct {
		name   string
		events []Event
		run    int
	}{
		{"none", nil, SegmentRun},
		{"short", realisticEvents(10, 1), SegmentRun},
		{"runs of one batch", realisticEvents(5000, 2), SegmentRun},
		{"runs of 16 batches", realisticEvents(5000, 3), 16 * SegmentRun},
		{"two row groups", realisticEvents(rowGroupRows+5000, 4), 16 * SegmentRun},
		{"datasets", withDatasets, 4 * SegmentRun},
	}
	for _, c := range cases {
		got, err := streamed(t, c.events, c.run)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if want := encode(t, c.events); !bytes.Equal(got, want) {
			t.Errorf("%s: streamed %d bytes, EncodeSegment %d, or other bytes", c.name, len(got), len(want))
		}
	}
}

// TestSegmentStream_Errors: a stream reports EncodeSegment's errors, and
// refuses what it cannot write as EncodeSegment would.
func TestSegmentStream_Errors(t *testing.T) {
	events := realisticEvents(2000, 5)
	events[1500].Time = time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)
	_, err := streamed(t, events, 2*SegmentRun)
	var buf bytes.Buffer
	if want := EncodeSegment(&buf, events); err == nil || err.Error() != want.Error() {
		t.Fatalf("time out of range: err %v, want %v", err, want)
	}

	late := realisticEvents(2000, 6)
	late[1000].Graph = &Graph{Datasets: []Dataset{{ID: "d1"}}}
	late[1000].Kind = KindJobSubmitted
	if _, err := streamed(t, late, 2*SegmentRun); !errors.Is(err, ErrNotStreamable) {
		t.Fatalf("datasets after the first run: err %v, want ErrNotStreamable", err)
	}

	if _, err := streamed(t, realisticEvents(2000, 7), SegmentRun+1); err == nil {
		t.Fatalf("a run of %d events, then more: no error", SegmentRun+1)
	}
}

// TestSegmentStream_ListsStop: the goroutine that writes a stream's list
// columns has stopped, reading no more of the caller's events, once Close
// returns and once a Write fails (here on a time out of range, a run
// after the list columns started), so that the caller may reuse them.
func TestSegmentStream_ListsStop(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("the list columns are written by Write itself on one CPU")
	}
	if _, err := streamed(t, realisticEvents(5000, 9), 4*SegmentRun); err != nil {
		t.Fatal(err)
	}
	if n := listWriters.Load(); n != 0 {
		t.Fatalf("%d list writers still run after Close", n)
	}
	events := realisticEvents(6000, 10)
	events[5000].Time = time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)
	s := NewSegmentStream(io.Discard)
	var err error
	for i := 0; i < len(events) && err == nil; i += 4 * SegmentRun {
		err = s.Write(events[i:min(i+4*SegmentRun, len(events))])
		if err == nil && listWriters.Load() != 1 {
			t.Fatalf("%d list writers after a run, want 1", listWriters.Load())
		}
	}
	if err == nil {
		t.Fatal("no error for a time out of range")
	}
	if n := listWriters.Load(); n != 0 {
		t.Fatalf("%d list writers still run after Write failed", n)
	}
}
