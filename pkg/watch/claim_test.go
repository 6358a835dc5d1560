package watch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWatch_TwoWatchesOneWrites: a second watch on one ROOT waits while
// the first keeps its claim alive, and the first stops writing once the
// second has taken ROOT over.
func TestWatch_TwoWatchesOneWrites(t *testing.T) {
	dir := t.TempDir()
	src, root := filepath.Join(dir, "ha"), filepath.Join(dir, "archive")
	os.MkdirAll(filepath.Join(src, "c", testJob, "job-events"), 0o755)
	os.MkdirAll(root, 0o755)
	a := newTestWatcher(t, src, root)
	if err := a.Poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	b, err := New(context.Background(), Options{Sources: []string{src}, Archive: root, Interval: 10 * time.Millisecond, ClaimStale: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := b.Claim(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second claim = %v, want it to wait while the first watch is alive", err)
	}
	if err := b.Poll(context.Background()); err == nil {
		t.Fatal("a watch without the claim polled")
	}
	// The first watch's claim goes stale: the second takes over, and the
	// first is fenced.
	b.opts.ClaimStale = time.Nanosecond
	if err := b.Claim(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := a.Poll(context.Background()); !errors.Is(err, ErrFenced) {
		t.Fatalf("first watch after the takeover: %v, want ErrFenced", err)
	}
	if err := b.Poll(context.Background()); err != nil {
		t.Fatal(err)
	}
}
