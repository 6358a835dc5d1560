package format

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// readStaged reads data whole with the projection fs in two stages, as a
// caller on two goroutines does: ReadFront runs ahead batches ahead of
// ReadBack. It returns the events and the error that ended the read (nil
// at the end).
func readStaged(data []byte, fs Fields, ahead int) ([]Event, error) {
	sr, err := OpenSegment(data)
	if err != nil {
		return nil, err
	}
	sr.Project(fs)
	type batch struct {
		buf []Event
		b   Batch
		n   int
		err error
	}
	var queue []*batch
	var all []Event
	frontDone := false
	for {
		for !frontDone && len(queue) <= ahead {
			q := &batch{buf: make([]Event, BatchRows)}
			q.n, q.err = sr.ReadFront(q.buf, &q.b)
			queue = append(queue, q)
			frontDone = q.err != nil
		}
		q := queue[0]
		queue = queue[1:]
		n, err := sr.ReadBack(q.buf, &q.b, q.n, q.err)
		all = append(all, q.buf[:n]...)
		if errors.Is(err, io.EOF) {
			return all, nil
		}
		if err != nil {
			return all, err
		}
	}
}

// TestSegmentReader_Stages: a segment read in two stages, the first up
// to three batches ahead of the second, reads the events and the first
// error of a whole read, for every projection, on segments whole and
// damaged (with the checksum sealed again, so that the damage reaches the
// columns), and across row groups.
func TestSegmentReader_Stages(t *testing.T) {
	var grouped bytes.Buffer // row groups of 773 rows and small pages: batches end at their ends
	if err := encodeSegmentGroups(&grouped, realisticEvents(2000, 3), SchemaVersion, 3*segmentBatch+5, parquet.PageBufferSize(2048)); err != nil {
		t.Fatal(err)
	}
	if err := sealChecksum(grouped.Bytes()); err != nil {
		t.Fatal(err)
	}
	whole := [][]byte{encode(t, sampleEvents()), encode(t, realisticEvents(3000, 11)), grouped.Bytes()}
	segments := whole
	data := encode(t, realisticEvents(1200, 5))
	for i := 0; i < len(data); i += 97 {
		for _, mask := range []byte{0x01, 0xff} {
			flipped := append([]byte(nil), data...)
			flipped[i] ^= mask
			if sealed, ok := resealed(flipped); ok {
				segments = append(segments, sealed)
			}
		}
	}
	damaged := 0
	for k, data := range segments {
		for _, fs := range projections {
			want, wantErr := decodeProjected(data, fs, BatchRows)
			if k < len(whole) && (wantErr != nil || len(want) == 0) {
				t.Fatalf("whole segment %d, fields %s: %d events, error %v", k, fs, len(want), wantErr)
			}
			for _, ahead := range []int{0, 3} {
				got, err := readStaged(data, fs, ahead)
				name := fmt.Sprintf("segment %d, fields %s, %d ahead", k, fs, ahead)
				if fmt.Sprint(err) != fmt.Sprint(wantErr) {
					t.Fatalf("%s: error %v, want %v", name, err, wantErr)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: %d events differ from a whole read's %d", name, len(got), len(want))
				}
			}
			if wantErr != nil && fs == AllFields {
				damaged++
			}
		}
	}
	if damaged < 10 {
		t.Fatalf("only %d damaged segments fail to read: the test damages too little", damaged)
	}
}
