package main

import (
	"bytes"
	"maps"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jobevent/jobevent/internal/flinkfixture"
)

const watchTestJob = "0123456789abcdef0123456789abcdef"

// archiveFiles returns every file of an archive but the Parquet segments
// (whose times differ between runs) and the claim, with their bytes.
func archiveFiles(t *testing.T, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		// A temporary file (.tmp) is an object whose write a SIGKILL cut
		// short: readers skip it, and the restarted watch writes the
		// object again.
		if err != nil || fi.IsDir() || strings.Contains(p, "/.watch/") || strings.HasSuffix(p, ".parquet") ||
			strings.HasSuffix(p, ".tmp") || strings.HasSuffix(p, "archive.json") || strings.HasSuffix(p, "ended.json") {
			return nil
		}
		data, _ := os.ReadFile(p)
		out[strings.TrimPrefix(p, root)] = data
		return nil
	})
	return out
}

// TestWatch_SIGKILLRestart kills a real jobevent watch with SIGKILL at
// random moments while a Flink log grows, restarts it each time, and
// checks the archive against one written by an uninterrupted watch: the
// same copies, and the same events (times aside), none lost or doubled.
// SIGTERM then stops it with exit 0.
func TestWatch_SIGKILLRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes")
	}
	bin := buildBinary(t)
	fix := flinkfixture.Get(t, "1.20.5", "two-failovers").JobEvents
	files, _ := filepath.Glob(filepath.Join(fix, "events.*"))
	slices.Sort(files)
	dir := t.TempDir()
	src := filepath.Join(dir, "ha")
	jobDir := filepath.Join(src, "c", watchTestJob, "job-events")
	os.MkdirAll(jobDir, 0o755)
	killed, calm := filepath.Join(dir, "killed"), filepath.Join(dir, "calm")
	os.MkdirAll(killed, 0o755)
	os.MkdirAll(calm, 0o755)
	start := func() *exec.Cmd {
		cmd := exec.Command(bin, "watch", src, "--archive", killed, "--interval", "20ms", "--listen", "", "--claim-stale", "1ns")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	rng := rand.New(rand.NewSource(7))
	cmd := start()
	for _, f := range files {
		data, _ := os.ReadFile(f)
		for off := 0; off < len(data); {
			n := min(len(data)-off, 1+rng.Intn(4000))
			fh, _ := os.OpenFile(filepath.Join(jobDir, filepath.Base(f)), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
			fh.Write(data[off : off+n])
			fh.Close()
			off += n
			time.Sleep(time.Duration(rng.Intn(40)) * time.Millisecond)
			if rng.Intn(3) == 0 {
				cmd.Process.Kill()
				cmd.Wait()
				cmd = start()
			}
		}
	}
	time.Sleep(500 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("watch after SIGTERM: %v, want exit 0", err)
	}
	out, err := exec.Command(bin, "watch", src, "--archive", calm, "--once").CombinedOutput()
	if err != nil {
		t.Fatalf("watch --once: %v\n%s", err, out)
	}
	a, b := archiveFiles(t, killed), archiveFiles(t, calm)
	if len(a) != len(b) {
		t.Fatalf("killed archive has %d files, calm one %d:\n%v\n%v", len(a), len(b), slices.Sorted(maps.Keys(a)), slices.Sorted(maps.Keys(b)))
	}
	for k, v := range b {
		if !bytes.Equal(a[k], v) {
			t.Fatalf("%s differs after kills", k)
		}
	}
	dump := func(root string) string {
		out, err := exec.Command(bin, "dump", filepath.Join(root, "c", watchTestJob), "--format", "json").Output()
		if err != nil {
			t.Fatalf("dump %s: %v", root, err)
		}
		var lines []string
		for _, l := range strings.Split(string(out), "\n") {
			if i := strings.Index(l, `"time":`); i >= 0 {
				j := strings.Index(l[i:], `,"epoch"`)
				l = l[:i] + l[i+j+1:]
			}
			lines = append(lines, l)
		}
		return strings.Join(lines, "\n")
	}
	if ka, ca := dump(killed), dump(calm); ka != ca {
		t.Fatalf("killed archive's events:\n%s\nwant\n%s", ka, ca)
	}
	// Every archived event has its observed time, once.
	out, _ = exec.Command(bin, "validate", filepath.Join(killed, "c", watchTestJob)).CombinedOutput()
	if strings.Contains(string(out), "duplicate") {
		t.Fatalf("validate: %s", out)
	}
}
