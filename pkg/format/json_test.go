package format

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

func readAllJSON(t testing.TB, in string) []Event {
	t.Helper()
	r := NewJSONReader(strings.NewReader(in))
	var out []Event
	for {
		e, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		out = append(out, e)
	}
}

func encodeJSON(events []Event) []byte {
	var b []byte
	for i := range events {
		b = AppendJSON(b, &events[i])
	}
	return b
}

func TestAppendJSON_Canonical(t *testing.T) {
	events := sampleEvents()
	want := []string{
		`{"seq":1,"time":"2026-12-02T10:00:00.000000000Z","epoch":1,"kind":"job_submitted","job":"wordcount","graph":{"vertices":[{"id":"src","operator":"text_source","parallelism":2,"max_parallelism":8,"coordinator":"batch_snapshot"},{"id":"count","operator":"key_by_count","parallelism":0,"max_parallelism":4,"coordinator":"none"},{"id":"sink","operator":"sink","parallelism":1,"max_parallelism":1,"coordinator":"none"}],"edges":[{"from":"src","to":"count","pattern":"all_to_all"},{"from":"count","to":"sink","pattern":"pointwise"}]}}`,
		`{"seq":2,"time":"2026-12-02T10:00:00.001000000Z","epoch":1,"kind":"master_started","job":"wordcount","master":"127.0.0.1:7070","recovering":false}`,
		`{"seq":3,"time":"2026-12-02T10:00:00.002000000Z","epoch":1,"kind":"vertex_initialized","job":"wordcount","vertex":"src","parallelism":2}`,
		`{"seq":4,"time":"2026-12-02T10:00:00.003000000Z","epoch":1,"kind":"subtask_started","job":"wordcount","vertex":"src","subtask":0,"attempt":0,"worker":"w1"}`,
		`{"seq":5,"time":"2026-12-02T10:00:00.004000000Z","epoch":1,"kind":"subtask_started","job":"wordcount","vertex":"src","subtask":1,"attempt":0,"worker":"w2"}`,
		`{"seq":6,"time":"2026-12-02T10:00:00.005000000Z","epoch":1,"kind":"subtask_finished","job":"wordcount","vertex":"src","subtask":0,"attempt":0,"worker":"w1","records_in":10,"records_out":20,"bytes_in":300,"bytes_out":400}`,
		`{"seq":7,"time":"2026-12-02T10:00:00.006000000Z","epoch":1,"kind":"subtask_failed","job":"wordcount","vertex":"src","subtask":1,"attempt":0,"worker":"w2","error":"disk full: \"/tmp\"\n\tat write` + "\u2028 ünïcødé 日本語 " + `\u0001"}`,
		`{"seq":8,"time":"2026-12-02T10:00:00.007000000Z","epoch":1,"kind":"subtasks_reset","job":"wordcount","subtasks":[{"vertex":"src","subtask":1}],"reason":"failure"}`,
		`{"seq":9,"time":"2026-12-02T10:00:00.008000000Z","epoch":1,"kind":"subtask_failed","job":"wordcount","vertex":"src","subtask":1,"attempt":1,"worker":"w2"}`,
		`{"seq":10,"time":"2026-12-02T10:00:00.009000000Z","epoch":1,"kind":"snapshot","job":"wordcount","coordinators":{"a":"","src":"AAFzcGxpdHP/"}}`,
		`{"seq":11,"time":"2026-12-02T10:00:00.010000000Z","epoch":1,"kind":"snapshot","job":"wordcount","coordinators":{}}`,
		`{"seq":12,"time":"2026-12-02T10:00:00.011000000Z","epoch":2,"kind":"master_started","job":"wordcount","master":"10.0.0.1:1","recovering":true}`,
		`{"seq":13,"time":"2026-12-02T10:00:00.012000000Z","epoch":2,"kind":"subtasks_reset","job":"wordcount","subtasks":[],"reason":"recovery"}`,
		`{"seq":14,"time":"2026-12-02T10:00:00.136456789Z","epoch":2,"kind":"subtask_finished","job":"wordcount","vertex":"src","subtask":1,"attempt":2,"worker":"w3","records_in":0,"records_out":0,"bytes_in":0,"bytes_out":0,"partitions":[]}`,
		`{"seq":15,"time":"2026-12-02T10:00:00.014000000Z","epoch":2,"kind":"subtask_finished","job":"wordcount","vertex":"count","subtask":0,"attempt":0,"worker":"w1","records_in":-1,"records_out":4611686018427387904,"bytes_in":0,"bytes_out":0,"partitions":[{"consumer":"sink","bytes":1099511627776,"records":7},{"consumer":"x","bytes":0,"records":0}]}`,
		`{"seq":16,"time":"2026-12-02T10:00:00.015000000Z","epoch":2,"kind":"job_finished","job":"wordcount","status":"finished"}`,
		`{"seq":17,"time":"2026-12-02T10:00:00.016000000Z","epoch":2,"kind":"job_finished","job":"wordcount","status":"failed","error":"too many failures"}`,
	}
	for i := range events {
		got := string(AppendJSON(nil, &events[i]))
		if got != want[i]+"\n" {
			t.Errorf("event %d:\n got %s\nwant %s", i, got, want[i])
		}
	}
}

func TestJSON_RoundTrip(t *testing.T) {
	events := sampleEvents()
	canonical := encodeJSON(events)
	got := readAllJSON(t, string(canonical))
	if want := normalized(events); !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded events differ:\n got %#v\nwant %#v", got, want)
	}
	if again := encodeJSON(got); !bytes.Equal(again, canonical) {
		t.Fatalf("re-encoded JSONL differs:\n got %s\nwant %s", again, canonical)
	}
}

func TestAppendJSON_OnlyKindFields(t *testing.T) {
	e := Event{Seq: 5, Kind: KindSnapshot, Job: "j", Vertex: "stray", Worker: "w", Subtask: 3, Error: "x"}
	got := string(AppendJSON(nil, &e))
	want := `{"seq":5,"time":"0001-01-01T00:00:00.000000000Z","epoch":0,"kind":"snapshot","job":"j","coordinators":{}}` + "\n"
	if got != want {
		t.Fatalf("got %s want %s", got, want)
	}
}

func TestAppendJSON_InvalidUTF8(t *testing.T) {
	e := Event{Kind: KindJobFinished, Status: "ok\xffend\xc3"}
	got := string(AppendJSON(nil, &e))
	if !strings.Contains(got, `"status":"ok`+"\ufffd"+`end`+"\ufffd"+`"`) {
		t.Fatalf("got %s", got)
	}
}

func TestJSONWriter(t *testing.T) {
	var buf bytes.Buffer
	w := NewJSONWriter(&buf)
	events := sampleEvents()
	for i := range events {
		if err := w.Write(&events[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), encodeJSON(events)) {
		t.Fatalf("JSONWriter output differs from AppendJSON")
	}
	bad := Event{Kind: KindJobFinished, Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}
	if err := w.Write(&bad); !errors.Is(err, ErrTimeRange) {
		t.Fatalf("Write(year 10000) = %v, want ErrTimeRange", err)
	}
	if err := w.Write(&Event{Kind: "bogus"}); err == nil {
		t.Fatalf("Write(unknown kind) = nil, want an error")
	}
}

// TestJSONWriter_LongLists writes events whose lists are far longer than
// the writer's buffer: the output is AppendJSON's, byte for byte, and the
// line is not kept whole in memory.
func TestJSONWriter_LongLists(t *testing.T) {
	reset := Event{Seq: 1, Kind: KindSubtasksReset, Job: "big", Reason: "failure"}
	for i := range 50_000 {
		reset.Subtasks = append(reset.Subtasks, SubtaskRef{Vertex: "map", Subtask: int32(i)})
	}
	finished := Event{Seq: 2, Kind: KindSubtaskFinished, Job: "big", Vertex: "map", Partitions: []Partition{}}
	for i := range 20_000 {
		finished.Partitions = append(finished.Partitions, Partition{Consumer: "sink", Bytes: int64(i), Records: 1})
	}
	events := []Event{reset, finished, {Seq: 3, Kind: KindJobFinished, Job: "big", Status: StatusFinished}}
	var buf bytes.Buffer
	w := NewJSONWriter(&buf)
	for i := range events {
		if err := w.Write(&events[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if want := encodeJSON(events); !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("JSONWriter output (%d bytes) differs from AppendJSON (%d bytes)", buf.Len(), len(want))
	}
	if c := cap(w.buf); c > 2*spillSize {
		t.Fatalf("line buffer grew to %d bytes, want at most %d", c, 2*spillSize)
	}
	// A failing writer fails the event whose parts it refused.
	fw := NewJSONWriter(failingWriter{})
	if err := fw.Write(&events[0]); err == nil || !strings.Contains(err.Error(), "seq 1") {
		t.Fatalf("Write to a failing writer = %v, want an error naming seq 1", err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestJSONReader_FillIn(t *testing.T) {
	in := `{"kind":"job_submitted","job":"wc","graph":{"vertices":[{"id":"a","operator":"seq"}],"edges":[{"from":"a","to":"b"}]}}

{"kind":"master_started","master":"m1"}
{"kind":"vertex_initialized","vertex":"a","parallelism":1,"time":"2026-12-02T11:00:01.5+01:00"}
{"kind":"subtask_started","vertex":"a"}
{"seq":10,"kind":"master_started","master":"m2","recovering":true}
{"kind":"snapshot","job":"other"}
{"kind":"master_started","epoch":7,"master":"m3"}
{"kind":"subtasks_reset","time":"2026-12-02T10:00:02Z"}` + "\r\n" + `{"kind":"master_started"}
{"kind":"job_finished","status":"finished"}`
	got := readAllJSON(t, in)
	t1 := time.Date(2026, 12, 2, 10, 0, 1, 500_000_000, time.UTC)
	t2 := time.Date(2026, 12, 2, 10, 0, 2, 0, time.UTC)
	want := []Event{
		{Seq: 1, Time: unixEpoch, Epoch: 1, Kind: KindJobSubmitted, Job: "wc", Graph: &Graph{
			Vertices: []Vertex{{ID: "a", Operator: "seq", Coordinator: CoordinatorNone}},
			Edges:    []Edge{{From: "a", To: "b", Pattern: PatternAllToAll}},
		}},
		{Seq: 2, Time: unixEpoch, Epoch: 1, Kind: KindMasterStarted, Job: "wc", Master: "m1"},
		{Seq: 3, Time: t1, Epoch: 1, Kind: KindVertexInitialized, Job: "wc", Vertex: "a", Parallelism: 1},
		{Seq: 4, Time: t1, Epoch: 1, Kind: KindSubtaskStarted, Job: "wc", Vertex: "a"},
		{Seq: 10, Time: t1, Epoch: 2, Kind: KindMasterStarted, Job: "wc", Master: "m2", Recovering: true},
		{Seq: 11, Time: t1, Epoch: 2, Kind: KindSnapshot, Job: "other", Coordinators: map[string][]byte{}},
		{Seq: 12, Time: t1, Epoch: 7, Kind: KindMasterStarted, Job: "wc", Master: "m3"},
		{Seq: 13, Time: t2, Epoch: 7, Kind: KindSubtasksReset, Job: "wc"},
		{Seq: 14, Time: t2, Epoch: 8, Kind: KindMasterStarted, Job: "wc"},
		{Seq: 15, Time: t2, Epoch: 8, Kind: KindJobFinished, Job: "wc", Status: StatusFinished},
	}
	if len(got) != len(want) {
		t.Fatalf("events = %d, want %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("event %d:\n got %#v\nwant %#v", i, got[i], want[i])
		}
	}
}

func TestJSONReader_Errors(t *testing.T) {
	ok := `{"seq":1,"kind":"job_finished","status":"finished"}` + "\n"
	tests := []struct {
		name, line, field, msg string
	}{
		{"wrong type", `{"kind":"subtask_started","subtask":"1"}`, "subtask", `line 2: field "subtask": want integer, got string`},
		{"unknown kind", `{"kind":"vertex_exploded"}`, "kind", `line 2: field "kind": unknown kind "vertex_exploded"`},
		{"missing kind", `{"seq":3}`, "kind", `line 2: field "kind": missing`},
		{"unknown field", `{"kind":"snapshot","colour":"red"}`, "colour", `line 2: field "colour": unknown field`},
		{"field of another kind", `{"kind":"snapshot","worker":"w1"}`, "worker", `line 2: field "worker": not a field of kind "snapshot"`},
		{"duplicate", `{"kind":"snapshot","kind":"snapshot"}`, "kind", `line 2: field "kind": duplicate field`},
		{"trailing", `{"kind":"snapshot"} x`, "", `line 2: trailing data after object: invalid character 'x'`},
		{"two objects", `{"kind":"snapshot"}{"kind":"snapshot"}`, "", `line 2: trailing data after object: object`},
		{"not an object", `[1]`, "", `line 2: want object, got array`},
		{"truncated", `{"kind":"snapshot"`, "", `line 2: want ',' or '}' after value, got end of line`},
		{"fraction", `{"kind":"subtask_started","attempt":1.5}`, "attempt", `line 2: field "attempt": want integer, got number 1.5`},
		{"int32 range", `{"kind":"subtask_started","attempt":2147483648}`, "attempt", `line 2: field "attempt": want 32-bit integer, got 2147483648`},
		{"int64 range", `{"kind":"subtask_finished","bytes_in":9223372036854775808}`, "bytes_in", `line 2: field "bytes_in": want integer, got 9223372036854775808: integer out of range`},
		{"bool", `{"kind":"master_started","recovering":1}`, "recovering", `line 2: field "recovering": want boolean, got number`},
		{"null", `{"kind":"subtask_finished","partitions":null}`, "partitions", `line 2: field "partitions": want array, got null`},
		{"time", `{"kind":"snapshot","time":"yesterday"}`, "time", `line 2: field "time": want RFC 3339 time, got "yesterday"`},
		{"nested unknown", `{"kind":"job_submitted","graph":{"vertices":[{"id":"a","size":1}]}}`, "graph.vertices[0].size", `line 2: field "graph.vertices[0].size": unknown field`},
		{"nested type", `{"kind":"job_submitted","graph":{"edges":[{},{"from":1}]}}`, "graph.edges[1].from", `line 2: field "graph.edges[1].from": want string, got number`},
		{"partition field", `{"kind":"subtask_finished","partitions":[{"consumer":"c","bytes":-}]}`, "partitions[0].bytes", `line 2: field "partitions[0].bytes": want integer, got number`},
		{"subtasks field", `{"kind":"subtasks_reset","subtasks":[{"vertex":"a","attempt":1}]}`, "subtasks[0].attempt", `line 2: field "subtasks[0].attempt": unknown field`},
		{"base64", `{"kind":"snapshot","coordinators":{"src":"%%%"}}`, "coordinators.src", `line 2: field "coordinators.src": want base64, got "%%%": illegal base64 data at input byte 0`},
		{"control char", "{\"kind\":\"snapshot\",\"job\":\"a\x01\"}", "job", `line 2: field "job": control character '\x01' in string`},
		{"bad escape", `{"kind":"snapshot","job":"\q"}`, "job", `line 2: field "job": invalid escape "\\q" in string`},
		{"leading zero", `{"kind":"snapshot","seq":01}`, "seq", `line 2: field "seq": invalid number "01": leading zero`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewJSONReader(strings.NewReader(ok + tt.line + "\n" + ok))
			if _, err := r.Next(); err != nil {
				t.Fatalf("first line: %v", err)
			}
			_, err := r.Next()
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want *SyntaxError", err)
			}
			if se.Line != 2 || se.Field != tt.field {
				t.Errorf("line, field = %d, %q, want 2, %q", se.Line, se.Field, tt.field)
			}
			if err.Error() != tt.msg {
				t.Errorf("message = %s\n     want %s", err.Error(), tt.msg)
			}
			if !errors.Is(err, ErrSyntax) {
				t.Errorf("errors.Is(err, ErrSyntax) = false")
			}
			if _, again := r.Next(); again != err {
				t.Errorf("second Next = %v, want the same error", again)
			}
		})
	}
}

func TestJSONReader_Strings(t *testing.T) {
	in := `{"kind":"job_finished","status":"a\u00e9\ud83d\ude00\/\b\f\n\r\t\"\\","error":"\ud800x` + "\xff" + `"}`
	got := readAllJSON(t, in)
	if want := "a\u00e9\U0001F600/\b\f\n\r\t\"\\"; got[0].Status != want {
		t.Errorf("status = %q, want %q", got[0].Status, want)
	}
	if want := "\ufffdx\ufffd"; got[0].Error != want {
		t.Errorf("error = %q, want %q", got[0].Error, want)
	}
}

func TestJSONReader_LongLine(t *testing.T) {
	long := strings.Repeat("x", MaxJSONLine-100) // the line just under the limit
	in := `{"kind":"job_finished","status":"failed","error":"` + long + `"}` + "\n" + `{"kind":"snapshot"}`
	r := NewJSONReader(strings.NewReader(in))
	e, err := r.Next()
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	if len(e.Error) != len(long) {
		t.Fatalf("error length = %d, want %d", len(e.Error), len(long))
	}
	if e, err = r.Next(); err != nil || e.Seq != 2 {
		t.Fatalf("second event = %d, %v; want seq 2", e.Seq, err)
	}
}

func TestJSONReader_ReadError(t *testing.T) {
	boom := errors.New("boom")
	r := NewJSONReader(io.MultiReader(strings.NewReader(`{"kind":"snapshot"}`+"\n"), &failReader{boom}))
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
}

type failReader struct{ err error }

func (f *failReader) Read([]byte) (int, error) { return 0, f.err }

// endlessLine is a reader of one line of n bytes of 'a', never held whole.
type endlessLine struct{ n int64 }

func (r *endlessLine) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	k := min(int64(len(p)), r.n)
	for i := range p[:k] {
		p[i] = 'a'
	}
	r.n -= k
	return int(k), nil
}

// TestJSONReader_LineLimit: a line over MaxJSONLine is refused with an
// error naming its line and the limit, holding no more than about the
// limit while it is read.
func TestJSONReader_LineLimit(t *testing.T) {
	in := io.MultiReader(strings.NewReader("\n"), &endlessLine{n: 300 << 20})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := NewJSONReader(in).Next()
	runtime.ReadMemStats(&after)
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 2 || !strings.Contains(err.Error(), "64 MiB, the limit of a JSONL line") {
		t.Fatalf("Next = %v, want a syntax error on line 2 naming the limit", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 3*MaxJSONLine {
		t.Errorf("allocated %d MiB to refuse a 300 MiB line, want at most %d MiB", got>>20, 3*MaxJSONLine>>20)
	}
}

// TestJSONReader_NextInto: NextInto overwrites every field of the event
// it is given, leaving what Next would return.
func TestJSONReader_NextInto(t *testing.T) {
	var jsonl []byte
	events := realisticEvents(50, 9)
	for i := range events {
		jsonl = AppendJSON(jsonl, &events[i])
	}
	next, into := NewJSONReader(bytes.NewReader(jsonl)), NewJSONReader(bytes.NewReader(jsonl))
	dirty := Event{Seq: 99, Graph: &Graph{}, Master: "m", Recovering: true, Vertex: "v", Subtask: 3,
		Partitions: []Partition{}, Error: "e", Subtasks: []SubtaskRef{{}}, Reason: "r",
		Coordinators: map[string][]byte{"v": nil}, Status: "s", RecordsIn: 1, BytesOut: 2, Worker: "w"}
	for i := 0; ; i++ {
		want, werr := next.Next()
		got := dirty
		err := into.NextInto(&got)
		if werr != err {
			t.Fatalf("event %d: NextInto err %v, Next err %v", i, err, werr)
		}
		if err != nil {
			break
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("event %d: NextInto = %+v, Next = %+v", i, got, want)
		}
	}
}

// TestLeadingDigits holds the eight-bytes-at-once integer path against
// strconv: every number of 1 to 9 digits it takes, with each byte that can
// follow, and the ones it must leave to the general path.
func TestLeadingDigits(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	follow := []byte(",}]: \x00\"-+/:aeE.0123456789\x7f\xff")
	for range 20000 {
		digits := 1 + rng.IntN(9)
		num := make([]byte, digits)
		for i := range num {
			num[i] = byte('0' + rng.IntN(10))
		}
		if rng.IntN(4) == 0 {
			num[0] = '0'
		}
		line := append(append([]byte{}, num...), follow[rng.IntN(len(follow))])
		for len(line) < 9+rng.IntN(4) {
			line = append(line, follow[rng.IntN(len(follow))])
		}
		v, n := leadingDigits(line)
		end := digits
		for end < len(line) && line[end] >= '0' && line[end] <= '9' {
			end++
		}
		takes := len(line) >= 9 && end <= 8 && (line[0] != '0' || end == 1)
		if takes {
			c := line[end]
			takes = c != '.' && c != 'e' && c != 'E'
		}
		if !takes {
			if n != 0 {
				t.Fatalf("leadingDigits(%q) = %d, %d: want it left to the general path", line, v, n)
			}
			continue
		}
		want, err := strconv.ParseInt(string(line[:end]), 10, 64)
		if err != nil || n != end || v != want {
			t.Fatalf("leadingDigits(%q) = %d, %d: want %d, %d", line, v, n, want, end)
		}
	}
	if v, n := leadingDigits([]byte("12345678,")); v != 12345678 || n != 8 {
		t.Errorf("eight digits: got %d, %d", v, n)
	}
}

// TestJSONReader_PartitionsOwnTheirArrays: the partitions of events
// decoded one after the other share a slab, each cut to its own length, so
// that appending to one event's partitions never writes over the next
// event's.
func TestJSONReader_PartitionsOwnTheirArrays(t *testing.T) {
	line := func(seq int, consumer string) string {
		return `{"seq":` + strconv.Itoa(seq) + `,"time":"2026-12-02T10:00:00.000000000Z","epoch":1,"kind":"subtask_finished","job":"j","vertex":"v","subtask":0,"attempt":0,"worker":"w","records_in":0,"records_out":1,"bytes_in":0,"bytes_out":1,"partitions":[{"consumer":"` + consumer + `","bytes":1,"records":1}]}` + "\n"
	}
	r := NewJSONReader(strings.NewReader(line(1, "a") + line(2, "b")))
	first, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	second, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	if c := cap(first.Partitions); c != 1 {
		t.Fatalf("the first event's partitions have capacity %d, want 1", c)
	}
	_ = append(first.Partitions, Partition{Consumer: "x"})
	if got := second.Partitions[0].Consumer; got != "b" {
		t.Fatalf("the second event's partition consumer is %q after appending to the first's, want b", got)
	}
}
