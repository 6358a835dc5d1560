// Package progress draws one progress line for a long operation of the
// jobevent command: a bar when the total is known, a spinner with counts
// when it is not, on stderr, redrawn at most every Options.Interval and
// cleared when the operation ends, so that it leaves nothing behind.
//
// The line is shown only to a person watching: when both stdout and
// stderr are terminals, CI is not set, TERM is not "dumb", and the
// command was not given --quiet. Everywhere else (pipes, files, CI logs,
// tests writing into buffers) a Reporter is disabled and every method is a
// cheap no-op, so callers never check.
//
// Output that the command writes to the same terminal while the line is
// shown must go through Writer, which clears the line first and holds back
// a partial last line, so that the bar is only ever drawn at the start of
// an empty line:
//
//	r := progress.New(stdout, stderr, progress.Options{Quiet: quiet})
//	defer r.Done()
//	r.Start("dump", total, progress.Events)
//	out := r.Writer(stdout)
//	for ... { r.Add(1); fmt.Fprintln(out, ...) }
package progress

import (
	"bytes"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Unit names what a Reporter counts. Bytes are shown in KiB, MiB, ...;
// any other unit is shown as a count followed by the unit's name.
type Unit string

// Units of the jobevent commands.
const (
	Bytes    Unit = "bytes"
	Events   Unit = "events"
	Subtasks Unit = "subtasks"
	Cases    Unit = "cases"
)

// Defaults of Options.
const (
	// DefaultInterval is the shortest time between two redraws: about ten
	// a second.
	DefaultInterval = 100 * time.Millisecond
	// DefaultDelay is how long an operation runs before its line is first
	// drawn, so that quick commands never flash a bar.
	DefaultDelay = 250 * time.Millisecond
)

// Options configure a Reporter. The zero value is a reporter for the real
// terminal and clock.
type Options struct {
	// Quiet disables the reporter (the --quiet flag).
	Quiet bool
	// Interval is the shortest time between two redraws; 0 means
	// DefaultInterval.
	Interval time.Duration
	// Delay is how long after New the line is first drawn; 0 means
	// DefaultDelay, negative means at once.
	Delay time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// IsTerminal reports whether w is a terminal; nil means a check of the
	// file descriptor of an *os.File (anything else is not a terminal).
	IsTerminal func(w io.Writer) bool
	// Getenv reads the environment (CI, TERM); nil means os.Getenv.
	Getenv func(key string) string
	// Width returns the terminal's width in columns; nil means the size of
	// stderr's terminal, or $COLUMNS, or 80.
	Width func() int
	// Ticks, when set, replaces the reporter's own ticker of Interval: the
	// line is refreshed on each value received. Tests pass a channel they
	// never send on and call Refresh themselves.
	Ticks <-chan time.Time
}

// Reporter draws the progress line of one operation, which may have
// several phases (Start). Add, Set and SetTotal may be called from any
// goroutine; the other methods too, but they serialize. A Reporter that
// is disabled does nothing at all.
type Reporter struct {
	enabled bool
	out     io.Writer // stderr
	opts    Options
	cur     atomic.Int64
	total   atomic.Int64

	mu       sync.Mutex
	label    string
	unit     Unit
	born     time.Time // New: the delay runs from here
	started  time.Time // the current phase
	last     time.Time // the last draw
	frame    int
	drawn    bool   // the line is on the screen
	shown    string // the line drawn last
	done     bool
	writers  []*lineWriter
	stop     chan struct{}
	stopped  chan struct{}
	drawings int
}

// New returns a reporter drawing on stderr. It is enabled only when
// stderr is a terminal (stdout may be a pipe or a file: `drill > out.txt`
// still shows its progress; rows written through Writer clear the line
// first when both are one terminal), the environment is not CI
// (CI set to anything but "", "0" or "false") nor TERM=dumb, and
// opts.Quiet is false. An enabled reporter refreshes its line from a
// goroutine until Done.
func New(stdout, stderr io.Writer, opts Options) *Reporter {
	opts = withDefaults(opts)
	r := &Reporter{out: stderr, opts: opts}
	r.enabled = !opts.Quiet && opts.IsTerminal(stderr) && !disabledByEnv(opts.Getenv)
	if !r.enabled {
		return r
	}
	r.born = opts.Now()
	r.started = r.born
	r.stop, r.stopped = make(chan struct{}), make(chan struct{})
	go r.loop()
	return r
}

// Disabled returns a reporter that draws nothing, for operations that
// have no end to show progress towards.
func Disabled() *Reporter { return &Reporter{} }

func withDefaults(o Options) Options {
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.Delay == 0 {
		o.Delay = DefaultDelay
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.IsTerminal == nil {
		o.IsTerminal = IsTerminal
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Width == nil {
		o.Width = func() int { return TerminalWidth(os.Stderr, o.Getenv) }
	}
	return o
}

// disabledByEnv reports whether the environment asks for no progress
// line: a CI system, or a terminal that cannot move its cursor.
func disabledByEnv(getenv func(string) string) bool {
	switch getenv("CI") {
	case "", "0", "false", "FALSE", "False":
	default:
		return true
	}
	return getenv("TERM") == "dumb"
}

// loop refreshes the line on every tick until Done.
func (r *Reporter) loop() {
	defer close(r.stopped)
	ticks := r.opts.Ticks
	if ticks == nil {
		t := time.NewTicker(r.opts.Interval)
		defer t.Stop()
		ticks = t.C
	}
	for {
		select {
		case <-r.stop:
			return
		case <-ticks:
			r.Refresh()
		}
	}
}

// Enabled reports whether the reporter draws anything.
func (r *Reporter) Enabled() bool { return r.enabled }

// Start begins a phase of the operation: label names it, total is the
// count at which it is complete (0 or less: unknown, a spinner is drawn),
// and the count starts again from 0.
func (r *Reporter) Start(label string, total int64, unit Unit) {
	if !r.enabled {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.label, r.unit = label, unit
	r.started = r.opts.Now()
	r.cur.Store(0)
	r.total.Store(max(total, 0))
}

// Add adds n to the count of the current phase.
func (r *Reporter) Add(n int64) {
	if r.enabled {
		r.cur.Add(n)
	}
}

// Set sets the count of the current phase.
func (r *Reporter) Set(n int64) {
	if r.enabled {
		r.cur.Store(n)
	}
}

// SetTotal changes the total of the current phase (0: unknown).
func (r *Reporter) SetTotal(total int64) {
	if r.enabled {
		r.total.Store(max(total, 0))
	}
}

// Count returns the count and the total (0: unknown) of the current
// phase; both are 0 for a disabled reporter.
func (r *Reporter) Count() (n, total int64) {
	return r.cur.Load(), r.total.Load()
}

// Refresh redraws the line if the reporter is enabled and not done, the
// delay since New is over, and at least Interval has passed since the
// last draw. The reporter's goroutine calls it on every tick.
func (r *Reporter) Refresh() {
	if !r.enabled {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.opts.Now()
	if r.done || r.midline() || now.Sub(r.born) < r.opts.Delay || (!r.last.IsZero() && now.Sub(r.last) < r.opts.Interval) {
		return
	}
	r.last = now
	line := render(status{
		label: r.label, unit: r.unit, cur: r.cur.Load(), total: r.total.Load(),
		elapsed: now.Sub(r.started), frame: r.frame,
	}, r.opts.Width())
	if r.drawn && line == r.shown {
		return // the screen shows it already
	}
	// Carriage return, the line, erase to the end of the line: the cursor
	// stays on the line, which the next draw or clear overwrites.
	io.WriteString(r.out, "\r"+line+eraseLine)
	r.frame++
	r.drawn, r.shown = true, line
	r.drawings++
}

// eraseLine is the ANSI sequence that erases from the cursor to the end
// of the line (EL 0).
const eraseLine = "\x1b[K"

// clearLocked erases the line if it is drawn, leaving the cursor at the
// start of the empty line.
func (r *Reporter) clearLocked() {
	if r.drawn {
		io.WriteString(r.out, "\r"+eraseLine)
		r.drawn = false
	}
}

// midline reports whether a writer left the cursor inside a line: no line
// may be drawn there.
func (r *Reporter) midline() bool {
	for _, w := range r.writers {
		if w.midline {
			return true
		}
	}
	return false
}

// Done ends the operation: the line is erased, output held back by the
// writers is written, and the reporter stops. It is safe to call more
// than once (the first call does the work).
func (r *Reporter) Done() {
	if !r.enabled {
		return
	}
	r.mu.Lock()
	if r.done {
		r.mu.Unlock()
		return
	}
	r.done = true
	r.mu.Unlock()
	close(r.stop)
	<-r.stopped
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clearLocked()
	for _, w := range r.writers {
		w.flushLocked()
	}
}

// Drawings returns how many times the line was drawn.
func (r *Reporter) Drawings() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.drawings
}

// Writer returns w made safe to write to while the line is shown: each
// write erases the line first and holds back a trailing partial line until
// its newline arrives (or Done), so that the line is redrawn below
// complete lines only. A disabled reporter returns w itself. The writer
// may be used after Done; it then writes straight through.
func (r *Reporter) Writer(w io.Writer) io.Writer {
	if !r.enabled {
		return w
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	lw := &lineWriter{r: r, w: w}
	r.writers = append(r.writers, lw)
	return lw
}

// Reader returns rd counting the bytes read from it into the current
// phase. A disabled reporter returns rd itself.
func (r *Reporter) Reader(rd io.Reader) io.Reader {
	if !r.enabled {
		return rd
	}
	return &countingReader{r: r, rd: rd}
}

type countingReader struct {
	r  *Reporter
	rd io.Reader
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.rd.Read(p)
	c.r.Add(int64(n))
	return n, err
}

// maxHeld bounds the partial line a lineWriter holds back; a longer one is
// written out and no line is drawn until its newline.
const maxHeld = 64 << 10

// lineWriter is the Writer of a Reporter.
type lineWriter struct {
	r       *Reporter
	w       io.Writer
	held    []byte
	midline bool // the cursor was left inside a line
}

func (lw *lineWriter) Write(p []byte) (int, error) {
	lw.r.mu.Lock()
	defer lw.r.mu.Unlock()
	if lw.r.done {
		if err := lw.flushLocked(); err != nil {
			return 0, err
		}
		return lw.w.Write(p)
	}
	lw.held = append(lw.held, p...)
	i := bytes.LastIndexByte(lw.held, '\n')
	if i < 0 && len(lw.held) <= maxHeld {
		return len(p), nil
	}
	n := i + 1
	if len(lw.held) > maxHeld {
		n = len(lw.held)
	}
	lw.r.clearLocked()
	_, err := lw.w.Write(lw.held[:n])
	lw.midline = lw.held[n-1] != '\n'
	lw.held = lw.held[:copy(lw.held, lw.held[n:])]
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// flushLocked writes what the writer holds back.
func (lw *lineWriter) flushLocked() error {
	if len(lw.held) == 0 {
		return nil
	}
	lw.r.clearLocked()
	_, err := lw.w.Write(lw.held)
	lw.midline = lw.held[len(lw.held)-1] != '\n'
	lw.held = lw.held[:0]
	return err
}
