package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readers are the commands that read a whole log and must refuse a
// damaged one with exit 2. (replay --dry-run predicts what a master does
// with a log it cannot replay: its own tests cover that.)
var readers = [][]string{
	{"dump"}, {"stats"}, {"status"}, {"compact"},
}

// importedLog imports testdata/logs/NAME into a new directory, cut into
// segments of 10 events, and returns the directory.
func importedLog(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "log")
	writeSegments(t, dir, readEvents(t, name), 10, 20)
	return dir
}

// segmentPath returns the path of the i-th segment (in name order) of the
// log in dir.
func segmentPath(t *testing.T, dir string, i int) string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "events", "*.parquet"))
	if err != nil || len(names) <= i {
		t.Fatalf("segments of %s: %v (%v)", dir, names, err)
	}
	return names[i]
}

// wantDamaged runs every reader on the log in dir: one error line naming
// each of want, exit 2; and validate: an error finding, exit 1.
func wantDamaged(t *testing.T, dir string, want ...string) {
	t.Helper()
	for _, cmd := range readers {
		args := append(append([]string(nil), cmd...), dir)
		r := runCLI(t, args...)
		if r.code != 2 || strings.Contains(r.stderr, "panic") {
			t.Fatalf("%s: exit %d, want 2\nstdout:\n%s\nstderr:\n%s", strings.Join(cmd, " "), r.code, r.stdout, r.stderr)
		}
		for _, w := range want {
			if !strings.Contains(r.stderr, w) {
				t.Fatalf("%s: stderr = %q, want it to say %q", strings.Join(cmd, " "), r.stderr, w)
			}
		}
	}
	fs := decodeFindings(t, runCLI(t, "validate", dir, "--format", "json").wantCode(t, 1).stdout)
	if len(fs) == 0 || fs[len(fs)-1].Severity != "error" {
		t.Fatalf("validate: findings = %+v, want an error", fs)
	}
}

// TestDamaged_FirstSegmentMissing: a log starts at seq 1.
func TestDamaged_FirstSegmentMissing(t *testing.T) {
	dir := importedLog(t, "healthy.jsonl")
	if err := os.Remove(segmentPath(t, dir, 0)); err != nil {
		t.Fatal(err)
	}
	wantDamaged(t, dir, "seq 1 to 10 missing")
}

// TestDamaged_EventsMissing: with events/ deleted, a log whose epoch
// objects promise events is corrupt; one with only epoch 1 claimed reads
// as a log whose master has not flushed yet, which validate calls an
// error (no job_submitted).
func TestDamaged_EventsMissing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "log")
	runCLI(t, "import", logPath("failover.jsonl"), dir, "--quiet").wantCode(t, 0)
	if err := os.RemoveAll(filepath.Join(dir, "events")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "job.yaml"), []byte("job: wordcount\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "dump", dir)
	r.wantOneLineError(t, 2, "epochs/00000002", "seq 1 to 10 missing")
	fs := decodeFindings(t, runCLI(t, "validate", dir, "--format", "json").wantCode(t, 1).stdout)
	if len(fs) != 1 || fs[0].Rule != "corrupt" || fs[0].Key != "epochs/00000002" {
		t.Fatalf("validate: findings = %+v, want one corrupt naming epochs/00000002", fs)
	}
	if err := os.Remove(filepath.Join(dir, "epochs", "00000002")); err != nil {
		t.Fatal(err)
	}
	runCLI(t, "dump", dir).wantCode(t, 0)
	runCLI(t, "compact", dir).wantOneLineError(t, 2, "events/ holds no segment")
	fs = decodeFindings(t, runCLI(t, "validate", dir, "--format", "json").wantCode(t, 1).stdout)
	if len(fs) != 1 || fs[0].Rule != "job-submitted" || fs[0].Severity != "error" {
		t.Fatalf("validate: findings = %+v, want one job-submitted error", fs)
	}
}

// TestDamaged_EventsUnlistable: an events/ that cannot be listed is an
// error, never an empty log (a symlink loop: unreadable even for root).
func TestDamaged_EventsUnlistable(t *testing.T) {
	dir := importedLog(t, "healthy.jsonl")
	events := filepath.Join(dir, "events")
	if err := os.RemoveAll(events); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("events", events); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range append(readers, []string{"validate"}) {
		args := append(append([]string(nil), cmd...), dir)
		runCLI(t, args...).wantOneLineError(t, 2, "list events/")
	}
}

// TestDamaged_Trailer: a flipped byte in the newest segment's footer
// length or trailing magic, or text under a segment's name, is
// corruption, not a torn tail.
func TestDamaged_Trailer(t *testing.T) {
	for _, off := range []int{1, 4, 6} {
		dir := importedLog(t, "healthy.jsonl")
		path := segmentPath(t, dir, 2)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		data[len(data)-off] ^= 0x40
		if err := os.WriteFile(path, data, 0o666); err != nil {
			t.Fatal(err)
		}
		wantDamaged(t, dir, filepath.Base(path))
	}
	dir := importedLog(t, "healthy.jsonl")
	next := filepath.Join(dir, "events", "00000001-000000000000001e-000000000000001e.parquet")
	if err := os.WriteFile(next, []byte("hello\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	wantDamaged(t, dir, "not a Parquet file")
}

// TestDamaged_TornNamesSeqs: a truncated newest segment is a torn tail
// whose warning names the seqs dropped.
func TestDamaged_TornNamesSeqs(t *testing.T) {
	dir := importedLog(t, "healthy.jsonl")
	truncate(t, segmentPath(t, dir, 2))
	r := runCLI(t, "dump", dir).wantCode(t, 0)
	if !strings.Contains(r.stderr, "seq 21 to 29 of epoch 1 dropped") {
		t.Fatalf("stderr = %q, want the seqs dropped", r.stderr)
	}
}

// TestDamaged_ImportDuplicateSeq: import refuses a JSONL whose last two
// events share a seq, writing nothing, and validate reports the file.
func TestDamaged_ImportDuplicateSeq(t *testing.T) {
	data, err := os.ReadFile(logPath("healthy.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	last := lines[len(lines)-1]
	dup := strings.Replace(last, `"seq":29,`, `"seq":28,`, 1)
	if dup == last {
		t.Fatalf("last line %q has no seq 29", last)
	}
	bad := filepath.Join(t.TempDir(), "dup.jsonl")
	if err := os.WriteFile(bad, []byte(strings.Join(lines[:len(lines)-1], "")+dup+"\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "log")
	runCLI(t, "import", bad, dir).wantOneLineError(t, 2, "seq 28 follows seq 28")
	if _, err := os.Stat(filepath.Join(dir, "events")); !os.IsNotExist(err) {
		t.Fatalf("events/ after a refused import: %v", err)
	}
	fs := decodeFindings(t, runCLI(t, "validate", bad, "--format", "json").wantCode(t, 1).stdout)
	if len(fs) == 0 || fs[0].Rule != "seq-order" {
		t.Fatalf("validate %s: findings = %+v, want seq-order", bad, fs)
	}
	runCLI(t, "import", logPath("healthy.jsonl"), dir, "--quiet").wantCode(t, 0)
	runCLI(t, "validate", dir, "--strict").wantCode(t, 0)
}

// TestDamaged_OversizedSegment: an object under events/ larger than the
// segment limit is corruption naming its key and size, found before it
// is read.
func TestDamaged_OversizedSegment(t *testing.T) {
	dir := importedLog(t, "healthy.jsonl")
	big := filepath.Join(dir, "events", "00000001-000000000000001e-0000000000000028.parquet")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(3 << 30); err != nil { // sparse
		t.Fatal(err)
	}
	f.Close()
	wantDamaged(t, dir, filepath.Base(big), "3221225472 bytes")
}
