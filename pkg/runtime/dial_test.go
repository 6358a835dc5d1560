package runtime

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jobevent/jobevent/internal/testenv"
)

// lockedBuffer collects a process's stderr for a test to wait on.
type lockedBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func newLockedBuffer() *lockedBuffer { return &lockedBuffer{changed: make(chan struct{}, 1)} }

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case b.changed <- struct{}{}:
	default:
	}
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitFor waits until b holds want or ctx is done.
func (b *lockedBuffer) waitFor(ctx context.Context, t *testing.T, want string) {
	t.Helper()
	for !strings.Contains(b.String(), want) {
		select {
		case <-b.changed:
		case <-ctx.Done():
			t.Fatalf("never saw %q in:\n%s", want, b.String())
		}
	}
}

func TestDialable(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]bool{
		"127.0.0.1:7070": true, "[::]:7070": true, "master-1:7070": true, ":7070": true,
		"embedded": false, "": false, "host": false, "host:http": false, "host:0": false, "host:70000": false,
	} {
		if got := dialable(addr); got != want {
			t.Errorf("dialable(%q) = %v, want %v", addr, got, want)
		}
	}
}

// TestWorker_EmbeddedMaster: a worker on a log written by an embedded run
// never dials (or resolves) the recorded master "embedded": it says once
// that it waits for a master that listens, and serves the one that
// resumes the job.
func TestWorker_EmbeddedMaster(t *testing.T) {
	t.Parallel()
	dir := jobDir(t)
	url := crashedEmbedded(t, dir)
	ctx, cancel := context.WithTimeout(context.Background(), processDeadline)
	defer cancel()
	stderr := newLockedBuffer()
	done := make(chan error, 1)
	go func() {
		done <- RunWorker(ctx, WorkerOptions{Events: url, Dir: filepath.Join(dir, "work", "w1"), Name: "w1",
			Token: "secret", WorkDir: dir, Stderr: stderr})
	}()
	stderr.waitFor(ctx, t, `embedded in a "jobevent run" process and takes no workers`)
	c := newProcessCluster(t, dir, "wordcount")
	sum, err := c.master(MasterOptions{Resume: true, Listen: "127.0.0.1:0"})
	if err != nil || sum.Status != "finished" {
		t.Fatalf("resumed master = %+v, %v; want finished", sum, err)
	}
	if err := <-done; err != nil {
		t.Fatalf("worker = %v, want it to end with the job", err)
	}
	out := stderr.String()
	if strings.Contains(out, "lookup") || strings.Count(out, "takes no workers") != 1 {
		t.Fatalf("worker stderr:\n%s\nwant one notice about the embedded master and no lookup", out)
	}
	if !strings.Contains(out, "registered with master 127.0.0.1:") {
		t.Fatalf("worker stderr:\n%s\nwant it registered with the resumed master", out)
	}
}

func TestWorker_MasterNotAnAddress(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), processDeadline)
	defer cancel()
	err := RunWorker(ctx, WorkerOptions{Events: t.TempDir(), Dir: t.TempDir(), Master: "embedded", Token: "secret"})
	if err == nil || !strings.Contains(err.Error(), `--master "embedded" is not an address`) {
		t.Fatalf("err = %v, want --master refused", err)
	}
}

// crashedEmbedded runs wordcount embedded in dir until it crashes after
// event 12 and returns its log: a job that has not ended, whose master
// takes no workers.
func crashedEmbedded(t *testing.T, dir string) string {
	t.Helper()
	url := "file://" + filepath.Join(dir, "jobevents") + "?prefix=wordcount/"
	_, err := Run(testenv.Context(t), fastJob(t, "wordcount.yaml"), Options{Dir: dir, Events: url, CrashAfterSeq: 12})
	var crash *CrashError
	if !errors.As(err, &crash) {
		t.Fatalf("embedded run = %v, want its crash", err)
	}
	return url
}
