package main

import (
	"bufio"
	"bytes"
	be "encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/jobevent/jobevent/internal/cputime"
	"github.com/jobevent/jobevent/internal/flinkfixture"
)

// BenchmarkFlinkDryRun is "jobevent replay DIR --dry-run --format json" on
// a Flink job-events directory of 100k finished events: the records of a
// real Flink run (testdata/flink, 1.20.5 rebalance-hash), its finished
// records repeated after them, through the whole command (recognition,
// the read of the files, fold, plan, JSON), in wall and CPU time.
func BenchmarkFlinkDryRun(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(flinkfixture.Find(b, "rebalance-hash").JobEvents, "events.0"))
	if err != nil {
		b.Skip("no real Flink job-events files")
	}
	var finished []byte
	records, perRound := 0, 0
	for off := 0; off+8 <= len(data); {
		end := off + 8 + int(be.BigEndian.Uint32(data[off+4:]))
		if be.BigEndian.Uint32(data[off:]) == 1 {
			finished = append(finished, data[off:end]...)
			perRound++
		}
		records++
		off = end
	}
	if perRound == 0 {
		b.Skip("no finished records")
	}
	dir := filepath.Join(b.TempDir(), "job-events")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		b.Fatal(err)
	}
	// Written piece by piece: a 359 MB buffer built by appends would
	// dominate a CPU profile of the benchmark.
	f, err := os.Create(filepath.Join(dir, "events.0"))
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.Write(data)
	for ; records < 100_000; records += perRound {
		w.Write(finished)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	cpu := cputime.Process()
	for range b.N {
		r := runMain(b.Context(), []string{"jobevent", "replay", dir, "--dry-run", "--format", "json"}, bytes.NewReader(nil), &bytes.Buffer{}, &bytes.Buffer{})
		if r != 0 {
			b.Fatalf("exit %d", r)
		}
	}
	b.ReportMetric((cputime.Process()-cpu).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(records), "records")
	b.ReportMetric(float64(records)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
