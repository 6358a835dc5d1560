package format

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

// columnProjections are the projections the column tests read with.
var columnProjections = []Fields{
	FieldSeq,
	FieldBytesOut,
	FieldSeq | FieldEpoch | FieldBytesOut,
	FieldTime | FieldParallelism | FieldRecordsIn,
	ColumnFields,
}

// readColumns reads data with ReadColumns, limit rows at a time, and
// returns its rows as events (the projected fields set) and the error
// that ended the read (nil at io.EOF).
func readColumns(data []byte, fs Fields, limit int) ([]Event, error) {
	sr, err := OpenSegment(data)
	if err != nil {
		return nil, err
	}
	sr.Project(fs)
	var out []Event
	var c Columns
	for {
		n, err := sr.ReadColumns(&c, limit)
		if n != c.Len() {
			return out, fmt.Errorf("ReadColumns returned %d with %d rows", n, c.Len())
		}
		out = append(out, columnEvents(&c)...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if n == 0 {
			return out, errors.New("ReadColumns returned no rows and no error")
		}
	}
}

// columnEvents returns the rows of c as events, only their decoded
// fields set.
func columnEvents(c *Columns) []Event {
	out := make([]Event, c.Len())
	for i := range out {
		e := &out[i]
		e.Seq = c.Seq[i]
		set(c.Epoch, i, &e.Epoch)
		set(c.Subtask, i, &e.Subtask)
		set(c.Parallelism, i, &e.Parallelism)
		set(c.Attempt, i, &e.Attempt)
		set(c.RecordsIn, i, &e.RecordsIn)
		set(c.RecordsOut, i, &e.RecordsOut)
		set(c.BytesIn, i, &e.BytesIn)
		set(c.BytesOut, i, &e.BytesOut)
		if c.Time != nil {
			e.Time = time.Unix(0, c.Time[i]).UTC()
		}
	}
	return out
}

func set[T any](col []T, i int, v *T) {
	if col != nil {
		*v = col[i]
	}
}

// readProjected reads data event by event, projected on fs.
func readProjected(data []byte, fs Fields) ([]Event, error) {
	sr, err := OpenSegment(data)
	if err != nil {
		return nil, err
	}
	sr.Project(fs)
	out, err := nextAll(sr)
	for i := range out {
		out[i] = out[i].Project(fs)
	}
	return out, err
}

// checkColumns requires ReadColumns to read data as Read does: the same
// values of the rows both return, and an error exactly when Read ends in
// one. Where a page fails, the rows returned before the error may differ
// in number: Read decodes 256 rows at a time, ReadColumns limit.
func checkColumns(t *testing.T, data []byte, fs Fields, limit int) {
	t.Helper()
	want, wantErr := readProjected(data, fs)
	got, err := readColumns(data, fs, limit)
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("%s, limit %d: err = %v, want %v", fs, limit, err, wantErr)
	}
	n := len(got)
	if err != nil {
		n = min(n, len(want))
		var ve *VersionError
		if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrNoFooter) && !errors.As(err, &ve) {
			t.Fatalf("%s, limit %d: error %v is none of ErrCorrupt, ErrNoFooter, *VersionError", fs, limit, err)
		}
	} else if len(got) != len(want) {
		t.Fatalf("%s, limit %d: rows = %d, want %d", fs, limit, len(got), len(want))
	}
	for i := range n {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("%s, limit %d: row %d:\n got %+v\nwant %+v", fs, limit, i, got[i], want[i])
		}
	}
}

func TestSegmentReader_ReadColumns(t *testing.T) {
	events := realisticEvents(5000, 7)
	var buf bytes.Buffer
	// Many row groups and small pages: runs that cross both.
	err := encodeSegmentGroups(&buf, events, SchemaVersion, 3*segmentBatch, parquet.PageBufferSize(2048))
	if err != nil {
		t.Fatal(err)
	}
	paged := buf.Bytes()
	if err := sealChecksum(paged); err != nil {
		t.Fatal(err)
	}
	segments := map[string][]byte{
		"sample":    encode(t, sampleEvents()),
		"realistic": encode(t, realisticEvents(3000, 3)),
		"paged":     paged,
		"empty":     encode(t, nil),
	}
	for name, data := range segments {
		for _, fs := range columnProjections {
			for _, limit := range []int{1, 7, 256, 1000, 1 << 20} {
				t.Run(fmt.Sprintf("%s/%s/%d", name, fs, limit), func(t *testing.T) {
					checkColumns(t, data, fs, limit)
				})
			}
		}
	}
}

// TestSegmentReader_ReadColumnsValues: the columns hold the events'
// values, 0 where the kind has no such field.
func TestSegmentReader_ReadColumnsValues(t *testing.T) {
	events := realisticEvents(2000, 5)
	got, err := readColumns(encode(t, events), ColumnFields, 300)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(events) {
		t.Fatalf("rows = %d, want %d", len(got), len(events))
	}
	var sum, want int64
	for i := range events {
		sum += got[i].BytesOut
		want += events[i].BytesOut
		if p := events[i].Project(ColumnFields); !reflect.DeepEqual(got[i], p) {
			t.Fatalf("row %d:\n got %+v\nwant %+v", i, got[i], p)
		}
	}
	if sum != want || want == 0 {
		t.Fatalf("sum(bytes_out) = %d, want %d (not 0)", sum, want)
	}
}

func TestSegmentReader_ReadColumnsProjection(t *testing.T) {
	data := encode(t, sampleEvents())
	for _, fs := range []Fields{AllFields, FieldKind, FieldBytesOut | FieldVertex} {
		sr, err := OpenSegment(data)
		if err != nil {
			t.Fatal(err)
		}
		sr.Project(fs)
		var c Columns
		if _, err := sr.ReadColumns(&c, 10); !errors.Is(err, errNotColumns) {
			t.Fatalf("%s: err = %v, want errNotColumns", fs, err)
		}
	}
}

// TestSegmentReader_ReadColumnsDamaged: a segment damaged past its
// checksum (resealed) reads with ReadColumns as with Read, truncated at
// every offset of its pages and with a byte changed at each.
func TestSegmentReader_ReadColumnsDamaged(t *testing.T) {
	data := encode(t, realisticEvents(400, 9))
	step := max(len(data)/300, 1)
	for off := 4; off < len(data)-8; off += step {
		flipped := bytes.Clone(data)
		flipped[off] ^= 0x5a
		for _, d := range [][]byte{data[:off], flipped} {
			if sealed, ok := resealed(d); ok {
				d = sealed
			}
			for _, fs := range []Fields{FieldBytesOut, ColumnFields} {
				checkColumns(t, d, fs, 100)
			}
		}
	}
}

// FuzzReadColumns checks that no input panics ReadColumns and that it
// reads as Read does, with the checksum as found and recomputed.
func FuzzReadColumns(f *testing.F) {
	segmentSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkColumns(t, data, ColumnFields, 100)
		if sealed, ok := resealed(data); ok {
			checkColumns(t, sealed, ColumnFields, 100)
			checkColumns(t, sealed, FieldBytesOut, 7)
		}
	})
}
