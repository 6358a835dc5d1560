package flink_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/jobevent/jobevent/internal/flinkfixture"
	"github.com/jobevent/jobevent/pkg/flink"
	"github.com/jobevent/jobevent/pkg/replay"
)

// BenchmarkDryRun is `replay --dry-run` on a Flink log of 100k finished
// events: the records of a real Flink run (testdata/flink, 1.20.5
// rebalance-hash) with its finished records repeated after them, opened,
// read again as events, folded and planned.
func BenchmarkDryRun(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(flinkfixture.Find(b, "rebalance-hash").JobEvents, "events.0"))
	if err != nil {
		b.Skip("no real Flink job-events files")
	}
	var finished []byte
	for off := 0; off+8 <= len(data); {
		end := off + 8 + int(binary.BigEndian.Uint32(data[off+4:]))
		if binary.BigEndian.Uint32(data[off:]) == flink.TypeVertexFinished {
			finished = append(finished, data[off:end]...)
		}
		off = end
	}
	log, records := append([]byte(nil), data...), countRecords(data)
	for len(finished) > 0 && records < 100_000 {
		log = append(log, finished...)
		records += countRecords(finished)
	}
	fsys := fstest.MapFS{"events.0": &fstest.MapFile{Data: log}}
	b.ResetTimer()
	for range b.N {
		l, err := flink.Open(fsys, flink.Options{})
		if err != nil {
			b.Fatal(err)
		}
		src, err := l.Events()
		if err != nil {
			b.Fatal(err)
		}
		s, err := replay.Fold(src, 0)
		src.Close()
		if err != nil {
			b.Fatal(err)
		}
		s.SetProfile(replay.ProfileFlink)
		avail, err := replay.BuildAvailability(s, replay.AvailabilityOptions{})
		if err != nil {
			b.Fatal(err)
		}
		replay.Plan(s, avail)
	}
	b.ReportMetric(float64(records), "records")
}

func countRecords(data []byte) int {
	n := 0
	for off := 0; off+8 <= len(data); n++ {
		off += 8 + int(binary.BigEndian.Uint32(data[off+4:]))
	}
	return n
}
