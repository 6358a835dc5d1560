package flink

import (
	"encoding/binary"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/jobevent/jobevent/internal/cputime"
	"github.com/jobevent/jobevent/internal/flinkfixture"
)

// benchRecords is the size of the benchmarks' logs.
const benchRecords = 100_000

// finishedRecords returns the type 1 records of files, whole, one after
// the other, and how many there are.
func finishedRecords(tb testing.TB, files []string) ([]byte, int) {
	var out []byte
	n := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		for _, off := range recordOffsets(data) {
			end := off + 8 + int(binary.BigEndian.Uint32(data[off+4:]))
			if end <= len(data) && binary.BigEndian.Uint32(data[off:]) == TypeVertexFinished {
				out = append(out, data[off:end]...)
				n++
			}
		}
	}
	return out, n
}

// realFiles returns the job-events files of the real Flink runs
// (testdata/flink, or $JOBEVENT_FLINK_ROOT).
func realFiles() []string {
	all, _ := flinkfixture.All(flinkfixture.Root())
	var files []string
	for _, sc := range all {
		files = append(files, flinkfixture.EventsFiles(sc.JobEvents)...)
	}
	return files
}

// BenchmarkReader reads a log of the fixture's type 1 records (user
// accumulators, an IPv6 address, partition sizes) repeated to 100k
// records, and reports records per second.
func BenchmarkReader(b *testing.B) {
	unit, per := finishedRecords(b, []string{filepath.Join(fixtureDirs[0], "job-events", "events.0")})
	benchReader(b, unit, per)
}

// BenchmarkReader_Real reads a log of the type 1 records of the real Flink
// runs repeated to 100k records.
func BenchmarkReader_Real(b *testing.B) {
	unit, per := finishedRecords(b, realFiles())
	if per == 0 {
		b.Skip("no real Flink job-events files")
	}
	benchReader(b, unit, per)
}

func benchReader(b *testing.B, unit []byte, per int) {
	fsys := &repeatFS{unit: unit, times: (benchRecords + per - 1) / per}
	records := fsys.times * per
	b.SetBytes(int64(len(unit) * fsys.times))
	b.ResetTimer()
	cpu := cputime.Process()
	for range b.N {
		if n, _, _ := readLog(b, fsys, false); n != records {
			b.Fatalf("read %d records, want %d", n, records)
		}
	}
	reportRate(b, records*b.N, cputime.Process()-cpu)
}

// reportRate reports records per second of the benchmark's time and, where
// the process's CPU time is known, per second of CPU time (with -cpu 1, the
// rate on one core whatever else the machine runs).
func reportRate(b *testing.B, records int, cpu time.Duration) {
	b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
	if cpu > 0 {
		b.ReportMetric(float64(records)/cpu.Seconds(), "records/cpu-s")
	}
}

// BenchmarkReader_Memory reads logs of 100k and 400k real type 1 records
// (the fixture's when there are none) and reports the peak heap in use,
// sampled every 1000 records, and the largest live heap (after a
// collection), sampled every 20k records: neither grows with the log.
func BenchmarkReader_Memory(b *testing.B) {
	unit, per := finishedRecords(b, realFiles())
	if per == 0 {
		unit, per = finishedRecords(b, []string{filepath.Join(fixtureDirs[0], "job-events", "events.0")})
	}
	for _, size := range []struct {
		name    string
		records int
	}{{"100k", benchRecords}, {"400k", 4 * benchRecords}} {
		b.Run(size.name, func(b *testing.B) {
			fsys := &repeatFS{unit: unit, times: (size.records + per - 1) / per}
			var peak, live uint64
			for range b.N {
				runtime.GC()
				_, p, l := readLog(b, fsys, true)
				peak, live = max(peak, p), max(live, l)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(live)/(1<<20), "live-heap-MiB")
		})
	}
}

// readLog reads every record of fsys and returns how many there are and,
// if sample, the peak heap in use, sampled every 1000 records, and the
// largest live heap, sampled every 20k.
func readLog(b *testing.B, fsys fs.FS, sample bool) (n int, peak, live uint64) {
	r, err := NewReader(fsys)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	var ms runtime.MemStats
	for ; ; n++ {
		if _, err := r.Next(); err == io.EOF {
			return n, peak, live
		} else if err != nil {
			b.Fatal(err)
		}
		if sample && n%1000 == 0 {
			if n%20_000 == 0 {
				runtime.GC()
				runtime.ReadMemStats(&ms)
				live = max(live, ms.HeapAlloc)
			}
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
	}
}

// repeatFS is a directory holding events.0: unit repeated times times,
// produced as it is read, so that a long log takes no memory.
type repeatFS struct {
	unit  []byte
	times int
}

func (r *repeatFS) size() int64 { return int64(len(r.unit)) * int64(r.times) }

func (r *repeatFS) Open(name string) (fs.File, error) {
	if name != "events.0" {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &repeatFile{fs: r}, nil
}

func (r *repeatFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name != "." {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	return []fs.DirEntry{fs.FileInfoToDirEntry(repeatInfo{r.size()})}, nil
}

type repeatFile struct {
	fs  *repeatFS
	off int64
}

func (f *repeatFile) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && f.off < f.fs.size() {
		k := copy(p[n:], f.fs.unit[f.off%int64(len(f.fs.unit)):])
		n += k
		f.off += int64(k)
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

func (f *repeatFile) Stat() (fs.FileInfo, error) { return repeatInfo{f.fs.size()}, nil }
func (f *repeatFile) Close() error               { return nil }

type repeatInfo struct{ size int64 }

func (repeatInfo) Name() string       { return "events.0" }
func (i repeatInfo) Size() int64      { return i.size }
func (repeatInfo) Mode() fs.FileMode  { return 0o444 }
func (repeatInfo) ModTime() time.Time { return time.Time{} }
func (repeatInfo) IsDir() bool        { return false }
func (repeatInfo) Sys() any           { return nil }

// BenchmarkDecodePayload decodes the type 1 payloads of the real Flink runs
// (the fixture's when there are none), without the Reader, with the typed
// reader and with the generic reader alone.
func BenchmarkDecodePayload(b *testing.B) {
	unit, per := finishedRecords(b, realFiles())
	if per == 0 {
		unit, per = finishedRecords(b, []string{filepath.Join(fixtureDirs[0], "job-events", "events.0")})
	}
	_, payloads := filePayloads(unit)
	for _, way := range []struct {
		name string
		f    *fastDecoder
	}{{"typed", new(fastDecoder)}, {"generic", nil}} {
		b.Run(way.name, func(b *testing.B) {
			cpu := cputime.Process()
			for i := range b.N {
				if _, err := decodePayload(TypeVertexFinished, payloads[i%len(payloads)], way.f); err != nil {
					b.Fatal(err)
				}
			}
			reportRate(b, b.N, cputime.Process()-cpu)
		})
	}
}
