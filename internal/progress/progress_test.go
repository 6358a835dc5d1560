package progress

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// screen emulates the part of a terminal the reporter relies on: text
// overwrites the current line from the cursor, '\r' returns to column 0,
// '\n' moves to a new line, and ESC [ K erases to the end of the line.
// stdout and stderr both write into it, as on one terminal.
type screen struct {
	mu    sync.Mutex
	lines [][]rune
	col   int
	raw   bytes.Buffer
}

func newScreen() *screen { return &screen{lines: [][]rune{nil}} }

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.raw.Write(p)
	text := string(p)
	for len(text) > 0 {
		if strings.HasPrefix(text, eraseLine) {
			row := len(s.lines) - 1
			if s.col < len(s.lines[row]) {
				s.lines[row] = s.lines[row][:s.col]
			}
			text = text[len(eraseLine):]
			continue
		}
		r, size := utf8.DecodeRuneInString(text)
		text = text[size:]
		switch r {
		case '\r':
			s.col = 0
		case '\n':
			s.lines = append(s.lines, nil)
			s.col = 0
		default:
			row := len(s.lines) - 1
			for len(s.lines[row]) <= s.col {
				s.lines[row] = append(s.lines[row], ' ')
			}
			s.lines[row][s.col] = r
			s.col++
		}
	}
	return len(p), nil
}

// String returns the screen's lines, each ending in '\n' but the last
// (the line the cursor is on).
func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.lines))
	for i, l := range s.lines {
		out[i] = string(l)
	}
	return strings.Join(out, "\n")
}

// terminalOut is a writer the fake terminal check accepts.
type terminalOut struct{ io.Writer }

func isFakeTerminal(w io.Writer) bool {
	_, ok := w.(terminalOut)
	return ok
}

// testReporter returns an enabled reporter on a fake terminal whose
// stdout and stderr share scr, with a fake clock and no ticker of its
// own.
func testReporter(t *testing.T, scr *screen, clk *fakeClock) (r *Reporter, stdout io.Writer) {
	t.Helper()
	stdout = terminalOut{scr}
	r = New(stdout, terminalOut{scr}, Options{
		Now:        clk.Now,
		IsTerminal: isFakeTerminal,
		Getenv:     func(string) string { return "" },
		Width:      func() int { return 80 },
		Ticks:      make(chan time.Time), // never ticks: the test calls Refresh
	})
	if !r.Enabled() {
		t.Fatal("reporter on a fake terminal is disabled")
	}
	t.Cleanup(r.Done)
	return r, stdout
}

func TestNew_Enabled(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	var plain bytes.Buffer
	term := terminalOut{&plain}
	cases := []struct {
		name           string
		stdout, stderr io.Writer
		quiet          bool
		getenv         func(string) string
		want           bool
	}{
		{"both terminals", term, term, false, env("TERM", "xterm"), true},
		{"CI=false", term, term, false, env("CI", "false"), true},
		{"stdout piped", &plain, term, false, env(), true},
		{"stderr piped", term, &plain, false, env(), false},
		{"quiet", term, term, true, env(), false},
		{"CI=true", term, term, false, env("CI", "true"), false},
		{"CI=1", term, term, false, env("CI", "1"), false},
		{"TERM=dumb", term, term, false, env("TERM", "dumb"), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := New(tc.stdout, tc.stderr, Options{Quiet: tc.quiet, IsTerminal: isFakeTerminal, Getenv: tc.getenv,
				Ticks: make(chan time.Time)})
			defer r.Done()
			if got := r.Enabled(); got != tc.want {
				t.Fatalf("Enabled() = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNew_RealFilesAreNotTerminals(t *testing.T) {
	rd, f, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	defer f.Close()
	if IsTerminal(f) {
		t.Fatal("IsTerminal(pipe) = true, want false")
	}
	if IsTerminal(&bytes.Buffer{}) {
		t.Fatal("IsTerminal(buffer) = true, want false")
	}
	// The default check on buffers: disabled whatever the environment.
	r := New(&bytes.Buffer{}, &bytes.Buffer{}, Options{})
	defer r.Done()
	if r.Enabled() {
		t.Fatal("reporter on buffers is enabled")
	}
}

func TestReporter_DisabledWritesNothing(t *testing.T) {
	var stdout, stderr bytes.Buffer
	clk := newFakeClock()
	r := New(&stdout, &stderr, Options{Now: clk.Now, Delay: -1})
	r.Start("dump", 100, Events)
	r.Add(50)
	clk.advance(time.Second)
	r.Refresh()
	w := r.Writer(&stdout)
	if w != io.Writer(&stdout) {
		t.Fatal("Writer of a disabled reporter wraps its writer")
	}
	rd := strings.NewReader("abc")
	if r.Reader(rd) != io.Reader(rd) {
		t.Fatal("Reader of a disabled reporter wraps its reader")
	}
	fmtLine(w, "row 1")
	r.Done()
	if stderr.Len() != 0 {
		t.Fatalf("stderr = %q, want nothing", stderr.String())
	}
	if got := stdout.String(); got != "row 1\n" {
		t.Fatalf("stdout = %q, want %q", got, "row 1\n")
	}
	if n := r.Drawings(); n != 0 {
		t.Fatalf("drawings = %d, want 0", n)
	}
}

func fmtLine(w io.Writer, s string) {
	io.WriteString(w, s+"\n")
}

func TestRefresh_DelayAndThrottle(t *testing.T) {
	scr, clk := newScreen(), newFakeClock()
	r, _ := testReporter(t, scr, clk)
	r.Start("validate", 1000, Events)
	r.Add(100)
	steps := []struct {
		advance time.Duration
		drawn   int // total drawings after the step
	}{
		{0, 0},                      // t=0: within the delay
		{200 * time.Millisecond, 0}, // t=200ms: still within it
		{60 * time.Millisecond, 1},  // t=260ms: first draw
		{50 * time.Millisecond, 1},  // t=310ms: throttled
		{49 * time.Millisecond, 1},  // t=359ms: throttled
		{1 * time.Millisecond, 2},   // t=360ms: 100ms after the first
		{0, 2},                      // same instant: throttled
		{time.Second, 3},
	}
	for i, s := range steps {
		clk.advance(s.advance)
		r.Add(1) // the line changes at every step
		r.Refresh()
		if got := r.Drawings(); got != s.drawn {
			t.Fatalf("step %d: drawings = %d, want %d", i, got, s.drawn)
		}
	}
	if got := scr.String(); !strings.HasPrefix(got, "validate [") || !strings.Contains(got, "108/1,000 events") {
		t.Fatalf("screen = %q, want the bar of validate at 108/1,000 events", got)
	}
}

func TestRefresh_SkipsAnUnchangedLine(t *testing.T) {
	scr, clk := newScreen(), newFakeClock()
	r, _ := testReporter(t, scr, clk)
	r.Start("run", 1000, Subtasks) // no rate: the line changes with the count and the second
	r.Add(10)
	clk.advance(time.Second)
	r.Refresh()
	clk.advance(100 * time.Millisecond)
	r.Refresh() // same count, same second: the same line
	if n := r.Drawings(); n != 1 {
		t.Fatalf("drawings = %d, want 1: the second line was the same", n)
	}
	r.Add(1)
	clk.advance(100 * time.Millisecond)
	r.Refresh()
	if n := r.Drawings(); n != 2 {
		t.Fatalf("drawings = %d after a change, want 2", n)
	}
}

func TestDone_ClearsTheLine(t *testing.T) {
	scr, clk := newScreen(), newFakeClock()
	r, _ := testReporter(t, scr, clk)
	r.Start("import", 4<<20, Bytes)
	r.Add(1 << 20)
	clk.advance(time.Second)
	r.Refresh()
	if got := scr.String(); !strings.Contains(got, " 25%") || !strings.Contains(got, "1.0/4.0 MiB") {
		t.Fatalf("screen = %q, want a bar at 25%% of 4.0 MiB", got)
	}
	r.Done()
	r.Done() // a second call does nothing
	if got := scr.String(); got != "" {
		t.Fatalf("screen after Done = %q, want it empty", got)
	}
	clk.advance(time.Second)
	r.Refresh() // after Done: nothing
	if got := scr.String(); got != "" {
		t.Fatalf("screen after a Refresh after Done = %q, want it empty", got)
	}
}

func TestDone_NothingDrawnWritesNothing(t *testing.T) {
	scr, clk := newScreen(), newFakeClock()
	r, _ := testReporter(t, scr, clk)
	r.Start("dump", 10, Events)
	r.Add(10)
	r.Refresh() // within the delay
	r.Done()
	if scr.raw.Len() != 0 {
		t.Fatalf("a quick operation wrote %q, want nothing", scr.raw.String())
	}
}

func TestWriter_LinesAboveTheBar(t *testing.T) {
	scr, clk := newScreen(), newFakeClock()
	r, stdout := testReporter(t, scr, clk)
	out := r.Writer(stdout)
	r.Start("dump", 3, Events)
	clk.advance(time.Second)
	r.Refresh()

	io.WriteString(out, "row 1\nrow 2 begins")
	r.Add(2)
	if got := scr.String(); got != "row 1\n" {
		t.Fatalf("screen = %q, want row 1 and the cursor on an empty line", got)
	}
	clk.advance(time.Second)
	r.Refresh() // the partial line is held back: the bar is drawn below row 1
	if got := scr.String(); !strings.HasPrefix(got, "row 1\ndump [") || !strings.Contains(got, "2/3 events") {
		t.Fatalf("screen = %q, want row 1 then the bar at 2/3", got)
	}
	io.WriteString(out, " and ends\nrow 3")
	r.Done()
	want := "row 1\nrow 2 begins and ends\nrow 3"
	if got := scr.String(); got != want {
		t.Fatalf("screen after Done = %q, want %q", got, want)
	}
	io.WriteString(out, "\nafter\n") // after Done: straight through
	if got := scr.String(); got != want+"\nafter\n" {
		t.Fatalf("screen = %q, want %q", got, want+"\nafter\n")
	}
}

func TestWriter_LongPartialLineStopsDrawing(t *testing.T) {
	scr, clk := newScreen(), newFakeClock()
	r, stdout := testReporter(t, scr, clk)
	out := r.Writer(stdout)
	r.Start("dump", 0, Events)
	long := strings.Repeat("x", maxHeld+1)
	io.WriteString(out, long)
	clk.advance(time.Second)
	r.Refresh()
	if n := r.Drawings(); n != 0 {
		t.Fatalf("drawings = %d with the cursor inside a line, want 0", n)
	}
	io.WriteString(out, "\n")
	clk.advance(time.Second)
	r.Refresh()
	if n := r.Drawings(); n != 1 {
		t.Fatalf("drawings = %d after the newline, want 1", n)
	}
	r.Done()
	if got := scr.String(); got != long+"\n" {
		t.Fatalf("screen = %d bytes, want the long line alone", len(got))
	}
}

func TestReporter_Ticks(t *testing.T) {
	scr, clk := newScreen(), newFakeClock()
	ticks := make(chan time.Time)
	r := New(terminalOut{scr}, terminalOut{scr}, Options{
		Now: clk.Now, IsTerminal: isFakeTerminal, Getenv: func(string) string { return "" },
		Width: func() int { return 60 }, Ticks: ticks,
	})
	r.Start("drill", 0, Cases)
	clk.advance(time.Second)
	ticks <- clk.Now() // received by the reporter's goroutine, which draws
	r.Done()           // waits for that goroutine
	if n := r.Drawings(); n != 1 {
		t.Fatalf("drawings = %d after one tick, want 1", n)
	}
	if !strings.Contains(scr.raw.String(), "drill | 0 cases") {
		t.Fatalf("output = %q, want the spinner of drill", scr.raw.String())
	}
	if got := scr.String(); got != "" {
		t.Fatalf("screen after Done = %q, want it empty", got)
	}
}

func TestReporter_Reader(t *testing.T) {
	scr, clk := newScreen(), newFakeClock()
	r, _ := testReporter(t, scr, clk)
	r.Start("import", 10, Bytes)
	n, err := io.Copy(io.Discard, r.Reader(strings.NewReader("0123456789")))
	if err != nil || n != 10 {
		t.Fatalf("copy = %d, %v; want 10, nil", n, err)
	}
	clk.advance(time.Second)
	r.Refresh()
	if got := scr.String(); !strings.Contains(got, "100%") || !strings.Contains(got, "10/10 B") {
		t.Fatalf("screen = %q, want 100%% of 10 B", got)
	}
}

func TestReporter_ConcurrentUpdates(t *testing.T) {
	scr, clk := newScreen(), newFakeClock()
	r, stdout := testReporter(t, scr, clk)
	out := r.Writer(stdout)
	r.Start("drill", 400, Cases)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				r.Add(1)
				clk.advance(10 * time.Millisecond)
				r.Refresh()
				io.WriteString(out, "case\n")
			}
		}()
	}
	wg.Wait()
	r.Done()
	if got, want := scr.String(), strings.Repeat("case\n", 400); got != want {
		t.Fatalf("screen = %q..., want 400 case lines and nothing else", got[:min(len(got), 80)])
	}
}
