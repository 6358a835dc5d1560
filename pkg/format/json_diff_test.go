package format

import (
	"bytes"
	"io"
	"reflect"
	"testing"
)

// readAll decodes data with next until the first error and returns the
// events before it and the error's text ("" at the end of the input).
func readAll(next func() (Event, error)) ([]Event, string) {
	var out []Event
	for {
		e, err := next()
		if err == io.EOF {
			return out, ""
		}
		if err != nil {
			return out, err.Error()
		}
		out = append(out, e)
	}
}

// checkReference fails t unless JSONReader and the reference parser read
// the same events and stop at the same error from data.
func checkReference(t *testing.T, data []byte) {
	t.Helper()
	r := NewJSONReader(bytes.NewReader(data))
	got, gotErr := readAll(r.Next)
	ref := refNewJSONReader(bytes.NewReader(data))
	want, wantErr := readAll(ref.Next)
	if gotErr != wantErr {
		t.Fatalf("error = %q, want %q\ninput: %q", gotErr, wantErr, data)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("events differ from the reference's\ninput: %q\n got %#v\nwant %#v", data, got, want)
	}
}

// mutations returns variants of line: every byte deleted, replaced by and
// preceded by each of a set of bytes that JSON gives a meaning to, and the
// line cut at every offset.
func mutations(line []byte) [][]byte {
	const special = "\"\\{}[]:,0-.eE+ \t\r\nx\x00\xff\xc3tfnu9"
	var out [][]byte
	for i := range line {
		out = append(out, append(append([]byte{}, line[:i]...), line[i+1:]...))
		out = append(out, line[:i:i])
		for _, c := range []byte(special) {
			m := append([]byte{}, line...)
			m[i] = c
			out = append(out, m)
			out = append(out, append(append(append([]byte{}, line[:i]...), c), line[i:]...))
		}
	}
	return out
}

func TestJSONReader_Reference(t *testing.T) {
	logs := map[string][]byte{
		"sample":      encodeJSON(sampleEvents()),
		"realistic":   encodeJSON(realisticEvents(5000, 7)),
		"handwritten": []byte(handwritten),
	}
	for name, data := range logs {
		t.Run(name, func(t *testing.T) { checkReference(t, data) })
	}
	// Every mutation of lines of each kind, alone and (one in eight) after
	// a good line, so that fill-in state and line numbers are compared too.
	lines := bytes.Split(encodeJSON(sampleEvents()), []byte("\n"))
	lines = append(lines, bytes.Split(encodeJSON(realisticEvents(12, 3)), []byte("\n"))...)
	lines = append(lines, bytes.Split([]byte(handwritten), []byte("\n"))...)
	lines = append(lines,
		[]byte(`{"kind":"subtask_failed","error":"\ud83d\ude00\u0000 \"x\" \ud800 é"}`),
		[]byte(`{"kind":"snapshot","coordinators":{"a":"AAE=","b":""},"time":"2026-12-02T10:00:00.5+02:00"}`),
		[]byte(` { "seq" : 12345678901234567890 , "kind" : "job_finished" , "status" : "a\u00e9" } `),
	)
	seen := map[string]bool{}
	n := 0
	for _, line := range lines {
		if seen[string(line)] || len(line) > 400 {
			continue
		}
		seen[string(line)] = true
		for i, m := range mutations(line) {
			if testing.Short() && i%4 != 0 {
				continue
			}
			checkReference(t, m)
			if i%8 != 0 {
				n++
				continue
			}
			checkReference(t, append(append([]byte(`{"seq":7,"kind":"master_started","epoch":3}`+"\n"), m...), "\n"+`{"kind":"job_finished"}`...))
			n++
		}
	}
	if n == 0 {
		t.Fatal("no mutations were compared")
	}
	t.Logf("%d mutated lines compared", n)
}

// BenchmarkJSONReader_Reference is BenchmarkJSONReader with the reference
// parser, to compare the two in one run.
func BenchmarkJSONReader_Reference(b *testing.B) {
	benchJSONReader(b, func(r io.Reader) eventSource { return refNewJSONReader(r) })
}

// FuzzJSONReader_Reference checks the parser against the reference on any
// input: the same events, the same fill-in of missing fields and the same
// error. The parser's fast paths (canonical member order, partitions,
// times, repeated names) must give up on whatever the general path would
// decode otherwise.
func FuzzJSONReader_Reference(f *testing.F) {
	jsonSeeds(f)
	for _, line := range bytes.Split(encodeJSON(realisticEvents(40, 5)), []byte("\n")) {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkReference(t, data) })
}
