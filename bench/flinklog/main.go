// Command flinklog makes and reads a large Flink job-events directory, for
// interop/flink/readbench.sh, which times the same directory with Flink's
// own FileSystemJobEventStore.
//
//	flinklog -gen -records N -from FILE -dir D
//
// writes D/job-events/events.0: the records of FILE (a real events.N)
// followed by its vertex-finished records (flink.TypeVertexFinished)
// repeated until the file holds at least N records, as BenchmarkDryRun in
// pkg/flink builds its log. It prints the records and bytes written.
//
//	flinklog -read -dir D/job-events -runs R
//
// opens the directory with flink.OpenDir and reads every record with Next
// to io.EOF, R times; any error is fatal (exit 1). Each run prints its wall
// time, the CPU time of the whole process (user and system, every thread)
// and the records read; the last line, "best wall X s cpu Y s records N",
// gives the fastest run's wall time and the least CPU time of any run. The
// collector starts its heap as the jobevent command's does (gcstart.Default).
package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/jobevent/jobevent/internal/cputime"
	"github.com/jobevent/jobevent/internal/gcstart"
	"github.com/jobevent/jobevent/pkg/flink"
)

func main() {
	gcstart.Heap(gcstart.Default) // as cmd/jobevent starts
	var (
		gen     = flag.Bool("gen", false, "write DIR/job-events/events.0 from -from")
		read    = flag.Bool("read", false, "read the job-events directory DIR")
		dir     = flag.String("dir", "", "with -gen, the directory to create job-events/ in; with -read, the job-events directory")
		from    = flag.String("from", "", "with -gen, the real job-events file whose records are copied")
		records = flag.Int("records", 100_000, "with -gen, the least number of records to write")
		runs    = flag.Int("runs", 5, "with -read, the timed runs")
	)
	flag.Parse()
	switch {
	case *gen == *read || *dir == "" || flag.NArg() != 0:
		usage()
	case *gen:
		if *from == "" || *records < 1 {
			usage()
		}
		if err := generate(*from, *dir, *records); err != nil {
			fail(err)
		}
	default:
		if *runs < 1 {
			usage()
		}
		bench(*dir, *runs)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: flinklog -gen -records N -from FILE -dir D\n       flinklog -read -dir D/job-events [-runs R]")
	os.Exit(2)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "flinklog:", err)
	os.Exit(1)
}

// frames splits data into its records (type, length, payload), checking
// that they cover it exactly.
func frames(data []byte) ([][]byte, error) {
	var recs [][]byte
	for off := 0; off < len(data); {
		if len(data)-off < 8 {
			return nil, fmt.Errorf("%d bytes after the last record at offset %d", len(data)-off, off)
		}
		n := int(binary.BigEndian.Uint32(data[off+4:]))
		end := off + 8 + n
		if n < 0 || end > len(data) || end < off {
			return nil, fmt.Errorf("record at offset %d claims %d bytes, past the end", off, n)
		}
		recs = append(recs, data[off:end])
		off = end
	}
	return recs, nil
}

func generate(from, dir string, want int) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	recs, err := frames(data)
	if err != nil {
		return fmt.Errorf("%s: %w", from, err)
	}
	var finished [][]byte
	for _, r := range recs {
		if int32(binary.BigEndian.Uint32(r)) == flink.TypeVertexFinished {
			finished = append(finished, r)
		}
	}
	if len(finished) == 0 && len(recs) < want {
		return fmt.Errorf("%s: no vertex-finished record to repeat", from)
	}
	out := filepath.Join(dir, "job-events")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	name := filepath.Join(out, flink.FilePrefix+"0")
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	n, size := 0, 0
	put := func(rs [][]byte) {
		for _, r := range rs {
			w.Write(r) // a write error stays in w and is returned by Flush
			n++
			size += len(r)
		}
	}
	put(recs)
	for n < want {
		put(finished)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Printf("wrote %s: records %d bytes %d (%d from %s, then its %d vertex-finished records repeated)\n",
		name, n, size, len(recs), from, len(finished))
	return nil
}

// drain reads every record of the job-events directory dir.
func drain(dir string) (int64, error) {
	r, err := flink.OpenDir(dir)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	var n int64
	for {
		_, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return n, err
		}
		n++
	}
	for _, w := range r.Warnings() {
		fmt.Fprintf(os.Stderr, "flinklog: warning: %v\n", w)
	}
	return n, nil
}

func bench(dir string, runs int) {
	var bestWall, bestCPU time.Duration
	var records int64
	fmt.Printf("jobevent flink.OpenDir + Next to io.EOF over %s, %d runs, GOMAXPROCS %d, no warm-up run\n", dir, runs, runtime.GOMAXPROCS(0))
	for i := 1; i <= runs; i++ {
		start, cpu0 := time.Now(), cputime.Process()
		n, err := drain(dir)
		wall, cpu := time.Since(start), cputime.Process()-cpu0
		if err != nil {
			fail(fmt.Errorf("run %d: after %d records: %w", i, n, err))
		}
		if i > 1 && n != records {
			fail(fmt.Errorf("run %d read %d records, run 1 %d", i, n, records))
		}
		records = n
		fmt.Printf("run %d wall %.4f s cpu %.4f s records %d\n", i, wall.Seconds(), cpu.Seconds(), n)
		if i == 1 || wall < bestWall {
			bestWall = wall
		}
		if i == 1 || cpu < bestCPU {
			bestCPU = cpu
		}
	}
	fmt.Printf("best wall %.4f s cpu %.4f s records %d\n", bestWall.Seconds(), bestCPU.Seconds(), records)
}
