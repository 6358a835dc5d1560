package progress

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
)

// benchReporter is an enabled reporter drawing into io.Discard on its own
// ticker, as on a terminal.
func benchReporter(b *testing.B) *Reporter {
	b.Helper()
	r := New(terminalOut{io.Discard}, terminalOut{io.Discard}, Options{
		IsTerminal: isFakeTerminal, Getenv: func(string) string { return "" }, Width: func() int { return 100 },
	})
	b.Cleanup(r.Done)
	return r
}

// BenchmarkAdd is the cost per event counted while the line is drawn.
func BenchmarkAdd(b *testing.B) {
	r := benchReporter(b)
	r.Start("dump", int64(b.N), Events)
	for b.Loop() {
		r.Add(1)
	}
}

// BenchmarkAdd_Disabled is the same on a pipe: the reporter is off.
func BenchmarkAdd_Disabled(b *testing.B) {
	r := New(&bytes.Buffer{}, &bytes.Buffer{}, Options{})
	r.Start("dump", int64(b.N), Events)
	for b.Loop() {
		r.Add(1)
	}
}

// BenchmarkWriter is the cost of writing 4 KiB chunks of lines through the
// reporter's Writer, as dump's buffered printers do.
func BenchmarkWriter(b *testing.B) {
	r := benchReporter(b)
	w := r.Writer(io.Discard)
	chunk := []byte(strings.Repeat("12345  2026-12-02T10:00:00.000000000Z  1  subtask_finished  job  v  3  0  w1  records=1/1\n", 46)[:4096])
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		w.Write(chunk)
	}
}

// BenchmarkRender is the cost of one drawing's text.
func BenchmarkRender(b *testing.B) {
	s := status{label: "import: writing", unit: Events, cur: 123456, total: 200000, elapsed: 3 * time.Second}
	for b.Loop() {
		render(s, 120)
	}
}
