package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wordcountSpec writes a copy of testdata/jobs/wordcount.yaml into a new
// directory with absolute input and output paths, and returns the spec
// path and the directory.
func wordcountSpec(t *testing.T) (spec, dir string) {
	t.Helper()
	dir = t.TempDir()
	raw, err := os.ReadFile("../../testdata/jobs/wordcount.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text, err := filepath.Abs("../../testdata/text")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(raw), "input: ../text", "input: "+text, 1)
	s = strings.Replace(s, "output: jobevents-out/wordcount", "output: "+filepath.Join(dir, "out"), 1)
	spec = filepath.Join(dir, "wordcount.yaml")
	if err := os.WriteFile(spec, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return spec, dir
}

func TestRun_EmbeddedExitCodes(t *testing.T) {
	spec, dir := wordcountSpec(t)
	log := filepath.Join(dir, "log")
	work := filepath.Join(dir, "work")
	r := runCLI(t, "run", spec, "--events", log, "--work-dir", work).wantCode(t, 0)
	for _, want := range []string{"status        finished", "log           file://", "output        " + filepath.Join(dir, "out")} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, r.stdout)
		}
	}
	counts, err := os.ReadFile(filepath.Join(dir, "out", "part-00000"))
	if err != nil || !strings.Contains(string(counts), "\t") {
		t.Fatalf("output part-00000: %q, %v", counts, err)
	}
	// The log holds the job: refused without --resume.
	runCLI(t, "run", spec, "--events", log, "--work-dir", work).wantOneLineError(t, 2, "already holds job wordcount", "--resume")
	// --resume of a finished job says so and exits 0.
	r = runCLI(t, "run", spec, "--events", log, "--work-dir", work, "--resume", "--format", "json").wantCode(t, 0)
	var sum struct {
		Status       string `json:"status"`
		AlreadyEnded bool   `json:"already_ended"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil || !sum.AlreadyEnded || sum.Status != "finished" {
		t.Fatalf("summary %q (%v), want already ended, finished", r.stdout, err)
	}
	if !strings.Contains(r.stderr, "already finished") {
		t.Errorf("stderr = %q, want it to say the job already finished", r.stderr)
	}
}

func TestRun_CrashThenResume(t *testing.T) {
	spec, dir := wordcountSpec(t)
	log := filepath.Join(dir, "log")
	work := filepath.Join(dir, "work")
	r := runCLI(t, "run", spec, "--events", log, "--work-dir", work, "--seed", "4", "--crash-after-seq", "12")
	r.wantOneLineError(t, 3, "after event 12")
	if r.stdout != "" {
		t.Errorf("a crashed run printed %q; it must skip everything", r.stdout)
	}
	// Flags after the positional argument work too.
	runCLI(t, "run", spec, "--events", log, "--work-dir", work, "--resume", "--seed", "4").wantCode(t, 0)
	got, err := os.ReadFile(filepath.Join(dir, "out", "part-00001"))
	if err != nil {
		t.Fatal(err)
	}
	clean, cdir := wordcountSpec(t)
	runCLI(t, "run", clean, "--events", filepath.Join(cdir, "log"), "--work-dir", filepath.Join(cdir, "work")).wantCode(t, 0)
	want, err := os.ReadFile(filepath.Join(cdir, "out", "part-00001"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("resumed output differs from a clean run:\n%s\nwant:\n%s", got, want)
	}
}

func TestReplay_RecoversForReal(t *testing.T) {
	spec, dir := wordcountSpec(t)
	log := filepath.Join(dir, "log")
	runCLI(t, "run", spec, "--events", log, "--work-dir", filepath.Join(dir, "work"), "--crash-after-seq", "25").wantCode(t, 3)
	// replay without --dry-run recovers the job with the default work
	// dir (./jobevents-work), which holds no partitions for it: every
	// partition counts as lost.
	t.Chdir(dir)
	r := runCLI(t, "replay", log, "--format", "json").wantCode(t, 0)
	var sum struct {
		Status    string `json:"status"`
		Recovered bool   `json:"recovered"`
		Epoch     int    `json:"epoch"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil || sum.Status != "finished" || !sum.Recovered || sum.Epoch != 2 {
		t.Fatalf("summary %q (%v), want finished, recovered in epoch 2", r.stdout, err)
	}
}

func TestRun_BadSpec(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "bad.yaml")
	os.WriteFile(spec, []byte("job: bad\nvertices:\n  - id: a\n    operator: sequence\n    args: {to: 3}\n    parallelism: lots\n"), 0o644)
	runCLI(t, "run", spec, "--events", filepath.Join(dir, "log")).wantOneLineError(t, 2, `bad.yaml:6: vertices[0].parallelism: want a number`)
	runCLI(t, "run", filepath.Join(dir, "missing.yaml")).wantOneLineError(t, 2, "missing.yaml")
	runCLI(t, "run").wantOneLineError(t, 2, "want 1 argument")
}

func TestMasterWorker_Usage(t *testing.T) {
	t.Setenv("JOBEVENT_TOKEN", "")
	runCLI(t, "master", "--events", t.TempDir()).wantOneLineError(t, 2, "SPEC.yaml")
	runCLI(t, "worker", "--events", t.TempDir(), "--dir", t.TempDir()).wantOneLineError(t, 2, "token")
	runCLI(t, "worker", "--dir", t.TempDir()).wantOneLineError(t, 2, "events")
	runCLI(t, "worker", "--events", t.TempDir(), "--dir", t.TempDir(), "--token", "t", "--name", "../w1").
		wantOneLineError(t, 2, `--name "../w1"`)
	runCLI(t, "worker", "--events", t.TempDir(), "--dir", t.TempDir(), "--token", "t", "--tls-cert", "c.pem").
		wantOneLineError(t, 2, "--tls-cert, --tls-key and --tls-ca together")
	spec := filepath.Join("..", "..", "testdata", "jobs", "wordcount.yaml")
	runCLI(t, "master", spec, "--events", t.TempDir(), "--token", "t", "--tls-ca", "ca.pem").
		wantOneLineError(t, 2, "--tls-cert, --tls-key and --tls-ca together")
	runCLI(t, "worker", "--events", t.TempDir(), "--dir", t.TempDir(), "--token", "t", "--tls-cert", "c.pem", "--tls-key", "k.pem").
		wantOneLineError(t, 2, "--tls-cert, --tls-key and --tls-ca together")
	runCLI(t, "master", spec, "--events", t.TempDir(), "--token", "t", "--tls-cert", "missing.pem", "--tls-key", "missing-key.pem", "--tls-ca", "ca.pem").
		wantOneLineError(t, 2, "missing.pem")
}
