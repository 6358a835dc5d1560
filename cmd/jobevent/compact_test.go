package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/internal/blobtest"
	"github.com/jobevent/jobevent/internal/testenv"
	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/format"
)

// segmentedLog writes the events of testdata/logs/name into a new log at
// url as segments of per events each (cut where the epoch changes), as a
// master with a small write buffer would, and claims the epochs.
func segmentedLog(t *testing.T, url, name string, per int) {
	t.Helper()
	ctx := testenv.Context(t)
	f, err := os.Open(logPath(name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l, err := blob.Create(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	r := format.NewJSONReader(f)
	var chunk []format.Event
	flush := func() {
		if len(chunk) > 0 {
			if _, err := l.WriteSegment(ctx, chunk); err != nil {
				t.Fatal(err)
			}
			chunk = nil
		}
	}
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if n := len(chunk); n > 0 && (n == per || chunk[n-1].Epoch != e.Epoch) {
			flush()
		}
		if e.Kind == format.KindMasterStarted {
			if err := l.ClaimEpoch(ctx, blob.EpochInfo{Epoch: e.Epoch, Master: e.Master, StartSeq: e.Seq}); err != nil {
				t.Fatal(err)
			}
		}
		chunk = append(chunk, e)
	}
	flush()
}

func countSegments(t *testing.T, url string) int {
	t.Helper()
	l, err := blob.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	segs, err := l.Segments(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return len(segs)
}

func TestCompact(t *testing.T) {
	url := filepath.Join(t.TempDir(), "logs") + "?prefix=jobs/failover/"
	segmentedLog(t, url, "failover.jsonl", 4)
	before := countSegments(t, url)
	if before < 6 {
		t.Fatalf("segments = %d, want many small ones", before)
	}
	dry := runCLI(t, "compact", url, "--dry-run").wantCode(t, 0)
	if !strings.Contains(dry.stdout, "would compact") || countSegments(t, url) != before {
		t.Fatalf("dry run:\n%s", dry.stdout)
	}
	r := runCLI(t, "compact", url).wantCode(t, 0)
	if !strings.Contains(r.stdout, "compacted ") || !strings.Contains(r.stdout, "COVERING SEGMENT") {
		t.Fatalf("stdout:\n%s", r.stdout)
	}
	if got := countSegments(t, url); got != 2 {
		t.Fatalf("segments after = %d, want one per epoch\n%s", got, r.stdout)
	}
	d := runCLI(t, "dump", url, "--format", "json").wantCode(t, 0)
	if d.stdout != readLog(t, "failover.jsonl") || d.stderr != "" {
		t.Fatalf("dump after compaction differs from the log:\n%s\nstderr: %s", d.stdout, d.stderr)
	}
	j := runCLI(t, "compact", url, "--format", "json").wantCode(t, 0)
	var res blob.CompactResult
	if err := json.Unmarshal([]byte(j.stdout), &res); err != nil {
		t.Fatalf("json %q: %v", j.stdout, err)
	}
	if res.SegmentsBefore != 2 || res.SegmentsAfter != 2 || len(res.Covering) != 0 || res.Covering == nil {
		t.Fatalf("second compaction = %+v", res)
	}
}

// The dry run's summary counts the segments the compaction leaves, as the
// real compaction then reports them.
func TestCompact_DryRunSummary(t *testing.T) {
	url := filepath.Join(t.TempDir(), "logs") + "?prefix=jobs/failover/"
	segmentedLog(t, url, "failover.jsonl", 4)
	before := countSegments(t, url)
	dry := runCLI(t, "compact", url, "--dry-run").wantCode(t, 0)
	var plan blob.CompactResult
	if err := json.Unmarshal([]byte(runCLI(t, "compact", url, "--dry-run", "--format", "json").wantCode(t, 0).stdout), &plan); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "compact", url).wantCode(t, 0)
	after := countSegments(t, url)
	if after == before {
		t.Fatalf("nothing compacted:\n%s", r.stdout)
	}
	want := fmt.Sprintf("%d segments (", before)
	if first, _, _ := strings.Cut(dry.stdout, "\n"); !strings.Contains(first, want) ||
		!strings.Contains(first, fmt.Sprintf("-> %d segments (%d merged into %d covering segments)", after, before, after)) {
		t.Fatalf("dry run says %q, want %d segments -> %d", first, before, after)
	}
	if plan.SegmentsBefore != before || plan.SegmentsAfter != after {
		t.Fatalf("dry run json: segments %d -> %d, want %d -> %d", plan.SegmentsBefore, plan.SegmentsAfter, before, after)
	}
	if first, _, _ := strings.Cut(r.stdout, "\n"); !strings.Contains(first, fmt.Sprintf("-> %d segments (", after)) {
		t.Fatalf("compaction says %q, want -> %d segments", first, after)
	}
}

// TestCompact_RunningJob leaves the newest segment of an unfinished job.
func TestCompact_RunningJob(t *testing.T) {
	url := filepath.Join(t.TempDir(), "logs")
	segmentedLog(t, url, "running.jsonl", 5)
	r := runCLI(t, "compact", url, "--target-size", "1MiB").wantCode(t, 0)
	if !strings.Contains(r.stdout, "left alone: events/") || !strings.Contains(r.stdout, "may still be writing") {
		t.Fatalf("stdout:\n%s", r.stdout)
	}
	if got := countSegments(t, url); got != 2 {
		t.Fatalf("segments = %d, want the merged ones and the newest", got)
	}
	d := runCLI(t, "dump", url, "--format", "json").wantCode(t, 0)
	if d.stdout != readLog(t, "running.jsonl") {
		t.Fatal("dump after compaction differs from the log")
	}
}

func TestCompact_S3(t *testing.T) {
	url := blobtest.WithPrefix(blobtest.S3(t), "jobs/healthy/")
	segmentedLog(t, url, "healthy.jsonl", 3)
	runCLI(t, "compact", url).wantCode(t, 0)
	if got := countSegments(t, url); got != 1 {
		t.Fatalf("segments = %d, want 1", got)
	}
	if d := runCLI(t, "dump", url, "--format", "json").wantCode(t, 0); d.stdout != readLog(t, "healthy.jsonl") {
		t.Fatal("dump after compaction differs from the log")
	}
}

func TestCompact_Errors(t *testing.T) {
	dir := t.TempDir()
	runCLI(t, "compact", dir, "--target-size", "16MiB").wantOneLineError(t, 2, "bad --target-size", "usage: jobevent compact")
	runCLI(t, "compact", dir, "--target-size", "lots").wantOneLineError(t, 2, "bad --target-size")
	runCLI(t, "compact", logPath("healthy.jsonl")).wantOneLineError(t, 2, "needs a bucket log")
	runCLI(t, "compact", dir).wantOneLineError(t, 2, "no event log at")
	runCLI(t, "compact").wantOneLineError(t, 2, "want 1 argument")
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"4194304": 4 << 20, "512KiB": 512 << 10, "8MiB": 8 << 20, "1M": 1 << 20, "100B": 100} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "MiB", "-1", "1.5MiB", "1GiB"} {
		if _, err := parseSize(bad); err == nil {
			t.Errorf("parseSize(%q) succeeded", bad)
		}
	}
}
