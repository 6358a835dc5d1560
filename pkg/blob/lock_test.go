//go:build unix

package blob

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
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
			!strings.Contains(err.Error(), "delete "+l.URL()+CompactLockKey) {
			t.Fatalf("owner %s: %v, want ErrCompacting saying %q and how to break the lock", owner, err, want)
		}
	}
}
