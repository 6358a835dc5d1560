package runtime

import (
	"path/filepath"
	"testing"

	"github.com/jobevent/jobevent/internal/testenv"
	"github.com/jobevent/jobevent/pkg/blob"
)

// TestRun_CompactOnFinish: a finished job's log is compacted to one
// segment per epoch and reads exactly as it did before compaction.
func TestRun_CompactOnFinish(t *testing.T) {
	t.Parallel()
	ctx := testenv.Context(t)
	run := func(compact bool) (string, []blob.SegmentInfo) {
		dir := jobDir(t)
		url := "file://" + filepath.ToSlash(filepath.Join(dir, "log"))
		opts := Options{Dir: dir, Events: url, Seeded: true, Seed: 1, CompactOnFinish: compact}
		if _, err := Run(ctx, loadJob(t, "flink-failover.yaml"), opts); err != nil {
			t.Fatal(err)
		}
		l, err := blob.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		segs, err := l.Segments(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return url, segs
	}
	plainURL, plain := run(false)
	compactURL, compacted := run(true)
	if len(plain) < 2 {
		t.Fatalf("segments without compaction = %d, want several (one per flush)", len(plain))
	}
	if len(compacted) != 1 {
		t.Fatalf("segments after compact on finish = %d, want 1", len(compacted))
	}
	a, b := readLog(t, plainURL), readLog(t, compactURL)
	if len(a) != len(b) {
		t.Fatalf("events after compaction = %d, want %d", len(b), len(a))
	}
	for i := range a {
		if eventKey(a[i]) != eventKey(b[i]) { // eventKey leaves out the time, which differs between runs
			t.Fatalf("event %d = %v, want %v", i, eventKey(b[i]), eventKey(a[i]))
		}
	}
}
