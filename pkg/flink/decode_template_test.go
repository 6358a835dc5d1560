package flink

import (
	"bytes"
	"fmt"
	"os"
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
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		types, payloads := filePayloads(data)
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

// TestFastDecoder_FinishedTemplate reads the event stream of a real type 1
// record, then the same stream with each byte changed: a change in a hole
// is read from the template, any other change is read in full, and either
// way the event is the one a fresh typed reader reads.
func TestFastDecoder_FinishedTemplate(t *testing.T) {
	events, _ := finishedStreams(t)
	for n, b := range events {
		f := new(fastDecoder)
		if _, ok := f.finished(b); !ok || f.finishedT.n != 1 {
			t.Fatalf("stream %d: read %v, %d templates, want true and 1", n, ok, f.finishedT.n)
		}
		holes := f.finishedT.t[0].holes
		q := make([]byte, len(b))
		for i := range b {
			for _, x := range []byte{0x01, 0x80, 0xff} {
				copy(q, b)
				q[i] ^= x
				where := fmt.Sprintf("stream %d byte %d ^ 0x%02x", n, i, x)
				if got, want := f.finishedT.find(q) >= 0, inHoles(holes, i); got != want {
					t.Fatalf("%s: from the template %v, want %v", where, got, want)
				}
				g := new(fastDecoder) // with the template of b alone
				g.finished(b)
				got, gok := g.finished(q)
				want, wok := new(fastDecoder).finished(q)
				compareEvents(t, where, got, gok, want, wok)
			}
		}
	}
}

// TestFastDecoder_CoordinatorsTemplate is TestFastDecoder_FinishedTemplate
// for the coordinator snapshot streams.
func TestFastDecoder_CoordinatorsTemplate(t *testing.T) {
	_, coords := finishedStreams(t)
	for n, b := range coords {
		f := new(fastDecoder)
		if _, ok := f.coordinatorSnapshots(b); !ok || f.coordsT.n != 1 {
			t.Fatalf("stream %d: read %v, %d templates, want true and 1", n, ok, f.coordsT.n)
		}
		holes := f.coordsT.t[0].holes
		q := make([]byte, len(b))
		for i := range b {
			copy(q, b)
			q[i] ^= 0x41
			where := fmt.Sprintf("stream %d byte %d", n, i)
			if got, want := f.coordsT.find(q) >= 0, inHoles(holes, i); got != want {
				t.Fatalf("%s: from the template %v, want %v", where, got, want)
			}
			g := new(fastDecoder) // with the template of b alone
			g.coordinatorSnapshots(b)
			got, gok := g.coordinatorSnapshots(q)
			want, wok := new(fastDecoder).coordinatorSnapshots(q)
			compareEvents(t, where, got, gok, want, wok)
		}
	}
}

// TestFastDecoder_Templates reads streams of other lengths and contents in
// turn: the templates kept are the last ones read, each found again.
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
	if f.finishedT.n != numTemplates {
		t.Fatalf("templates = %d, want %d", f.finishedT.n, numTemplates)
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

func compareEvents(t *testing.T, where string, got any, gok bool, want any, wok bool) {
	t.Helper()
	if gok != wok {
		t.Fatalf("%s: read %v, want %v", where, gok, wok)
	}
	if gok && !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: read\n%+v\nwant\n%+v", where, got, want)
	}
}
