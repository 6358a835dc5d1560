package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/internal/blobtest"
	"github.com/jobevent/jobevent/internal/report"
)

// dirBytes returns the total size of the files in dir.
func dirBytes(t *testing.T, dir string) int64 {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		n += info.Size()
	}
	return n
}

func TestLs(t *testing.T) {
	dir := t.TempDir()
	runCLI(t, "import", logPath("failover.jsonl"), dir+"?prefix=jobs/failover/").wantCode(t, 0)
	runCLI(t, "import", logPath("running.jsonl"), dir+"?prefix=jobs/running/").wantCode(t, 0)
	runCLI(t, "import", logPath("healthy.jsonl"), dir+"?prefix=archive/2026/healthy/").wantCode(t, 0)
	if err := os.MkdirAll(filepath.Join(dir, "scratch", "empty"), 0o777); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "ls", dir).wantCode(t, 0)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	var rows []string
	for _, l := range lines {
		if strings.Contains(l, "/ ") && !strings.Contains(l, "PREFIX") {
			rows = append(rows, strings.Join(strings.Fields(strings.ReplaceAll(l, "│", " ")), " "))
		}
	}
	want := []string{
		"archive/2026/healthy/ wordcount 1 1 29 " + report.HumanBytes(dirBytes(t, filepath.Join(dir, "archive", "2026", "healthy", "events"))),
		"jobs/failover/ wordcount 2 2 33",
		"jobs/running/ wordcount 1 1 22",
	}
	if len(rows) != len(want) {
		t.Fatalf("rows = %q, want %d\n%s", rows, len(want), r.stdout)
	}
	for i, w := range want {
		if !strings.HasPrefix(rows[i], w) {
			t.Fatalf("row %d = %q, want it to start with %q", i, rows[i], w)
		}
	}
	if !strings.HasSuffix(rows[1], " finished") || !strings.HasSuffix(rows[2], " unfinished") {
		t.Fatalf("statuses: %q", rows)
	}
	if !strings.HasSuffix(r.stdout, "3 logs under file://"+dir+"\n") {
		t.Fatalf("stdout:\n%s", r.stdout)
	}

	j := runCLI(t, "ls", dir+"?prefix=jobs/", "--format", "json").wantCode(t, 0)
	var out struct {
		Bucket string
		Logs   []struct {
			Log, Prefix, Job, Status string
			Finished                 bool
			Events                   int64
		}
	}
	if err := json.Unmarshal([]byte(j.stdout), &out); err != nil {
		t.Fatalf("json %q: %v", j.stdout, err)
	}
	if len(out.Logs) != 2 || out.Logs[0].Prefix != "jobs/failover/" || !out.Logs[0].Finished || out.Logs[1].Finished ||
		out.Logs[1].Log != "file://"+dir+"?prefix=jobs/running/" {
		t.Fatalf("json = %+v", out)
	}
}

func TestLs_Empty(t *testing.T) {
	dir := t.TempDir()
	r := runCLI(t, "ls", dir).wantCode(t, 0)
	if r.stdout != "no job logs under file://"+dir+"\n" {
		t.Fatalf("stdout = %q", r.stdout)
	}
	j := runCLI(t, "ls", dir, "--format", "json").wantCode(t, 0)
	if !strings.Contains(j.stdout, `"logs": []`) {
		t.Fatalf("json = %q", j.stdout)
	}
	runCLI(t, "ls", filepath.Join(dir, "nope")).wantOneLineError(t, 2, "does not exist")
	runCLI(t, "ls", logPath("healthy.jsonl")).wantOneLineError(t, 2, "not a JSONL file")
}

func TestLs_S3(t *testing.T) {
	srv := blobtest.NewS3Server(t)
	bucket := srv.Bucket(t)
	for _, name := range []string{"healthy", "failover"} {
		runCLI(t, "import", logPath(name+".jsonl"), blobtest.WithPrefix(bucket, "jobs/"+name+"/")).wantCode(t, 0)
	}
	r := runCLI(t, "ls", bucket, "--format", "json").wantCode(t, 0)
	if strings.Count(r.stdout, `"finished": true`) != 2 || !strings.Contains(r.stdout, `"prefix": "jobs/healthy/"`) {
		t.Fatalf("stdout:\n%s", r.stdout)
	}
}

// TestLs_MiddleSegment: ls reads a log of several segments whole, as status
// does: a flipped middle segment of a finished failed-over log makes it
// damaged, naming the segment, and the events ls counts are those status
// counts.
func TestLs_MiddleSegment(t *testing.T) {
	dir := t.TempDir()
	url := dir + "?prefix=j/"
	segmentedLog(t, url, "failover.jsonl", 5)
	var ls struct {
		Logs []struct {
			Status, Problem string
			Events          int64
		} `json:"logs"`
	}
	decodeLs := func() {
		t.Helper()
		if err := json.Unmarshal([]byte(runCLI(t, "ls", dir, "--format", "json").wantCode(t, 0).stdout), &ls); err != nil || len(ls.Logs) != 1 {
			t.Fatalf("ls: %v, %+v", err, ls.Logs)
		}
	}
	decodeLs()
	st := decodeStatus(t, runCLI(t, "status", url, "--format", "json").wantCode(t, 0).stdout)
	if got := ls.Logs[0]; got.Status != "finished" || got.Events != st.Events {
		t.Fatalf("ls = %+v, want finished with status's %d events", got, st.Events)
	}
	segs, err := os.ReadDir(filepath.Join(dir, "j", "events"))
	if err != nil || len(segs) < 3 {
		t.Fatalf("segments: %v, %v", segs, err)
	}
	middle := filepath.Join(dir, "j", "events", segs[len(segs)/2].Name())
	data, err := os.ReadFile(middle)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(middle, data, 0o666); err != nil {
		t.Fatal(err)
	}
	runCLI(t, "status", url).wantCode(t, 2)
	decodeLs()
	if got := ls.Logs[0]; got.Status != "damaged" || !strings.Contains(got.Problem, segs[len(segs)/2].Name()) {
		t.Fatalf("ls after a flipped middle segment = %+v, want damaged naming %s", got, segs[len(segs)/2].Name())
	}
}
