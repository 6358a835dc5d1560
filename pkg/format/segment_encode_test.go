package format

import (
	"bytes"
	"errors"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

// TestSegmentEncoder_ColumnsSplit checks that writeFlat and writeLists
// together write every column exactly once.
func TestSegmentEncoder_ColumnsSplit(t *testing.T) {
	var seen [numColumns]int
	for _, col := range commonColumns {
		seen[col]++
	}
	for _, col := range flatColumns {
		seen[col]++
	}
	for _, g := range listGroups {
		for _, col := range g.cols {
			seen[col]++
		}
	}
	for col, n := range seen {
		if n != 1 {
			t.Errorf("column %s is written %d times, want 1", columnPaths[col], n)
		}
	}
}

// TestEncodeSegment_ConcurrentSameBytes checks that a segment written with
// its flat and list columns on two goroutines is byte for byte the one
// written on one, with one and with several row groups and pages, in both
// schemas.
func TestEncodeSegment_ConcurrentSameBytes(t *testing.T) {
	events := realisticEvents(20*concurrentEvents, 3)
	datasets := realisticEvents(3*concurrentEvents, 4)
	datasets[0].Graph.Datasets = []Dataset{{ID: "d1", Producer: "source"}}
	cases := []struct {
		name      string
		events    []Event
		groupRows int
		extra     []parquet.WriterOption
	}{
		{"one group", events, rowGroupRows, nil},
		{"small pages and groups", events, 5*concurrentEvents + 7, []parquet.WriterOption{parquet.PageBufferSize(4096)}},
		{"datasets", datasets, rowGroupRows, nil},
	}
	for _, c := range cases {
		encodeWith := func(procs int) []byte {
			defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(procs))
			var buf bytes.Buffer
			extra := append([]parquet.WriterOption{}, c.extra...) // a fresh encoder, not the pooled one
			extra = append(extra, parquet.KeyValueMetadata("test", c.name))
			if err := encodeSegmentGroups(&buf, c.events, SchemaVersion, c.groupRows, extra...); err != nil {
				t.Fatalf("%s, GOMAXPROCS %d: %v", c.name, procs, err)
			}
			return buf.Bytes()
		}
		one, two := encodeWith(1), encodeWith(2)
		if !bytes.Equal(one, two) {
			t.Errorf("%s: concurrent encoding wrote %d bytes, sequential %d, or other bytes", c.name, len(two), len(one))
		}
	}
}

// TestEncodeSegment_ConcurrentErrors checks that the first bad event of a
// large segment is the one reported, whichever goroutine meets it.
func TestEncodeSegment_ConcurrentErrors(t *testing.T) {
	far := time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, procs := range []int{1, 2} {
		func() {
			defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(procs))
			events := realisticEvents(4*concurrentEvents, 5)
			events[3000].Kind = "bogus"
			var buf bytes.Buffer
			err := EncodeSegment(&buf, events)
			if err == nil || !strings.Contains(err.Error(), "seq 3001: unknown kind") {
				t.Errorf("GOMAXPROCS %d, unknown kind: err %v, want seq 3001's", procs, err)
			}
			events[2000].Time = far
			if err := EncodeSegment(&buf, events); !errors.Is(err, ErrTimeRange) || !strings.Contains(err.Error(), "seq 2001") {
				t.Errorf("GOMAXPROCS %d, time range before unknown kind: err %v, want seq 2001's ErrTimeRange", procs, err)
			}
		}()
	}
}
