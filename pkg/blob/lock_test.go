//go:build unix

package blob

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// writeLock leaves a compaction lock owned by owner, as a compaction
// that died would.
func writeLock(t *testing.T, l *Log, owner string) {
	t.Helper()
	body, _ := json.Marshal(lockOwner{Owner: owner, Started: time.Now().UTC().Format(time.RFC3339Nano), PIDNS: pidNamespace()})
	if err := l.store.create(ctx, CompactLockKey, append(body, '\n'), contentTypeJSON); err != nil {
		t.Fatal(err)
	}
}

// deadPID returns the pid of a process of this host that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// TestCompactLock_DeadOwner: the lock of a compaction killed on this host
// (its pid is gone) is taken over at once, not after compactLockTTL; of
// several compactions that find it at once, exactly one takes it.
func TestCompactLock_DeadOwner(t *testing.T) {
	host, _ := os.Hostname()
	l, err := Create(ctx, uniqueMem("lock-dead"))
	if err != nil {
		t.Fatal(err)
	}
	writeLock(t, l, fmt.Sprintf("%s:%d", host, deadPID(t)))
	const n = 8
	var wg sync.WaitGroup
	var mu sync.Mutex
	var won []*compactLock
	var refused []error
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, err := l.lockCompaction(ctx)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				refused = append(refused, err)
			} else {
				won = append(won, k)
			}
		}()
	}
	wg.Wait()
	if len(won) != 1 {
		t.Fatalf("%d compactions took the dead owner's lock, want exactly 1 (refusals: %v)", len(won), refused)
	}
	for _, err := range refused {
		if !errors.Is(err, ErrCompacting) {
			t.Fatalf("refusal %v, want ErrCompacting", err)
		}
	}
	if err := won[0].release(); err != nil {
		t.Fatal(err)
	}
	if _, err := l.store.stat(ctx, compactLockBreakKey); !errors.Is(err, ErrNotFound) {
		t.Fatalf("%s after the takeover: %v, want it gone", compactLockBreakKey, err)
	}
}

// TestCompactLock_LiveOrUnknownOwner: a lock whose owner runs, or whose
// liveness cannot be checked, is respected, and the refusal says how to
// break it.
func TestCompactLock_LiveOrUnknownOwner(t *testing.T) {
	host, _ := os.Hostname()
	for owner, want := range map[string]string{
		fmt.Sprintf("%s:%d", host, os.Getppid()): "is running",
		"another-host.example:4242":              "another host",
	} {
		l, err := Create(ctx, uniqueMem("lock-live"))
		if err != nil {
			t.Fatal(err)
		}
		writeLock(t, l, owner)
		_, err = l.lockCompaction(ctx)
		if !errors.Is(err, ErrCompacting) || !strings.Contains(err.Error(), want) ||
			!strings.Contains(err.Error(), "delete the object "+CompactLockKey+" of the log "+l.URL()) {
			t.Fatalf("owner %s: %v, want ErrCompacting saying %q and how to break the lock", owner, err, want)
		}
	}
}

// TestCompactLock_SIGKILLedOwner: a process that holds the lock (as a
// running compaction does) is killed with SIGKILL; the next compaction
// takes the lock over at once and compacts, instead of being refused for
// compactLockTTL.
func TestCompactLock_SIGKILLedOwner(t *testing.T) {
	if url := os.Getenv("JOBEVENT_TEST_LOCK_HOLDER"); url != "" {
		holdLock(url) // the helper process: never returns
	}
	dir := t.TempDir()
	l, err := Create(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	claim(t, l, 1, 1)
	writeSegments(t, l, numbered(genEvents(40, 9), 1, 1), 10)
	tctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(tctx, os.Args[0], "-test.run=^TestCompactLock_SIGKILLedOwner$")
	cmd.Env = append(os.Environ(), "JOBEVENT_TEST_LOCK_HOLDER="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "locked\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper said %q, %v; want locked", line, err)
	}
	if _, err := Compact(ctx, l, CompactOptions{}); !errors.Is(err, ErrCompacting) {
		t.Fatalf("compaction beside a live lock holder: %v, want ErrCompacting", err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	res, err := Compact(ctx, l, CompactOptions{})
	if err != nil {
		t.Fatalf("compaction after the holder was killed: %v, want it to take the lock over", err)
	}
	if res.SegmentsAfter >= res.SegmentsBefore {
		t.Fatalf("segments %d -> %d, want them merged", res.SegmentsBefore, res.SegmentsAfter)
	}
}

// holdLock takes the compaction lock of the log at url, says "locked" on
// stdout and waits to be killed.
func holdLock(url string) {
	l, err := Open(context.Background(), url)
	if err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	if _, err := l.lockCompaction(context.Background()); err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	fmt.Println("locked")
	time.Sleep(time.Hour) // the test kills it long before
	os.Exit(2)
}
