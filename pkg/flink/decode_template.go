package flink

import (
	"bytes"
	"encoding/binary"
	"math"

	"github.com/jobevent/jobevent/pkg/flink/javaser"
)

// Stream templates. Every type 1 record is Java streams of its own, so
// each repeats the class descriptors, and the records of one log differ
// in little more than the values of a few primitive fields: the attempt,
// the subtask, the counters, the coordinator's state. A template is a
// stream the typed reader read in full, with the places (holes) of the
// primitive field values that its reading copied into the event and used
// for nothing else. A stream of the same length whose bytes equal the
// template's outside the holes is read exactly as the template was (every
// byte that steers the reading, or that it checks, is the same), so its
// event is the template's with the holes' values: it is taken so, without
// reading the stream again. Anything else is read in full, and becomes a
// template when the typed reader reads it.

// numTemplates is how many templates of each stream kind a fastDecoder
// keeps (a log's records alternate between a few TaskManagers, whose
// locations differ in strings).
const numTemplates = 4

// maxTemplateBytes bounds the streams that become templates: a stream is
// a few kilobytes, but a coordinator's state can be megabytes.
const maxTemplateBytes = 64 << 10

// A hole is a primitive field value of a template: its offset in the
// stream and its width.
type hole struct{ off, n int }

// template is a stream read in full and the holes in it, in stream order.
type template struct {
	raw   []byte
	holes []hole
}

// matches reports whether b differs from t's stream in its holes at most.
func (t *template) matches(b []byte) bool {
	if len(b) != len(t.raw) {
		return false
	}
	at := 0
	for _, h := range t.holes {
		if !bytes.Equal(b[at:h.off], t.raw[at:h.off]) {
			return false
		}
		at = h.off + h.n
	}
	return bytes.Equal(b[at:], t.raw[at:])
}

// newTemplate returns the template of the stream b with holes of the given
// widths at marks, the offsets the typed reader marked; ok is false unless
// they are in order, apart and inside b, and b is at most
// maxTemplateBytes.
func newTemplate(b []byte, marks []int, widths []int) (t template, ok bool) {
	if len(marks) != len(widths) || len(b) > maxTemplateBytes {
		return t, false
	}
	t.holes = make([]hole, len(marks))
	at := 0
	for i, off := range marks {
		if off < at || widths[i] < 0 || widths[i] > len(b)-off {
			return t, false
		}
		t.holes[i] = hole{off, widths[i]}
		at = off + widths[i]
	}
	t.raw = bytes.Clone(b)
	return t, true
}

// templates are the templates of one stream kind, with what each stands
// for; the one that matched last is tried first.
type templates[T any] struct {
	t    [numTemplates]template
	v    [numTemplates]T
	n    int // templates held
	last int // of the one matched or added last
}

// find returns the index of a template b matches, or -1.
func (ts *templates[T]) find(b []byte) int {
	for k := range ts.n {
		i := (ts.last + k) % ts.n
		if ts.t[i].matches(b) {
			ts.last = i
			return i
		}
	}
	return -1
}

// add keeps t and v, in place of the oldest template if all are in use.
func (ts *templates[T]) add(t template, v T) {
	i := ts.n
	if ts.n < numTemplates {
		ts.n++
	} else {
		i = (ts.last + 1) % numTemplates
	}
	ts.t[i], ts.v[i], ts.last = t, v, i
}

// mark notes that the field value read next is a hole of the stream.
func (f *fastDecoder) mark() {
	if !f.failed {
		f.marks = append(f.marks, int(f.d.Offset()))
	}
}

func be32(b []byte, off int) int32 { return int32(binary.BigEndian.Uint32(b[off:])) }
func be64(b []byte, off int) int64 { return int64(binary.BigEndian.Uint64(b[off:])) }

func beID(b []byte, off int) ID { return ID{Lower: be64(b, off), Upper: be64(b, off+8)} }

// finishedWidths are the holes of an event stream that the typed reader
// marks (finished): the attempt number, the ExecutionGraphID, the subtask
// index, the JobVertexID, the seven IOMetrics counters and the data port.
var finishedWidths = []int{4, 16, 4, 16, 7 * 8, 4}

// finishedFromTemplate returns the event of the stream b, which matches
// the template t of the event ev: ev with the values of b's holes, read
// as finished reads them.
func finishedFromTemplate(b []byte, t *template, ev *VertexFinished) *VertexFinished {
	e := *ev
	h := t.holes
	e.AttemptID.AttemptNumber = be32(b, h[0].off)
	e.AttemptID.ExecutionGraphID = beID(b, h[1].off)
	e.AttemptID.Vertex.SubtaskIndex = be32(b, h[2].off)
	e.AttemptID.Vertex.JobVertexID = beID(b, h[3].off)
	m, at := &e.IOMetrics, h[4].off
	for _, dst := range []*int64{&m.AccumulateBackPressuredTime, nil, &m.AccumulateIdleTime,
		&m.NumBytesIn, &m.NumBytesOut, &m.NumRecordsIn, &m.NumRecordsOut} {
		if dst == nil {
			m.AccumulateBusyTime = math.Float64frombits(uint64(be64(b, at)))
		} else {
			*dst = be64(b, at)
		}
		at += 8
	}
	e.Location.DataPort = be32(b, h[5].off)
	return &e
}

// addFinishedTemplate makes the stream b, read by finished into ev, a
// template, if its event holds nothing a template cannot give afresh:
// partition bytes and accumulators (slices of Values) are read in full.
func (f *fastDecoder) addFinishedTemplate(b []byte, ev *VertexFinished) {
	if ev.IOMetrics.ResultPartitionBytes != nil || len(ev.Accumulators) != 0 {
		return
	}
	if t, ok := newTemplate(b, f.marks, finishedWidths); ok {
		f.finishedT.add(t, *ev)
	}
}

// coordinatorsFromTemplate returns the snapshots of the stream b, which
// matches the template t: one per pair of holes, an OperatorID and the
// bytes of a byte[].
func coordinatorsFromTemplate(b []byte, t *template) []CoordinatorSnapshot {
	out := make([]CoordinatorSnapshot, len(t.holes)/2)
	for i := range out {
		id, state := t.holes[2*i], t.holes[2*i+1]
		out[i] = CoordinatorSnapshot{OperatorID: beID(b, id.off),
			State: append([]byte(nil), b[state.off:state.off+state.n]...)}
	}
	return out
}

// addCoordinatorsTemplate makes the stream b, read by coordinatorSnapshots
// into snaps, a template.
func (f *fastDecoder) addCoordinatorsTemplate(b []byte, snaps []CoordinatorSnapshot) {
	widths := make([]int, 0, 2*len(snaps))
	for _, s := range snaps {
		widths = append(widths, 16, len(s.State))
	}
	if t, ok := newTemplate(b, f.marks, widths); ok {
		f.coordsT.add(t, struct{}{})
	}
}

// shuffleSnapshot is the value of a shuffle master snapshot stream read
// before, and its class: an equal stream reads to the same Value (Values
// are read-only, shared as the descriptor cache shares descriptors).
type shuffleSnapshot struct {
	raw   []byte
	v     javaser.Value
	class string
}

// maxShuffleMemo bounds the shuffle master snapshot streams a fastDecoder
// keeps: an empty snapshot is tens of bytes.
const maxShuffleMemo = 4 << 10

// shuffleMasterSnapshot is the function shuffleMasterSnapshot, with the
// value of the stream read last when b is equal to it.
func (f *fastDecoder) shuffleMasterSnapshot(b []byte) (javaser.Value, string, error) {
	if s := &f.shuffle; s.raw != nil && bytes.Equal(b, s.raw) {
		return s.v, s.class, nil
	}
	v, class, err := shuffleMasterSnapshot(b, &f.d)
	if err == nil && len(b) <= maxShuffleMemo {
		f.shuffle = shuffleSnapshot{raw: bytes.Clone(b), v: v, class: class}
	}
	return v, class, err
}
