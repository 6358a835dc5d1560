package flink

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/jobevent/jobevent/internal/flinkfixture"
)

// finishedStreams returns the event and coordinator snapshot streams of
// the first type 1 record of the first and the last real Flink file (1.20
// and 2.x).
func finishedStreams(t *testing.T) (events, coords [][]byte) {
	t.Helper()
	files := flinkfixture.Files()
	if len(files) > 2 {
		files = []string{files[0], files[len(files)-1]}
	}
	for _, file := range files {
		types, payloads := readPayloads(t, file)
		for i, p := range payloads {
			if types[i] != TypeVertexFinished {
				continue
			}
			off := 0
			b1, err1 := blob(p, &off, "")
			b2, err2 := blob(p, &off, "")
			if err1 == nil && err2 == nil {
				events, coords = append(events, b1), append(coords, b2)
			}
			break
		}
	}
	if len(events) == 0 {
		t.Skip("no real Flink job-events files")
	}
	return events, coords
}

// streamKind is a kind of stream the typed reader keeps templates of: how
// it reads one, and the templates it holds.
type streamKind struct {
	read func(f *fastDecoder, b []byte) (any, bool)
	held func(f *fastDecoder) []template
}

var (
	finishedKind = streamKind{
		read: func(f *fastDecoder, b []byte) (any, bool) { return f.finished(b) },
		held: func(f *fastDecoder) []template { return f.finishedT.t[:f.finishedT.n] },
	}
	coordinatorsKind = streamKind{
		read: func(f *fastDecoder, b []byte) (any, bool) { return f.coordinatorSnapshots(b) },
		held: func(f *fastDecoder) []template { return f.coordsT.t[:f.coordsT.n] },
	}
)

// checkTemplates reads each stream, then the stream with each byte
// changed (^ each of xors): a change in a hole must be read from the
// template, any other change in full, and either way the result must be
// the one a fresh typed reader reads.
func checkTemplates(t *testing.T, kind streamKind, streams [][]byte, xors ...byte) {
	for n, b := range streams {
		f := new(fastDecoder)
		if _, ok := kind.read(f, b); !ok || len(kind.held(f)) != 1 {
			t.Fatalf("stream %d: read %v, %d templates, want true and 1", n, ok, len(kind.held(f)))
		}
		tmpl := &kind.held(f)[0]
		q := make([]byte, len(b))
		for i := range b {
			for _, x := range xors {
				copy(q, b)
				q[i] ^= x
				where := fmt.Sprintf("stream %d byte %d ^ 0x%02x", n, i, x)
				if got, want := tmpl.matches(q), inHoles(tmpl.holes, i); got != want {
					t.Fatalf("%s: from the template %v, want %v", where, got, want)
				}
				g := new(fastDecoder) // with the template of b alone
				kind.read(g, b)
				got, gok := kind.read(g, q)
				want, wok := kind.read(new(fastDecoder), q)
				if gok != wok || gok && !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: read %v\n%+v\nwant %v\n%+v", where, gok, got, wok, want)
				}
			}
		}
	}
}

// TestFastDecoder_FinishedTemplate checks the templates of the event
// streams of real type 1 records.
func TestFastDecoder_FinishedTemplate(t *testing.T) {
	events, _ := finishedStreams(t)
	checkTemplates(t, finishedKind, events, 0x01, 0x80, 0xff)
}

// TestFastDecoder_CoordinatorsTemplate checks the templates of their
// coordinator snapshot streams.
func TestFastDecoder_CoordinatorsTemplate(t *testing.T) {
	_, coords := finishedStreams(t)
	checkTemplates(t, coordinatorsKind, coords, 0x01, 0x80, 0xff)
}

// TestFastDecoder_Templates reads streams of other contents in turn: the
// templates kept are the last ones read, each found again.
func TestFastDecoder_Templates(t *testing.T) {
	events, _ := finishedStreams(t)
	b := events[0]
	f := new(fastDecoder)
	var streams [][]byte
	for i := range numTemplates + 2 {
		// Another resource id: a stream of another template.
		s := bytes.Replace(b, []byte("-4"), []byte(fmt.Sprintf("-%c", 'a'+i)), 1)
		if bytes.Equal(s, b) {
			t.Skip("no resource id to vary")
		}
		streams = append(streams, s)
		if _, ok := f.finished(s); !ok {
			t.Fatalf("stream %d: not read", i)
		}
	}
	if got := len(finishedKind.held(f)); got != numTemplates {
		t.Fatalf("templates = %d, want %d", got, numTemplates)
	}
	for i, s := range streams {
		if got, want := f.finishedT.find(s) >= 0, i >= 2; got != want {
			t.Errorf("stream %d: found %v, want %v", i, got, want)
		}
	}
}

func inHoles(holes []hole, i int) bool {
	for _, h := range holes {
		if i >= h.off && i < h.off+h.n {
			return true
		}
	}
	return false
}

// TestNewTemplate checks the holes newTemplate accepts.
func TestNewTemplate(t *testing.T) {
	b := make([]byte, 64)
	for _, c := range []struct {
		name          string
		b             []byte
		marks, widths []int
		ok            bool
	}{
		{"in order", b, []int{0, 8, 60}, []int{8, 4, 4}, true},
		{"none", b, nil, nil, true},
		{"a width short", b, []int{0, 8}, []int{8}, false},
		{"overlapping", b, []int{0, 7}, []int{8, 4}, false},
		{"out of order", b, []int{8, 0}, []int{4, 4}, false},
		{"past the end", b, []int{60}, []int{8}, false},
		{"too large", make([]byte, maxTemplateBytes+1), nil, nil, false},
	} {
		tmpl, ok := newTemplate(c.b, c.marks, c.widths)
		if ok != c.ok {
			t.Errorf("%s: ok = %v, want %v", c.name, ok, c.ok)
		}
		if ok && (&tmpl.raw[0] == &c.b[0] || !tmpl.matches(c.b)) {
			t.Errorf("%s: the template is not a copy of the stream", c.name)
		}
	}
}
