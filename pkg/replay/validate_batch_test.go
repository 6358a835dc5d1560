package replay_test

import (
	"errors"
	"fmt"
	"io"
	"math/rand"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/jobevent/jobevent/internal/loggen"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// scripted is a log as a source hands it out: events in objects (a key
// every few events), a notice before some objects, and maybe an error
// after the last event. seqSource and batchSource play the same script,
// event by event and by batches.
type scripted struct {
	events  []format.Event
	keys    []string                // per event
	notices map[int][]format.Notice // before event i
	err     error                   // after the last event; nil: io.EOF
}

func script(events []format.Event, rng *rand.Rand, withErr bool) *scripted {
	s := &scripted{events: events, keys: make([]string, len(events)), notices: make(map[int][]format.Notice)}
	obj := 0
	for i := range events {
		if i == 0 || rng.Intn(8) == 0 {
			obj++
			if rng.Intn(3) == 0 {
				s.notices[i] = append(s.notices[i], format.Notice{Kind: format.NoticeFenced, Key: fmt.Sprintf("o%d", obj-1), Seq: int64(i), Count: 1})
			}
		}
		s.keys[i] = fmt.Sprintf("o%d", obj)
	}
	if rng.Intn(2) == 0 {
		s.notices[len(events)] = []format.Notice{{Kind: format.NoticeTornTail, Key: "torn", Seq: int64(len(events) + 1)}}
	}
	if withErr {
		s.err = errors.New("jobevent/blob: corrupt segment")
	}
	return s
}

type seqSource struct {
	s       *scripted
	i       int
	pending []format.Notice
}

func (q *seqSource) Next() (format.Event, error) {
	q.pending = append(q.pending, q.s.notices[q.i]...)
	if q.i >= len(q.s.events) {
		if q.s.err != nil {
			return format.Event{}, q.s.err
		}
		return format.Event{}, io.EOF
	}
	q.i++
	return q.s.events[q.i-1], nil
}

func (q *seqSource) Key() string {
	if q.i == 0 {
		return ""
	}
	return q.s.keys[q.i-1]
}

func (q *seqSource) Notices() []format.Notice {
	n := q.pending
	q.pending = nil
	return n
}

// batchSource hands out the script in batches of random sizes, never
// across an object, projected on replay.ValidateFields, in a buffer it
// overwrites at each call.
type batchSource struct {
	seqSource
	rng *rand.Rand
	buf []format.Event
}

func (b *batchSource) NextBatch() ([]format.Event, error) {
	for i := range b.buf {
		b.buf[i] = format.Event{Seq: -1, Kind: "clobbered", Vertex: "x"}
	}
	b.pending = append(b.pending, b.s.notices[b.i]...)
	if b.i >= len(b.s.events) {
		if b.s.err != nil {
			return nil, b.s.err
		}
		return nil, io.EOF
	}
	n := 1 + b.rng.Intn(len(b.buf))
	b.buf = b.buf[:cap(b.buf)]
	k := 0
	for k < n && b.i < len(b.s.events) {
		if k > 0 && (b.s.keys[b.i] != b.s.keys[b.i-1] || len(b.s.notices[b.i]) > 0) {
			break
		}
		b.buf[k] = b.s.events[b.i].Project(replay.ValidateFields)
		k++
		b.i++
	}
	return b.buf[:k], nil
}

// validateLogs are the logs the batch tests run: the validate corpus and
// generated logs, some of them mangled.
func validateLogs(t *testing.T) [][]format.Event {
	t.Helper()
	var logs [][]format.Event
	files, err := filepath.Glob(filepath.Join(validateCases, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no logs under %s (%v)", validateCases, err)
	}
	for _, path := range files {
		src := openCorpus(t, path)
		var events []format.Event
		for {
			e, err := src.Next()
			if err != nil {
				break
			}
			events = append(events, e)
		}
		logs = append(logs, events)
	}
	for seed := int64(1); seed <= 30; seed++ {
		events := loggen.Events(randomOptions(seed))
		if seed%3 == 0 { // mangled: the validator's error paths
			rng := rand.New(rand.NewSource(seed))
			for range 5 {
				i, j := rng.Intn(len(events)), rng.Intn(len(events))
				events[i], events[j] = events[j], events[i]
			}
		}
		logs = append(logs, events)
	}
	logs = append(logs, byteEvents([]byte("a fuzzed log: \x00\x01\x02\x03\x04\x05\x06\x07\x08\x09 of bytes \xff\xfe")))
	return logs
}

// TestValidate_Batches: Validate over a BatchSource projected on
// ValidateFields finds what it finds event by event on the whole events,
// notices, keys and errors in place.
func TestValidate_Batches(t *testing.T) {
	for i, events := range validateLogs(t) {
		rng := rand.New(rand.NewSource(int64(i)))
		for _, withErr := range []bool{false, true} {
			s := script(events, rng, withErr)
			want := replay.Validate(&seqSource{s: s}, replay.ValidateOptions{})
			for _, size := range []int{1, 3, 64, 1024} {
				src := &batchSource{seqSource: seqSource{s: s}, rng: rng, buf: make([]format.Event, size)}
				if got := replay.Validate(src, replay.ValidateOptions{}); !reflect.DeepEqual(got, want) {
					t.Fatalf("log %d, batches of up to %d, error %v:\n got %v\nwant %v", i, size, withErr, got, want)
				}
			}
			// A few findings at most: the validation stops at the same place.
			want = replay.Validate(&seqSource{s: s}, replay.ValidateOptions{MaxFindings: 2})
			src := &batchSource{seqSource: seqSource{s: s}, rng: rng, buf: make([]format.Event, 50)}
			if got := replay.Validate(src, replay.ValidateOptions{MaxFindings: 2}); !reflect.DeepEqual(got, want) {
				t.Fatalf("log %d, at most 2 findings:\n got %v\nwant %v", i, got, want)
			}
		}
	}
}

// TestFold_Batches: Fold over a BatchSource folds the state it folds event
// by event, up to a seq or to the end, and stops at an error after the
// same seq.
func TestFold_Batches(t *testing.T) {
	for i, events := range validateLogs(t) {
		rng := rand.New(rand.NewSource(int64(i)))
		for _, withErr := range []bool{false, true} {
			s := script(events, rng, withErr)
			for _, until := range []int64{0, int64(len(events) / 2)} {
				want, wantErr := replay.Fold(&seqSource{s: s}, until)
				src := &wholeBatches{batchSource{seqSource: seqSource{s: s}, rng: rng, buf: make([]format.Event, 100)}}
				got, err := replay.Fold(src, until)
				if fmt.Sprint(err) != fmt.Sprint(wantErr) {
					t.Fatalf("log %d, until %d: err = %v, want %v", i, until, err, wantErr)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("log %d, until %d: the state folded by batches differs", i, until)
				}
			}
		}
	}
}

// wholeBatches is a batchSource whose events are not projected: Fold
// reads every field.
type wholeBatches struct{ batchSource }

func (w *wholeBatches) NextBatch() ([]format.Event, error) {
	b, err := w.batchSource.NextBatch()
	for k := range b {
		b[k] = w.s.events[w.i-len(b)+k]
	}
	return b, err
}
