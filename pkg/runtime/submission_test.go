package runtime

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/internal/testenv"
)

// TestSubmission_RecordAndRead: the submission section reads back as it
// was recorded, a second record replaces the first, the spec as submitted
// is unchanged, and a job.yaml without the section (a spec file, an older
// log) reads as the zero Submission.
func TestSubmission_RecordAndRead(t *testing.T) {
	t.Parallel()
	spec := loadJob(t, "wordcount.yaml")
	if spec.Submission != (Submission{}) {
		t.Fatalf("a spec file reads as submission %+v, want none", spec.Submission)
	}
	body := string(specBody(spec.Raw))
	for _, sub := range []Submission{{WorkDir: "/var/lib/work dir", OverwriteOutput: true}, {}} {
		if err := spec.recordSubmission(sub); err != nil {
			t.Fatal(err)
		}
		back, err := ParseSpec("job.yaml", spec.Raw)
		if err != nil {
			t.Fatal(err)
		}
		if back.Submission != sub {
			t.Errorf("submission reads back as %+v, want %+v", back.Submission, sub)
		}
		if got := string(specBody(spec.Raw)); got != body {
			t.Errorf("the recorded job.yaml's spec is\n%s\nwant\n%s", got, body)
		}
		if n := strings.Count(string(spec.Raw), "\nsubmission:"); n != 1 {
			t.Errorf("job.yaml holds %d submission sections, want 1:\n%s", n, spec.Raw)
		}
	}
	if _, err := ParseSpec("job.yaml", []byte(body+"\nsubmission:\n  work_dir: relative\n")); err == nil {
		t.Error("a relative recorded work dir was accepted")
	}
	byHand, err := ParseSpec("job.yaml", []byte(body+"\nsubmission:\n  overwrite_output: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := byHand.recordSubmission(Submission{}); err == nil || !strings.Contains(err.Error(), "not part of a spec") {
		t.Errorf("a spec with a submission section of its own: %v, want it refused", err)
	}
}

// crashInDir runs wordcount from dir with the relative work dir "work"
// and crashes it after event 12; it returns the log's URL.
func crashInDir(t *testing.T, dir string) string {
	t.Helper()
	url := "file://" + filepath.Join(dir, "jobevents") + "?prefix=wordcount/"
	_, err := Run(testenv.Context(t), loadJob(t, "wordcount.yaml"), Options{Dir: dir, WorkDir: "work", Events: url,
		Seeded: true, Seed: 4, CrashAfterSeq: 12})
	var crash *CrashError
	if !errors.As(err, &crash) {
		t.Fatalf("first run: %v, want the crash", err)
	}
	return url
}

// TestResume_RecordedWorkDir: resumed from another directory without a
// work dir, the job recovers from the partitions in the work dir recorded
// at submission: exactly what the dry run predicted starts.
func TestResume_RecordedWorkDir(t *testing.T) {
	t.Parallel()
	url := crashInDir(t, t.TempDir())
	plan := planOfLog(t, url)
	if plan.Summary.Keep == 0 {
		t.Fatal("the dry run keeps nothing")
	}
	stderr := newLockedBuffer()
	sum, err := Resume(testenv.Context(t), Options{Dir: t.TempDir(), Events: url, Seeded: true, Seed: 4, Stderr: stderr})
	if err != nil {
		t.Fatal(err)
	}
	events := readLog(t, url)
	if got, want := startedIn(events, sum.Epoch), predicted(plan, nil, events, sum.Epoch); !reflect.DeepEqual(got, want) {
		t.Fatalf("epoch %d started %v, plan predicted %v\n%s", sum.Epoch, got, want, stderr.String())
	}
	if strings.Contains(stderr.String(), "partitions of finished subtasks") {
		t.Errorf("warned of lost partitions:\n%s", stderr.String())
	}
}

// TestResume_NoRecordedPartitionFound: when none of the partitions the log
// records is found (the work dir is gone), the recovery says so before it
// reruns them.
func TestResume_NoRecordedPartitionFound(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	url := crashInDir(t, dir)
	if err := os.RemoveAll(filepath.Join(dir, "work")); err != nil {
		t.Fatal(err)
	}
	stderr := newLockedBuffer()
	if _, err := Resume(testenv.Context(t), Options{Dir: dir, Events: url, Stderr: stderr}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "partitions of finished subtasks and none of them is in the work dir "+filepath.Join(dir, "work")) {
		t.Fatalf("stderr does not say that no recorded partition was found:\n%s", stderr.String())
	}
}

// TestCancelInLog_RecordedWorkDir: canceling a dead master's job without a
// work dir deletes the partitions in the work dir recorded at submission.
func TestCancelInLog_RecordedWorkDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	url := crashInDir(t, dir)
	parts := filepath.Join(dir, "work", "wordcount")
	if _, err := os.Stat(parts); err != nil {
		t.Fatalf("the crashed run left no partitions: %v", err)
	}
	res, err := CancelInLog(testenv.Context(t), url, CancelOptions{Dir: t.TempDir(), Stderr: testWriter{t}})
	if err != nil || res.Status != "canceled" {
		t.Fatalf("cancel = %+v, %v", res, err)
	}
	if _, err := os.Stat(parts); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("partitions left in the recorded work dir after the cancel: %v", err)
	}
}
