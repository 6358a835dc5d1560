package flink

import (
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

// benchRecords is the size of the benchmark's log.
const benchRecords = 100_000

// BenchmarkReader reads a log of the fixture's type 1 records repeated to
// 100k records, and reports records per second.
func BenchmarkReader(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(fixtureDirs[0], "job-events", "events.0"))
	if err != nil {
		b.Fatal(err)
	}
	var finished []byte
	per := 0
	for _, off := range recordOffsets(data) {
		end := off + 8 + int(binary.BigEndian.Uint32(data[off+4:]))
		if binary.BigEndian.Uint32(data[off:]) == TypeVertexFinished {
			finished = append(finished, data[off:end]...)
			per++
		}
	}
	records := 0
	var log []byte
	for records < benchRecords {
		log = append(log, finished...)
		records += per
	}
	fsys := fstest.MapFS{"events.0": &fstest.MapFile{Data: log}}
	b.SetBytes(int64(len(log)))
	b.ResetTimer()
	for range b.N {
		r, err := NewReader(fsys)
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := r.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(records*b.N)/b.Elapsed().Seconds(), "records/s")
}
