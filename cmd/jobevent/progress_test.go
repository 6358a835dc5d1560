package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobevent/jobevent/internal/loggen"
	"github.com/jobevent/jobevent/internal/progress"
	"github.com/jobevent/jobevent/internal/testenv"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/logsource"
)

// writeGeneratedLog writes a generated log of events events (the
// benchmark job of loggen, stopped mid-job) as canonical JSONL to a file
// in dir and returns its path.
func writeGeneratedLog(t *testing.T, dir string, events int64) string {
	t.Helper()
	path := filepath.Join(dir, "big.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g := loggen.Job(loggen.BenchOptions(1, max(int(events/10), 100_000), events))
	w := format.NewJSONWriter(f)
	for {
		e, err := g.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(&e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// wantNoBar fails when out holds anything a progress line draws: carriage
// returns, escape sequences, a bar.
func wantNoBar(t *testing.T, what, out string) {
	t.Helper()
	for _, s := range []string{"\r", "\x1b", "[=", "==>", "events/s"} {
		if strings.Contains(out, s) {
			t.Fatalf("%s holds %q of a progress line:\n%q", what, s, out)
		}
	}
}

// The app writes into buffers in these tests: they are not terminals, so
// no progress line may appear, whatever the command.
func TestProgress_NothingInBuffers(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	big := writeGeneratedLog(t, dir, 20_000)
	cases := [][]string{
		{"import", big, log},
		{"import", big, filepath.Join(dir, "log2"), "--format", "json"},
		{"dump", log},
		{"dump", log, "--format", "json"},
		{"dump", log, "--format", "csv", "--since", "100"},
		{"dump", big},
		{"validate", log, big},
		{"validate", log, "--format", "json"},
	}
	for _, args := range cases {
		t.Run(strings.Join(args[:1], " "), func(t *testing.T) {
			r := runCLI(t, args...).wantCode(t, 0)
			wantNoBar(t, "stdout", r.stdout)
			wantNoBar(t, "stderr", r.stderr)
		})
	}
	t.Run("import from stdin", func(t *testing.T) {
		r := runCLIWith(t, t.Context(), readLog(t, "healthy.jsonl"), "import", "-", filepath.Join(dir, "log3")).wantCode(t, 0)
		wantNoBar(t, "stdout", r.stdout)
		wantNoBar(t, "stderr", r.stderr)
	})
}

func TestQuiet_SilencesSummaries(t *testing.T) {
	dir := t.TempDir()
	r := runCLI(t, "import", logPath("healthy.jsonl"), filepath.Join(dir, "a"), "--quiet").wantCode(t, 0)
	if r.stdout != "" || r.stderr != "" {
		t.Fatalf("import --quiet: stdout %q, stderr %q; want nothing", r.stdout, r.stderr)
	}
	r = runCLI(t, "import", "-q", logPath("healthy.jsonl"), filepath.Join(dir, "b"), "--format", "json").wantCode(t, 0)
	if !strings.Contains(r.stdout, `"events"`) || r.stderr != "" {
		t.Fatalf("import -q --format json: stdout %q, stderr %q; want the JSON summary alone", r.stdout, r.stderr)
	}
	loud := runCLI(t, "dump", filepath.Join(dir, "a"), "--format", "json").wantCode(t, 0)
	quiet := runCLI(t, "dump", filepath.Join(dir, "a"), "--format", "json", "--quiet").wantCode(t, 0)
	if quiet.stdout != loud.stdout || quiet.stderr != "" {
		t.Fatalf("dump --quiet changed the output: stdout %q, stderr %q", quiet.stdout, quiet.stderr)
	}
	v := runCLI(t, "validate", "--quiet", filepath.Join(dir, "a")).wantCode(t, 0)
	if v.stdout != "1 log: no findings\n" || v.stderr != "" {
		t.Fatalf("validate --quiet: stdout %q, stderr %q", v.stdout, v.stderr)
	}
}

func TestQuiet_KeepsErrorsAndWarnings(t *testing.T) {
	dir := t.TempDir()
	runCLI(t, "import", logPath("bad-syntax.jsonl"), filepath.Join(dir, "a"), "--quiet").
		wantOneLineError(t, 2, "bad-syntax.jsonl: line 5")

	torn := filepath.Join(dir, "torn")
	keys := writeSegments(t, torn, readEvents(t, "healthy.jsonl"), 10, 20)
	truncate(t, filepath.Join(torn, filepath.FromSlash(keys[2])))
	r := runCLI(t, "dump", torn, "--quiet", "--format", "csv").wantCode(t, 0)
	if !strings.HasPrefix(r.stderr, "jobevent: warning: ") || !strings.Contains(r.stderr, keys[2]) {
		t.Fatalf("dump --quiet: stderr = %q, want the torn-tail warning", r.stderr)
	}

	v := runCLI(t, "validate", logPath("gap.jsonl"), "--quiet").wantCode(t, 1)
	if !strings.Contains(v.stdout, "error") || !strings.Contains(v.stderr, "validate: 1 error") {
		t.Fatalf("validate --quiet: stdout %q, stderr %q; want the findings and the error line", v.stdout, v.stderr)
	}
}

// visible returns what a terminal shows after printing s: a carriage
// return goes back to the start of the line, ESC [ K erases to its end.
func visible(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		var screen []rune
		col := 0
		for len(line) > 0 {
			switch {
			case strings.HasPrefix(line, "\x1b[K"):
				screen = screen[:min(col, len(screen))]
				line = line[3:]
				continue
			case line[0] == '\r':
				col = 0
				line = line[1:]
				continue
			}
			r := []rune(line)[0]
			line = line[len(string(r)):]
			if col < len(screen) {
				screen[col] = r
			} else {
				screen = append(screen, r)
			}
			col++
		}
		out = append(out, string(screen))
	}
	return strings.Join(out, "\n")
}

func TestVisible(t *testing.T) {
	if got := visible("abc\r\x1b[Kde\rX\nline\r\x1b[K"); got != "Xe\n" {
		t.Fatalf("visible = %q, want %q", got, "Xe\n")
	}
}

// With the terminal check forced, the commands draw their progress line
// into the stderr buffer. What the buffers then hold must read exactly as
// without it once the line is erased: stdout byte for byte, and stderr as a
// terminal shows it.
func TestProgress_ForcedTerminal(t *testing.T) {
	dir := t.TempDir()
	big := writeGeneratedLog(t, dir, 30_000)
	cases := []struct {
		name string
		args func(n int) []string // n tells the runs apart
	}{
		{"import", func(n int) []string { return []string{"import", big, filepath.Join(dir, fmt.Sprint("log", n))} }},
		{"dump table", func(int) []string { return []string{"dump", filepath.Join(dir, "log0")} }},
		{"dump json", func(int) []string { return []string{"dump", filepath.Join(dir, "log0"), "--format", "json"} }},
		{"dump jsonl", func(int) []string { return []string{"dump", big, "--format", "csv"} }},
		{"validate", func(int) []string { return []string{"validate", filepath.Join(dir, "log0"), big} }},
	}
	drawn := 0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			plain := runCLI(t, tc.args(0)...)
			term := runCLIChanged(t, forceTerminal, tc.args(1)...)
			if term.code != plain.code {
				t.Fatalf("exit code = %d on a terminal, want %d", term.code, plain.code)
			}
			if term.stdout != plain.stdout {
				t.Fatalf("stdout on a terminal differs (%d bytes, want %d)", len(term.stdout), len(plain.stdout))
			}
			// The import writes to log1 instead of log0.
			if got := strings.ReplaceAll(visible(term.stderr), "log1", "log0"); got != plain.stderr {
				t.Fatalf("stderr on a terminal shows\n%q\nwant\n%q", got, plain.stderr)
			}
			if strings.Contains(term.stderr, "\r") {
				drawn++
			}
		})
	}
	t.Logf("%d of %d commands drew a progress line", drawn, len(cases))
}

// forceTerminal makes a draw its progress lines as forcedTerminal says.
func forceTerminal(a *application) { a.progress = forcedTerminal }

// forcedTerminal is the progress base for a terminal that is not there:
// the line draws into the app's stderr buffer as fast as it may.
var forcedTerminal = progress.Options{
	IsTerminal: func(io.Writer) bool { return true },
	Getenv:     func(string) string { return "" },
	Width:      func() int { return 100 },
	Delay:      -1,
	Interval:   time.Millisecond,
}

// A run draws its line from the log it writes: the output reads the same
// with it, and nothing of it is left on stderr, whether the job finishes
// or its master crashes.
func TestProgress_RunForcedTerminal(t *testing.T) {
	for _, crash := range []bool{false, true} {
		spec, dir := wordcountSpec(t)
		args := []string{"run", spec, "--events", filepath.Join(dir, "log"), "--work-dir", filepath.Join(dir, "work"), "--seed", "2"}
		code := 0
		if crash {
			args, code = append(args, "--crash-after-seq", "20"), 3
		}
		r := runCLIChanged(t, forceTerminal, args...).wantCode(t, code)
		wantNoBar(t, "stdout", r.stdout)
		if crash {
			r.stderr = visible(r.stderr)
			r.wantOneLineError(t, 3, "after event 20")
			continue
		}
		if !strings.Contains(r.stdout, "status        finished") {
			t.Fatalf("stdout = %q, want the summary of a finished job", r.stdout)
		}
		if got := visible(r.stderr); got != "" {
			t.Fatalf("stderr shows %q, want nothing", got)
		}
	}
}

func TestCountSubtasks(t *testing.T) {
	for name, want := range map[string][2]int64{"running.jsonl": {7, 10}, "healthy.jsonl": {10, 10}} {
		src, err := logsource.Open(t.Context(), logPath(name), logsource.Options{})
		if err != nil {
			t.Fatal(err)
		}
		o := forcedTerminal
		o.Ticks = make(chan time.Time) // no drawing
		p := progress.New(nil, nil, o)
		p.Start("run", 0, progress.Subtasks)
		countSubtasks(src, p)
		p.Done()
		src.Close()
		if n, total := p.Count(); n != want[0] || total != want[1] {
			t.Errorf("%s: subtasks = %d/%d, want %d/%d", name, n, total, want[0], want[1])
		}
	}
}

func TestOpenFollower(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if log, r := openFollower(ctx, filepath.Join(dir, "none")); log != nil || r != nil {
		t.Fatal("openFollower of a missing log with a canceled context returned a reader")
	}
	runCLI(t, "import", logPath("healthy.jsonl"), filepath.Join(dir, "log"), "--quiet").wantCode(t, 0)
	log, r := openFollower(t.Context(), filepath.Join(dir, "log"))
	if r == nil {
		t.Fatal("openFollower of a log returned no reader")
	}
	defer log.Close()
	defer r.Close()
	if e, err := r.Next(); err != nil || e.Seq != 1 {
		t.Fatalf("first event = seq %d, %v; want seq 1", e.Seq, err)
	}
}

// tmuxOrSkip returns the path of tmux. Without it the test is skipped,
// unless CI=true: then the CI image lacks a package it must install.
func tmuxOrSkip(t *testing.T) string {
	t.Helper()
	return testenv.Need(t, "tmux", "apt-get install tmux")
}

// tmuxServer is a private tmux server, on a socket of its own.
type tmuxServer struct {
	t    *testing.T
	bin  string
	sock string
}

func (s *tmuxServer) run(ctx context.Context, args ...string) string {
	s.t.Helper()
	cmd := exec.CommandContext(ctx, s.bin, append([]string{"-S", s.sock, "-f", os.DevNull}, args...)...)
	cmd.Env = append(os.Environ(), "TERM=xterm")
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// The one check on a real terminal: the built binary imports and then
// validates a 2,000,000-event log in a tmux pane of 120×30: long enough,
// on any machine, for the line's first draw after its delay. The progress
// line must be drawn (the pane's raw output holds it) and must leave
// nothing on the final screen, where both commands report success.
func TestProgress_RealTerminal(t *testing.T) {
	bin := buildBinary(t)
	tmux := tmuxOrSkip(t)
	dir := t.TempDir()
	big := writeGeneratedLog(t, dir, 2_000_000)
	log := filepath.Join(dir, "log")
	raw := filepath.Join(dir, "pane.raw")
	srv := &tmuxServer{t: t, bin: tmux, sock: filepath.Join(dir, "tmux.sock")}
	script := filepath.Join(dir, "session.sh")
	q := shellQuote
	body := strings.Join([]string{
		"unset CI",
		q(tmux) + " -S " + q(srv.sock) + " wait-for go",
		q(bin) + " import " + q(big) + " " + q(log) + "; echo \"import exit=$?\"",
		q(bin) + " validate " + q(log) + "; echo \"validate exit=$?\"",
		q(tmux) + " -S " + q(srv.sock) + " wait-for -S done",
		q(tmux) + " -S " + q(srv.sock) + " wait-for end",
	}, "\n")
	if err := os.WriteFile(script, []byte(body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	srv.run(ctx, "new-session", "-d", "-s", "progress", "-x", "120", "-y", "30", "sh "+q(script))
	t.Cleanup(func() { exec.Command(tmux, "-S", srv.sock, "kill-server").Run() })
	srv.run(ctx, "pipe-pane", "-t", "progress", "cat > "+q(raw))
	srv.run(ctx, "wait-for", "-S", "go")
	srv.run(ctx, "wait-for", "done")

	// The pane's last lines reach the tmux server asynchronously: look
	// again until they are there.
	var screen string
	for {
		screen = srv.run(ctx, "capture-pane", "-p", "-t", "progress")
		if strings.Contains(screen, "validate exit=") || ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
	srv.run(ctx, "wait-for", "-S", "end")
	screen = strings.TrimRight(screen, "\n")
	for _, want := range []string{"imported 2000000 events into " + log, "import exit=0", "1 log: no findings", "validate exit=0"} {
		if !strings.Contains(screen, want) {
			t.Fatalf("final screen lacks %q:\n%s", want, screen)
		}
	}
	for _, bad := range []string{"[=", "[ ", "import: ", "events/s", "validate " + log} {
		if strings.Contains(screen, bad) {
			t.Fatalf("final screen holds %q of a progress line:\n%s", bad, screen)
		}
	}
	out, err := os.ReadFile(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte("import: ")) || !bytes.Contains(out, []byte(" events")) || !bytes.Contains(out, []byte("\x1b[K")) {
		t.Fatalf("the pane never showed a progress line; raw output:\n%q", out)
	}
	t.Logf("final screen:\n%s", screen)
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
