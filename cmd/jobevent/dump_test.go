package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobevent/jobevent/internal/testenv"
	"github.com/jobevent/jobevent/internal/testlog"
	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/format"
)

// readEvents decodes a log of testdata/logs.
func readEvents(t *testing.T, name string) []format.Event { return testlog.Read(t, logPath(name)) }

// writeSegments writes a log of one epoch as the given segments, each a
// range [from, to) of events, and returns the keys of the segments.
func writeSegments(t *testing.T, url string, events []format.Event, bounds ...int) []string {
	t.Helper()
	ctx := testenv.Context(t)
	log, err := blob.Create(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	if err := log.ClaimEpoch(ctx, blob.EpochInfo{Epoch: 1, Master: "127.0.0.1:7100", StartSeq: 1}); err != nil {
		t.Fatal(err)
	}
	var keys []string
	from := 0
	for _, to := range append(bounds, len(events)) {
		key, err := log.WriteSegment(ctx, events[from:to])
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, key)
		from = to
	}
	return keys
}

func TestDump_Golden(t *testing.T) {
	for _, f := range []string{"table", "json", "csv"} {
		r := runCLI(t, "dump", logPath("healthy.jsonl"), "--format", f).wantCode(t, 0)
		r.golden(t, "dump-healthy."+f)
		if r.stderr != "" {
			t.Errorf("--format %s: stderr = %q, want nothing", f, r.stderr)
		}
	}
	r := runCLI(t, "dump", logPath("failover.jsonl")).wantCode(t, 0)
	r.golden(t, "dump-failover.table")
}

func TestDump_JSONLIsCanonical(t *testing.T) {
	for _, name := range goodLogs {
		r := runCLI(t, "dump", logPath(name), "--format", "json").wantCode(t, 0)
		if want := readLog(t, name); r.stdout != want {
			t.Errorf("dump --format json %s is not the file byte for byte:\n%s", name, r.stdout)
		}
	}
}

func TestDump_Filters(t *testing.T) {
	healthy := logPath("healthy.jsonl")
	tests := []struct {
		name string
		args []string
		seqs string // the seqs dumped, space separated
	}{
		{"kind", []string{"--kind", "snapshot"}, "9 11"},
		{"kinds", []string{"--kind", "job_submitted", "--kind", "job_finished"}, "1 29"},
		{"kinds comma", []string{"--kind", "job_submitted,master_started"}, "1 2"},
		{"vertex", []string{"--vertex", "count"}, "19 20 21 22 23"},
		{"vertex and subtask", []string{"--vertex", "source", "--subtask", "1"}, "5 8"},
		{"subtask", []string{"--subtask", "1", "--kind", "subtask_finished"}, "8 17 23 28"},
		{"snapshot of a vertex", []string{"--vertex", "source", "--kind", "snapshot"}, "9 11"},
		{"epoch", []string{"--epoch", "2"}, ""},
		{"since until", []string{"--since", "3", "--until", "5"}, "3 4 5"},
		{"until", []string{"--until", "2"}, "1 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"dump", healthy, "--format", "csv"}, tt.args...)
			r := runCLI(t, args...).wantCode(t, 0)
			if got := csvSeqs(r.stdout); got != tt.seqs {
				t.Fatalf("seqs = %q, want %q\n%s", got, tt.seqs, r.stdout)
			}
		})
	}
	r := runCLI(t, "dump", logPath("failover.jsonl"), "--format", "csv", "--epoch", "2", "--kind", "subtasks_reset").wantCode(t, 0)
	if got := csvSeqs(r.stdout); got != "12" {
		t.Fatalf("recovery resets of failover.jsonl: seqs = %q, want \"12\"", got)
	}
}

// csvSeqs returns the first column of a CSV dump without its header.
func csvSeqs(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var seqs []string
	for _, l := range lines[1:] {
		seq, _, _ := strings.Cut(l, ",")
		seqs = append(seqs, seq)
	}
	return strings.Join(seqs, " ")
}

func TestDump_Fenced(t *testing.T) {
	r := runCLI(t, "dump", logPath("zombie.jsonl"), "--format", "json").wantCode(t, 0)
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if strings.Contains(line, `"epoch":1,`) && (strings.Contains(line, `"seq":16,`) || strings.Contains(line, `"seq":17,`) || strings.Contains(line, `"seq":18,`)) {
			t.Errorf("fenced row dumped: %s", line)
		}
	}
	if n := strings.Count(r.stdout, "\n"); n != 33 {
		t.Errorf("dumped %d events, want 33 (36 less 3 fenced)", n)
	}
	// The blob reader filters the same rows once the file is imported.
	dir := t.TempDir()
	runCLI(t, "import", logPath("zombie.jsonl"), dir).wantCode(t, 0)
	b := runCLI(t, "dump", dir, "--format", "json").wantCode(t, 0)
	if b.stdout != r.stdout {
		t.Errorf("dump of the imported zombie.jsonl differs from dump of the file:\n%s", b.stdout)
	}
	if !strings.Contains(b.stderr, "jobevent: warning: ") || !strings.Contains(b.stderr, "fenced") {
		t.Errorf("stderr = %q, want a warning about the fenced rows", b.stderr)
	}
	want := "jobevent: warning: " + logPath("zombie.jsonl") + ": 3 rows of fenced epoch 1 from seq 16 (epoch 2 starts at seq 16); filtered\n"
	if r.stderr != want {
		t.Errorf("stderr = %q, want %q", r.stderr, want)
	}
}

func TestDump_Follow(t *testing.T) {
	events := readEvents(t, "healthy.jsonl")
	url := uniqueMem("dump-follow") + "?prefix=wordcount/"
	writeSegments(t, url, events[:10])

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, errb := newSyncBuffer(), newSyncBuffer()
	done := make(chan int, 1)
	go func() {
		done <- runMain(ctx, []string{"jobevent", "dump", url, "--follow", "--poll-interval", "5ms", "--format", "json"},
			strings.NewReader(""), out, errb)
	}()
	waitFor(t, out, `"seq":10,`)

	// The master's writer goes on appending while dump follows.
	log, err := blob.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	w := log.NewWriter(1, 11, blob.WriterOptions{FlushInterval: -1})
	for i, e := range events[10:] {
		if _, err := w.Append(e); err != nil {
			t.Fatal(err)
		}
		if i == 9 || i == len(events)-11 {
			if err := w.Flush(context.Background()); err != nil {
				t.Fatal(err)
			}
			waitFor(t, out, fmt.Sprintf(`"seq":%d,`, e.Seq))
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, out, `"kind":"job_finished"`)
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("dump --follow exit code = %d after interrupt, want 0; stderr: %s", code, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("dump --follow did not stop when interrupted")
	}
	if want := readLog(t, "healthy.jsonl"); out.String() != want {
		t.Fatalf("followed output differs from the log:\n%s", out.String())
	}
}

// waitFor waits until the buffer holds want, failing after a deadline.
func waitFor(t *testing.T, b *syncBuffer, want string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for !strings.Contains(b.String(), want) {
		select {
		case <-b.changed:
		case <-deadline:
			t.Fatalf("output never contained %q:\n%s", want, b.String())
		}
	}
}

func TestDump_TornTail(t *testing.T) {
	dir := t.TempDir()
	keys := writeSegments(t, dir, readEvents(t, "healthy.jsonl"), 10, 20)
	truncate(t, filepath.Join(dir, filepath.FromSlash(keys[2])))
	r := runCLI(t, "dump", dir, "--format", "csv").wantCode(t, 0)
	if got := csvSeqs(r.stdout); !strings.HasSuffix(got, " 19 20") {
		t.Errorf("seqs = %q, want the events before the torn segment", got)
	}
	if !strings.HasPrefix(r.stderr, "jobevent: warning: ") || !strings.Contains(r.stderr, keys[2]) || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("stderr = %q, want one warning naming %s", r.stderr, keys[2])
	}
}

func TestDump_BadInput(t *testing.T) {
	events := readEvents(t, "healthy.jsonl")

	t.Run("flipped byte in an older segment", func(t *testing.T) {
		dir := t.TempDir()
		keys := writeSegments(t, dir, events, 10, 20)
		flipByte(t, filepath.Join(dir, filepath.FromSlash(keys[0])))
		runCLI(t, "dump", dir).wantOneLineError(t, 2, keys[0])
	})
	t.Run("non-parquet object under events", func(t *testing.T) {
		dir := t.TempDir()
		writeSegments(t, dir, events[10:], 10)
		junk := blob.FormatSegmentName(1, 1, 10)
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(junk)), []byte("seq,kind\n1,job_submitted\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		runCLI(t, "dump", dir).wantOneLineError(t, 2, junk)
	})
	t.Run("unknown object name", func(t *testing.T) {
		dir := t.TempDir()
		writeSegments(t, dir, events)
		if err := os.WriteFile(filepath.Join(dir, "events", "notes.txt"), []byte("hello"), 0o644); err != nil {
			t.Fatal(err)
		}
		r := runCLI(t, "dump", dir, "--format", "json").wantCode(t, 0)
		if r.stdout != readLog(t, "healthy.jsonl") {
			t.Errorf("dump with an unknown object differs from the log")
		}
		if !strings.Contains(r.stderr, "jobevent: warning: ") || !strings.Contains(r.stderr, "notes.txt") {
			t.Errorf("stderr = %q, want a warning naming events/notes.txt", r.stderr)
		}
	})
	t.Run("missing log", func(t *testing.T) {
		dir := t.TempDir()
		runCLI(t, "dump", dir).wantOneLineError(t, 2, "no event log at", dir)
		runCLI(t, "dump", "mem://nothing-here").wantOneLineError(t, 2, "no event log at")
		runCLI(t, "dump", filepath.Join(dir, "missing.jsonl")).wantOneLineError(t, 2, "no event log at", "missing.jsonl")
		empty := filepath.Join(dir, "empty.jsonl")
		if err := os.WriteFile(empty, []byte("\n\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, cmd := range [][]string{{"dump"}, {"validate"}, {"replay", "--dry-run"}} {
			runCLI(t, append(cmd, empty)...).wantOneLineError(t, 2, "no event log at", "empty.jsonl")
		}
	})
	t.Run("nonexistent bucket dir", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "no", "such", "dir")
		runCLI(t, "dump", dir).wantOneLineError(t, 2, "no event log at")
		runCLI(t, "dump", "file://"+dir).wantOneLineError(t, 2, "no event log at")
	})
	t.Run("unknown scheme", func(t *testing.T) {
		runCLI(t, "dump", "ftp://host/logs").wantOneLineError(t, 2, "ftp", "s3")
	})
	t.Run("malformed jsonl line", func(t *testing.T) {
		runCLI(t, "dump", logPath("bad-syntax.jsonl")).wantOneLineError(t, 2, "bad-syntax.jsonl: line 5", `"subtask"`)
	})
	t.Run("seq gap", func(t *testing.T) {
		dir := t.TempDir()
		runCLI(t, "import", logPath("gap.jsonl"), dir).wantOneLineError(t, 2, "seq 10 follows seq 8")
		writeSegments(t, dir, readEvents(t, "gap.jsonl"), 8) // seqs 1-8, then 10-
		runCLI(t, "dump", dir).wantOneLineError(t, 2, "events/", "seq 9 missing before seq 10")
	})
}

// flipByte flips one bit in the middle of a file.
func flipByte(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/3] ^= 0x10
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// truncate cuts a file to half its length, as a torn upload leaves it.
func truncate(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, fi.Size()/2); err != nil {
		t.Fatal(err)
	}
}
