package runtime

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/internal/testenv"
	"github.com/jobevent/jobevent/pkg/format"
)

func TestRun_Wordcount(t *testing.T) {
	t.Parallel()
	dir := jobDir(t)
	var stderr strings.Builder
	sum, err := Run(testenv.Context(t), loadJob(t, "wordcount.yaml"), Options{Dir: dir, Stderr: &stderr})
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	if sum.Status != "finished" {
		t.Fatalf("status = %q, want finished", sum.Status)
	}
	out := readOutput(t, dir, "wordcount")
	if len(out) != 2 {
		t.Fatalf("outputs = %v, want 2 part files", keys(out))
	}
	all := out["part-00000"] + out["part-00001"]
	if !strings.Contains(all, "the\t") {
		t.Fatalf("no count for \"the\" in %q", all)
	}
	events := readLog(t, sum.Log)
	if first, last := events[0], events[len(events)-1]; first.Kind != format.KindJobSubmitted || first.Seq != 1 ||
		events[1].Kind != format.KindMasterStarted || last.Kind != format.KindJobFinished || last.Status != format.StatusFinished {
		t.Fatalf("log runs from %s to %s, want job_submitted, master_started … job_finished finished", eventKey(first), eventKey(last))
	}
	var finished int
	for _, e := range events {
		if e.Kind == format.KindSubtaskFinished {
			finished++
			if e.Partitions == nil {
				t.Errorf("subtask_finished %s/%d without a partitions list", e.Vertex, e.Subtask)
			}
		}
	}
	if finished != sum.Subtasks || sum.Subtasks != 12 {
		t.Fatalf("%d subtask_finished for %d subtasks, want 12", finished, sum.Subtasks)
	}
}

// TestRun_CrashKeepsPartitions: a crash leaves the workers' partitions on
// disk (the resumed run reads them); a finished job deletes them.
func TestRun_CrashKeepsPartitions(t *testing.T) {
	t.Parallel()
	dir := jobDir(t)
	opts := Options{Dir: dir, Seeded: true, Seed: 1, CrashAfterSeq: 20}
	_, err := Run(testenv.Context(t), loadJob(t, "flink-failover.yaml"), opts)
	var crash *CrashError
	if !errors.As(err, &crash) {
		t.Fatalf("err = %v, want the crash", err)
	}
	if crash.ExitCode() != 3 {
		t.Errorf("exit code = %d, want 3", crash.ExitCode())
	}
	files, _ := filepath.Glob(filepath.Join(dir, "jobevents-work", "flink-failover", "w*", "numbers-*-0-mod"))
	if len(files) != 4 {
		t.Fatalf("after the crash the work dir holds %v, want the 4 partitions of numbers", files)
	}
	opts.CrashAfterSeq, opts.Resume = 0, true
	sum, err := Run(testenv.Context(t), loadJob(t, "flink-failover.yaml"), opts)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Kept == 0 {
		t.Fatal("the resumed run kept nothing")
	}
	if _, err := os.Stat(filepath.Join(dir, "jobevents-work", "flink-failover")); !os.IsNotExist(err) {
		t.Fatalf("partitions left after the job finished (stat: %v)", err)
	}
}
