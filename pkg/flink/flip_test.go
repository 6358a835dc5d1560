package flink

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

// flipTable is a table written by interop/flink/flipcheck.sh: per offset
// of a job-events file, what Flink's own reader makes of the file with the
// byte at that offset XORed with mask: "reads N" or "fails".
type flipTable struct {
	flink   string // the Flink version that made it
	file    string // relative to the module root
	mask    byte
	base    string
	verdict []string // by offset
}

func readFlipTable(t *testing.T, path string) *flipTable {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab := &flipTable{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "# "); ok {
			// # Flink V FileSystemJobEventStore reading FILE (N bytes) with one byte XOR 0xMM; ...
			fields := strings.Fields(rest)
			tab.flink, tab.file = fields[1], fields[4]
			m, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(fields[11], "0x"), ";"), 16, 8)
			if err != nil {
				t.Fatalf("%s: header %q: %v", path, line, err)
			}
			tab.mask = byte(m)
			continue
		}
		span, v, _ := strings.Cut(line, " ")
		if span == "base" {
			tab.base = v
			continue
		}
		from, to, ok := strings.Cut(span, "-")
		if !ok {
			to = from
		}
		a, err1 := strconv.Atoi(from)
		b, err2 := strconv.Atoi(to)
		if err1 != nil || err2 != nil || a != len(tab.verdict) || b < a {
			t.Fatalf("%s: line %q out of order", path, line)
		}
		for range b - a + 1 {
			tab.verdict = append(tab.verdict, v)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return tab
}

// readVerdict reads data as the only file of a job-events directory and
// says what jobevent's reader makes of it, in the table's words, with the
// error behind "fails".
func readVerdict(data []byte) (string, error) {
	r, err := NewReader(fstest.MapFS{"events.0": {Data: data}})
	if err != nil {
		return "", err
	}
	defer r.Close()
	n := 0
	for {
		_, err := r.Next()
		if errors.Is(err, io.EOF) {
			return "reads " + strconv.Itoa(n), nil
		}
		if IsCorrupt(err) {
			return "fails", err
		}
		if err != nil {
			return "", err
		}
		n++
	}
}

// flipVersions are the Flink lines the flip tables must cover, each with
// both masks: the two the harness runs (interop/flink/build.sh).
var flipVersions = []string{"1.20.", "2."}

// TestFlipMatrix_Java: every byte of a real events.N flipped in turn is
// read, or refused, as Flink's own FileSystemJobEventStore does (the
// tables under testdata/flips, made by interop/flink/flipcheck.sh with
// Flink's classes), for Flink 1.20 and 2.x alike.
// The Java side runs with Flink's default JobManager heap (1 GiB), which
// decides what a huge claimed length does (jobManagerHeap).
func TestFlipMatrix_Java(t *testing.T) {
	tables, err := filepath.Glob("testdata/flips/*.txt")
	if err != nil || len(tables) == 0 {
		t.Fatalf("no flip tables: %v", err)
	}
	masks := make(map[string]map[byte]bool) // by version line
	for _, path := range tables {
		t.Run(filepath.Base(path), func(t *testing.T) {
			tab := readFlipTable(t, path)
			for _, v := range flipVersions {
				if strings.HasPrefix(tab.flink, v) {
					if masks[v] == nil {
						masks[v] = make(map[byte]bool)
					}
					masks[v][tab.mask] = true
				}
			}
			data, err := os.ReadFile(filepath.Join("..", "..", tab.file))
			if err != nil {
				t.Fatal(err)
			}
			if len(tab.verdict) != len(data) {
				t.Fatalf("table has %d offsets, %s %d bytes", len(tab.verdict), tab.file, len(data))
			}
			if got, err := readVerdict(data); got != tab.base {
				t.Fatalf("unflipped: %s (%v), want %s", got, err, tab.base)
			}
			var wrong []string
			for off := range data {
				flipped := append([]byte(nil), data...)
				flipped[off] ^= tab.mask
				got, err := readVerdict(flipped)
				if got != tab.verdict[off] {
					wrong = append(wrong, fmt.Sprintf("offset %d (0x%02x->0x%02x): %s (%v), Flink %s", off, data[off], flipped[off], got, err, tab.verdict[off]))
				}
			}
			if len(wrong) > 0 {
				t.Errorf("%d of %d flips read unlike Flink:\n%s", len(wrong), len(data), strings.Join(wrong, "\n"))
			}
		})
	}
	for _, v := range flipVersions {
		if !masks[v][0x01] || !masks[v][0xff] {
			t.Errorf("flip tables of Flink %sx: masks %v, want 0x01 and 0xff (FLINK=%s interop/flink/flipcheck.sh)", v, masks[v], strings.TrimSuffix(v, "."))
		}
	}
}
