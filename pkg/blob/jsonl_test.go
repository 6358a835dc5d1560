package blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobevent/jobevent/pkg/format"
)

// span is a run of events of one epoch: one segment on a bucket, lines
// in a JSONL file.
type span struct {
	epoch int32
	first int64
	n     int
}

// sameAsBucketCases are logs written by masters that failed over, or
// damaged, each read as a bucket log and as a JSONL file. Epochs have no
// epoch objects, so that an epoch starts at its first event on both.
var sameAsBucketCases = []struct {
	name  string
	spans []span
	gap   string // the SeqGapError both readers end with; "" for none
}{
	{name: "one epoch", spans: []span{{1, 1, 20}}},
	{name: "fenced rows", spans: []span{{1, 1, 20}, {1, 21, 10}, {2, 26, 15}}},
	{name: "fenced segment", spans: []span{{1, 1, 20}, {1, 21, 5}, {2, 21, 10}}},
	{name: "two failovers", spans: []span{{1, 1, 10}, {2, 9, 10}, {3, 15, 10}}},
	{name: "epoch missing between", spans: []span{{1, 1, 10}, {3, 8, 10}}},
	{name: "gap", spans: []span{{1, 1, 10}, {1, 12, 5}}, gap: "seq 11 missing before seq 12"},
	{name: "gap at failover", spans: []span{{1, 1, 10}, {2, 13, 5}}, gap: "seq 11 to 12 missing before seq 13"},
	{name: "first seq not 1", spans: []span{{1, 3, 10}}, gap: "seq 1 to 2 missing before seq 3"},
	// Epoch 3 starts before epoch 2: epoch 1 is fenced at epoch 2's start
	// (the next epoch), not at epoch 3's, so seq 5 of epoch 3 repeats one
	// kept.
	{name: "later epoch starts earlier", spans: []span{{1, 1, 10}, {2, 8, 5}, {3, 5, 10}}, gap: "seq 5 follows seq 7 (duplicate or out of order)"},
}

// TestJSONLReader_SameAsBucket checks that the fencing and gap rules of a
// JSONL file are those of a bucket log: the same events read the same
// (events kept, rows fenced per epoch, the gap found) either way.
func TestJSONLReader_SameAsBucket(t *testing.T) {
	for _, tc := range sameAsBucketCases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			var all []format.Event
			l := memLog(t)
			for i, s := range tc.spans {
				events := numbered(genEvents(s.n, uint64(i)), s.epoch, s.first)
				if _, err := l.WriteSegment(ctx, events); err != nil {
					t.Fatal(err)
				}
				all = append(all, events...)
			}
			r, err := l.NewReader(ctx, ReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			bucket := drain(t, r)

			jr, err := NewJSONLReader(bytes.NewReader(jsonl(all)), "log.jsonl", JSONLOptions{})
			if err != nil {
				t.Fatal(err)
			}
			file := drain(t, jr)

			assertEvents(t, file.events, bucket.events)
			if got, want := fmt.Sprint(file.fenced), fmt.Sprint(bucket.fenced); got != want {
				t.Fatalf("JSONL fenced rows by epoch = %s, want %s (the bucket's)", got, want)
			}
			for _, res := range []drained{bucket, file} {
				if got := gapOf(t, res.err); got != tc.gap {
					t.Fatalf("gap = %q, want %q", got, tc.gap)
				}
			}
			if tc.gap != "" && !strings.HasPrefix(file.err.Error(), "log.jsonl: ") {
				t.Fatalf("err = %v, want it to name log.jsonl", file.err)
			}
		})
	}
}

// drained is what a reader returned, read to its end.
type drained struct {
	events  []format.Event
	notices []format.Notice
	fenced  map[int32]int64 // rows by epoch
	err     error           // other than io.EOF
}

type eventReader interface {
	Next() (format.Event, error)
	Notices() []format.Notice
}

func drain(t *testing.T, r eventReader) drained {
	t.Helper()
	d := drained{fenced: make(map[int32]int64)}
	for {
		e, err := r.Next()
		if err != nil {
			if err != io.EOF {
				d.err = err
			}
			break
		}
		d.events = append(d.events, e)
	}
	d.notices = r.Notices()
	for _, n := range d.notices {
		if n.Kind == format.NoticeFenced {
			d.fenced[n.Epoch] += n.Count
		}
	}
	return d
}

// gapOf returns the SeqGapError that err, a *CorruptError, wraps; "" for
// nil.
func gapOf(t *testing.T, err error) string {
	t.Helper()
	var ce *CorruptError
	switch {
	case err == nil:
		return ""
	case !errors.As(err, &ce) || !errors.Is(err, ErrSeqGap):
		t.Fatalf("err = %v, want a *CorruptError wrapping ErrSeqGap", err)
	}
	return strings.TrimPrefix(ce.Err.Error(), ErrSeqGap.Error()+": ")
}

// jsonl encodes events as canonical JSONL.
func jsonl(events []format.Event) []byte {
	var b []byte
	for i := range events {
		b = format.AppendJSON(b, &events[i]) // '\n' included
	}
	return b
}

// TestJSONLReader_FencedNotices: a run of fenced rows is one notice naming
// the file, the run and the epoch that took over, whatever order the
// lines are in.
func TestJSONLReader_FencedNotices(t *testing.T) {
	epoch1 := numbered(genEvents(12, 1), 1, 1)
	epoch2 := numbered(genEvents(5, 2), 2, 10)
	lines := append(append([]format.Event(nil), epoch1[:9]...), epoch2...)
	lines = append(lines, epoch1[9:]...) // the fenced rows last
	r, err := NewJSONLReader(bytes.NewReader(jsonl(lines)), "x.jsonl", JSONLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := drain(t, r)
	if d.err != nil {
		t.Fatal(d.err)
	}
	checkSeqs(t, d.events, 1, 14)
	n := d.notices
	want := "3 rows of fenced epoch 1 from seq 10 (epoch 2 starts at seq 10); filtered"
	if len(n) != 1 || n[0].Key != "x.jsonl" || n[0].Seq != 10 || n[0].Count != 3 || n[0].Message != want {
		t.Fatalf("notices = %+v, want one: %s", n, want)
	}
}

// TestJSONLReader_Refused: what a JSONL log is refused for, and AnySeq.
func TestJSONLReader_Refused(t *testing.T) {
	dir := t.TempDir()
	if _, err := OpenJSONL(filepath.Join(dir, "none.jsonl"), JSONLOptions{}); !errors.Is(err, ErrNoLog) {
		t.Fatalf("missing file: err = %v, want ErrNoLog", err)
	}
	empty := filepath.Join(dir, "empty.jsonl")
	if err := os.WriteFile(empty, []byte("\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenJSONL(empty, JSONLOptions{}); !errors.Is(err, ErrNoLog) || err.Error() != "no event log at "+empty {
		t.Fatalf("empty file: err = %v, want no event log at %s", err, empty)
	}

	zero := numbered(genEvents(3, 1), 1, 0)
	_, err := NewJSONLReader(bytes.NewReader(jsonl(zero)), "zero.jsonl", JSONLOptions{})
	if want := "zero.jsonl: event 1 (job_submitted): seq 0: want a seq >= 1"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("seq 0: err = %v, want %s...", err, want)
	}
	r, err := NewJSONLReader(bytes.NewReader(jsonl(zero)), "zero.jsonl", JSONLOptions{AnySeq: true})
	if err != nil {
		t.Fatal(err)
	}
	if d := drain(t, r); d.err != nil || len(d.events) != 3 {
		t.Fatalf("AnySeq: %d events, err %v; want 3, nil", len(d.events), d.err)
	}

	bad := append(jsonl(numbered(genEvents(2, 1), 1, 1)), "{\"kind\":\"nope\"}\n"...)
	r, err = NewJSONLReader(bytes.NewReader(bad), "bad.jsonl", JSONLOptions{})
	if err != nil {
		t.Fatalf("a bad line is Next's error, got %v from NewJSONLReader", err)
	}
	d := drain(t, r)
	if len(d.events) != 2 || !errors.Is(d.err, format.ErrSyntax) || !strings.HasPrefix(d.err.Error(), "bad.jsonl: line 3: ") {
		t.Fatalf("bad line: %d events, err %v; want 2 and a syntax error on bad.jsonl line 3", len(d.events), d.err)
	}
}

// FuzzJSONLReader: no input makes the JSONL reader panic, and what it
// keeps counts up by one from seq 1.
func FuzzJSONLReader(f *testing.F) {
	for _, tc := range sameAsBucketCases {
		var all []format.Event
		for i, s := range tc.spans {
			all = append(all, numbered(genEvents(min(s.n, 4), uint64(i)), s.epoch, s.first)...)
		}
		f.Add(jsonl(all))
	}
	f.Add([]byte("{\"kind\":\"master_started\",\"epoch\":2}\n{\"kind\":\"master_started\",\"epoch\":1,\"seq\":1}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, anySeq := range []bool{false, true} {
			r, err := NewJSONLReader(bytes.NewReader(data), "fuzz.jsonl", JSONLOptions{AnySeq: anySeq})
			if err != nil {
				continue
			}
			last := int64(0)
			for {
				e, err := r.Next()
				if err != nil {
					break
				}
				if !anySeq && e.Seq != last+1 {
					t.Fatalf("seq %d returned after seq %d", e.Seq, last)
				}
				last = e.Seq
			}
			r.Notices()
		}
	})
}
