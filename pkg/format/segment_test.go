package format

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

func encode(t testing.TB, events []Event) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := EncodeSegment(&buf, events); err != nil {
		t.Fatalf("EncodeSegment: %v", err)
	}
	return buf.Bytes()
}

func decodeAll(data []byte) ([]Event, error) {
	sr, err := OpenSegment(data)
	if err != nil {
		return nil, err
	}
	return nextAll(sr)
}

// nextAll reads the rest of sr with Next, until the first error, and
// returns the events before it.
func nextAll(sr *SegmentReader) ([]Event, error) {
	var out []Event
	for {
		e, err := sr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, e)
	}
}

func normalized(events []Event) []Event {
	out := make([]Event, len(events))
	for i := range events {
		out[i] = events[i]
		out[i].Normalize()
	}
	return out
}

func TestSegment_RoundTrip(t *testing.T) {
	events := sampleEvents()
	data := encode(t, events)
	got, err := decodeAll(data)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	want := normalized(events)
	if len(got) != len(want) {
		t.Fatalf("events = %d, want %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("event %d:\n got %#v\nwant %#v", i, got[i], want[i])
		}
	}
}

func TestSegment_Footer(t *testing.T) {
	data := encode(t, sampleEvents())
	sr, err := OpenSegment(data)
	if err != nil {
		t.Fatal(err)
	}
	if sr.Version() != SchemaVersion {
		t.Errorf("Version() = %q, want %q", sr.Version(), SchemaVersion)
	}
	if sr.Len() != len(sampleEvents()) {
		t.Errorf("Len() = %d, want %d", sr.Len(), len(sampleEvents()))
	}
	if err := verifyChecksum(data); err != nil {
		t.Errorf("verifyChecksum: %v", err)
	}
}

func TestSegment_Empty(t *testing.T) {
	got, err := decodeAll(encode(t, nil))
	if err != nil || len(got) != 0 {
		t.Fatalf("empty segment: %d events, %v", len(got), err)
	}
}

func TestSegment_ReadBatches(t *testing.T) {
	events := realisticEvents(1000, 7)
	sr, err := OpenSegment(encode(t, events))
	if err != nil {
		t.Fatal(err)
	}
	want := normalized(events)
	e, err := sr.Next() // mix Next and Read
	if err != nil {
		t.Fatal(err)
	}
	rest, err := readRest(sr, 300)
	if err != nil {
		t.Fatal(err)
	}
	if got := append([]Event{e}, rest...); !reflect.DeepEqual(got, want) {
		t.Fatalf("events differ (%d vs %d)", len(got), len(want))
	}
	buf := make([]Event, 300)
	if n, err := sr.Read(buf); n != 0 || err != io.EOF {
		t.Fatalf("Read after end = %d, %v; want 0, EOF", n, err)
	}
}

func TestEncodeSegment_Errors(t *testing.T) {
	var buf bytes.Buffer
	err := EncodeSegment(&buf, []Event{{Seq: 1, Kind: "bogus"}})
	if err == nil || buf.Len() != 0 {
		t.Fatalf("unknown kind: err %v, %d bytes written", err, buf.Len())
	}
	far := time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := EncodeSegment(&buf, []Event{{Seq: 1, Kind: KindSnapshot, Time: far}}); !errors.Is(err, ErrTimeRange) {
		t.Fatalf("time 2300: err %v, want ErrTimeRange", err)
	}
	got, err := decodeAll(encode(t, []Event{{Seq: 1, Kind: KindSnapshot}}))
	if err != nil || !got[0].Time.Equal(time.Unix(0, 0)) {
		t.Fatalf("zero time decodes as %v, %v; want 1970-01-01", got[0].Time, err)
	}
}

// damaged checks that opening and reading data fails with one of the
// damage errors and never returns an event that differs from want.
func damaged(t *testing.T, data []byte, want []Event, what string) {
	t.Helper()
	got, err := decodeAll(data)
	if err == nil {
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: decoded wrong events silently", what)
		}
		t.Fatalf("%s: no error", what)
	}
	var ve *VersionError
	if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrNoFooter) && !errors.As(err, &ve) {
		t.Fatalf("%s: err = %v, want ErrCorrupt, ErrNoFooter or *VersionError", what, err)
	}
}

func TestSegment_EveryByteFlipped(t *testing.T) {
	events := sampleEvents()
	data := encode(t, events)
	want := normalized(events)
	flipped := make([]byte, len(data))
	for i := range data {
		for _, mask := range []byte{0x01, 0x80, 0xff} {
			copy(flipped, data)
			flipped[i] ^= mask
			damaged(t, flipped, want, fmt.Sprintf("byte %d ^ %#x of %d", i, mask, len(data)))
		}
	}
}

func TestSegment_Truncated(t *testing.T) {
	events := sampleEvents()
	data := encode(t, events)
	want := normalized(events)
	for n := 0; n < len(data); n++ {
		_, err := decodeAll(data[:n])
		if !errors.Is(err, ErrNoFooter) {
			t.Fatalf("prefix %d of %d: err = %v, want ErrNoFooter", n, len(data), err)
		}
	}
	// Garbage appended after a valid segment hides its footer.
	damaged(t, append(bytes.Clone(data), "junk"...), want, "appended junk")
}

// encodeWithVersion encodes events with another schema version in the
// footer.
func encodeWithVersion(t *testing.T, events []Event, version string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := encodeSegment(&buf, events, version); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	if err := sealChecksum(data); err != nil {
		t.Fatal(err)
	}
	return data
}

func TestOpenSegment_Versions(t *testing.T) {
	events := sampleEvents()
	for _, v := range []string{"1.0", "1.1", "1.17"} {
		got, err := decodeAll(encodeWithVersion(t, events, v))
		if err != nil || len(got) != len(events) {
			t.Errorf("version %s: %d events, %v", v, len(got), err)
		}
	}
	_, err := OpenSegment(encodeWithVersion(t, events, "2.0"))
	var ve *VersionError
	if !errors.As(err, &ve) || !errors.Is(err, ErrUnknownVersion) {
		t.Fatalf("version 2.0: err = %v, want *VersionError", err)
	}
	if ve.Version != "2.0" || !strings.Contains(err.Error(), `"2.0"`) || !strings.Contains(err.Error(), "1.x") {
		t.Errorf("message %q should name version 2.0 and 1.x", err)
	}
	for _, v := range []string{"", "1", "x.0", "1.0.0"} {
		if _, err := OpenSegment(encodeWithVersion(t, events, v)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("version %q: err = %v, want ErrCorrupt", v, err)
		}
	}
}

func TestOpenSegment_NotASegment(t *testing.T) {
	// A valid Parquet file without the jobevent footer keys.
	var buf bytes.Buffer
	pw := parquet.NewGenericWriter[struct{ A int64 }](&buf)
	if _, err := pw.Write([]struct{ A int64 }{{1}}); err != nil {
		t.Fatal(err)
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenSegment(buf.Bytes()); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("foreign parquet: err = %v, want ErrCorrupt", err)
	}
}

// TestSegment_PagesAndRowGroups decodes a segment split into many row
// groups and small pages, with a dictionary that falls back to plain, and
// segments encoded one after the other by the pooled encoders.
func TestSegment_PagesAndRowGroups(t *testing.T) {
	events := realisticEvents(5000, 11)
	for i := range events {
		if events[i].Kind == KindSubtaskFailed {
			events[i].Error = fmt.Sprintf("failure %d: %s", i, strings.Repeat("x", i%50))
		}
	}
	var buf bytes.Buffer
	err := encodeSegmentGroups(&buf, events, SchemaVersion, 3*segmentBatch,
		parquet.PageBufferSize(2048), parquet.DictionaryMaxBytes(512))
	if err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	if err := sealChecksum(data); err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.RowGroups()); n < 7 {
		t.Fatalf("row groups = %d, want >= 7", n)
	}
	got, err := decodeAll(data)
	if err != nil {
		t.Fatal(err)
	}
	if want := normalized(events); !reflect.DeepEqual(got, want) {
		t.Fatalf("events differ after a paged round trip")
	}
	for i := range 3 {
		batch := realisticEvents(300+i*500, uint64(i))
		if got, err := decodeAll(encode(t, batch)); err != nil || !reflect.DeepEqual(got, normalized(batch)) {
			t.Fatalf("pooled encoder, segment %d: %v", i, err)
		}
	}
}

// TestEncodeSegment_ReusedEncoder checks that an encoder used again writes
// the same bytes as a fresh one, with every column's path_in_schema.
func TestEncodeSegment_ReusedEncoder(t *testing.T) {
	events := realisticEvents(1000, 1)
	fresh := func() []byte {
		var buf bytes.Buffer
		if err := newSegmentEncoder(SchemaVersion).encode(&buf, events); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	want := fresh()
	enc := newSegmentEncoder(SchemaVersion)
	for i := range 3 {
		var buf bytes.Buffer
		if err := enc.encode(&buf, realisticEvents(10+i*100, uint64(i))); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := enc.encode(&buf, events); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("reused encoder wrote %d bytes, a fresh one %d", buf.Len(), len(want))
	}
	f, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	paths := baseSchema.Columns() // the schema of SchemaVersion
	for i, c := range f.Metadata().RowGroups[0].Columns {
		if got, want := strings.Join(c.MetaData.PathInSchema, "."), strings.Join(paths[i], "."); got != want {
			t.Errorf("column %d path_in_schema = %q, want %q", i, got, want)
		}
	}
}

// TestSegment_TornOrCorrupt: only data that can be a strict prefix of a
// segment is torn (ErrNoFooter); a whole segment with a damaged trailer,
// bytes that are not a Parquet file and a segment with bytes after it are
// corrupt.
func TestSegment_TornOrCorrupt(t *testing.T) {
	data := encode(t, sampleEvents())
	n := len(data)
	for i := n - 8; i < n; i++ { // footer length and trailing magic
		for _, mask := range []byte{0x01, 0x80, 0xff} {
			flipped := bytes.Clone(data)
			flipped[i] ^= mask
			if _, err := OpenSegment(flipped); !errors.Is(err, ErrCorrupt) || errors.Is(err, ErrNoFooter) {
				t.Fatalf("byte %d of %d ^ %#x: err = %v, want ErrCorrupt", i, n, mask, err)
			}
		}
	}
	for _, tc := range []struct {
		name string
		data []byte
		torn bool
	}{
		{"empty", nil, true},
		{"magic prefix", []byte("PA"), true},
		{"magic only", []byte("PAR1"), true},
		{"cut 1 byte short", data[:n-1], true},
		{"cut 3 bytes short", data[:n-3], true},
		{"cut 4 bytes short", data[:n-4], true},
		{"half", data[:n/2], true},
		{"text", []byte("hello\n"), false},
		{"short text", []byte("hi"), false},
		{"text ending in the magic", []byte("hello, world PAR1"), false},
		{"junk appended", append(bytes.Clone(data), "junk"...), false},
		{"two segments", append(bytes.Clone(data), data...), false},
	} {
		_, err := OpenSegment(tc.data)
		if tc.torn && !errors.Is(err, ErrNoFooter) {
			t.Errorf("%s: err = %v, want ErrNoFooter", tc.name, err)
		}
		if !tc.torn && (!errors.Is(err, ErrCorrupt) || errors.Is(err, ErrNoFooter)) {
			t.Errorf("%s: err = %v, want ErrCorrupt", tc.name, err)
		}
	}
}
