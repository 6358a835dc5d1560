package blob

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// CompactLockKey is the object a compaction holds while it runs, created
// with IfNotExist: JSON {"owner":"host:pid","started":"RFC 3339 time",
// "pid_ns":"…"} (pid_ns, the owner's PID namespace, where known). Part of
// the layout.
const CompactLockKey = "compact.lock"

// compactLockTTL is how old, by the bucket's clock, a compaction lock must
// be to count as left by a compaction that died. A running compaction
// rewrites it every compactLockTTL/4. Tests shorten it.
var compactLockTTL = 10 * time.Minute

// compactLockBreakKey is held (created with IfNotExist) by a compaction
// while it breaks a dead owner's lock, so that two compactions never both
// break it: the one that loses finds the winner's new lock. Part of the
// layout.
const compactLockBreakKey = CompactLockKey + ".break"

// compactLock is a held compaction lock.
type compactLock struct {
	log      *Log
	body     []byte
	mu       sync.Mutex
	written  time.Time // local clock: only to pace refreshes
	released bool
}

// lockOwner is the body of a compaction lock.
type lockOwner struct {
	Owner   string `json:"owner"`            // host:pid
	Started string `json:"started"`          // RFC 3339
	PIDNS   string `json:"pid_ns,omitempty"` // the owner's PID namespace, where known
}

// lockCompaction takes the log's compaction lock. A lock that another
// compaction holds is an error wrapping ErrCompacting that says how to
// break it. A lock is broken and taken when its owner is known dead (a
// process of this host, in this PID namespace, that no longer runs) or
// when it is older than compactLockTTL by the bucket's modification
// times; breaking holds compactLockBreakKey, so two compactions that find
// the same dead lock never both take it.
func (l *Log) lockCompaction(ctx context.Context) (*compactLock, error) {
	host, _ := os.Hostname()
	body, err := json.Marshal(lockOwner{
		Owner:   fmt.Sprintf("%s:%d", host, os.Getpid()),
		Started: time.Now().UTC().Format(time.RFC3339Nano),
		PIDNS:   pidNamespace(),
	})
	if err != nil {
		return nil, err
	}
	body = append(body, '\n')
	for attempt := 0; ; attempt++ {
		err := l.store.create(ctx, CompactLockKey, body, contentTypeJSON)
		if err == nil {
			return &compactLock{log: l, body: body, written: time.Now()}, nil
		}
		if !errors.Is(err, errKeyTaken) {
			return nil, fmt.Errorf("lock: %w", err)
		}
		age, err := l.objectAge(ctx, CompactLockKey)
		if errors.Is(err, ErrNotFound) && attempt < 2 {
			continue // released meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("lock: %w", err)
		}
		held, err := l.store.get(ctx, CompactLockKey)
		if errors.Is(err, ErrNotFound) && attempt < 2 {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("lock: %w", err)
		}
		dead, why := lockOwnerDead(held)
		if (!dead && age < compactLockTTL) || attempt >= 2 {
			return nil, fmt.Errorf("%w: %s was written %v ago (%s; %s); it goes stale %v after its last update. "+
				"If no compaction of this log is running, delete the object %s of the log %s and run compact again",
				ErrCompacting, CompactLockKey, age.Round(time.Second), trimJSON(held), why, compactLockTTL,
				CompactLockKey, l.URL())
		}
		if err := l.breakLock(ctx, held); err != nil {
			return nil, err
		}
	}
}

// breakLock deletes the lock if it still holds dead (a body judged dead
// or stale), holding compactLockBreakKey meanwhile. It returns nil when
// the lock changed or went away: the caller tries to take it again.
func (l *Log) breakLock(ctx context.Context, dead []byte) error {
	if err := l.store.create(ctx, compactLockBreakKey, dead, contentTypeJSON); err != nil {
		if errors.Is(err, errKeyTaken) {
			return fmt.Errorf("%w: another compaction is breaking %s (%s exists; delete it if none is running)",
				ErrCompacting, CompactLockKey, compactLockBreakKey)
		}
		return fmt.Errorf("lock: break: %w", err)
	}
	defer l.store.delete(context.Background(), compactLockBreakKey)
	cur, err := l.store.get(ctx, CompactLockKey)
	switch {
	case errors.Is(err, ErrNotFound):
		return nil
	case err != nil:
		return fmt.Errorf("lock: break: %w", err)
	case !bytes.Equal(cur, dead):
		return nil // taken over meanwhile: look again
	}
	if err := l.store.delete(ctx, CompactLockKey); err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("lock: break stale lock: %w", err)
	}
	return nil
}

// lockOwnerDead reports whether the owner of a lock body is known to be
// dead, and says what is known of it.
func lockOwnerDead(body []byte) (dead bool, why string) {
	var o lockOwner
	if json.Unmarshal(body, &o) != nil {
		return false, "owner unreadable"
	}
	i := strings.LastIndexByte(o.Owner, ':')
	pid, err := strconv.Atoi(o.Owner[i+1:])
	host, _ := os.Hostname()
	switch {
	case i < 0 || err != nil || pid <= 0:
		return false, "owner unreadable"
	case o.Owner[:i] != host:
		return false, "its owner runs on another host: its liveness cannot be checked"
	case o.PIDNS != "" && o.PIDNS != pidNamespace():
		return false, "its owner runs in another PID namespace of this host: its liveness cannot be checked"
	case pid == os.Getpid() || !processGone(pid):
		return false, fmt.Sprintf("process %d of this host is running", pid)
	}
	return true, fmt.Sprintf("process %d of this host is gone", pid)
}

func trimJSON(b []byte) string {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return string(b)
}

// objectAge returns how long ago key was last written, by the bucket's
// clock alone (see HeartbeatAge).
func (l *Log) objectAge(ctx context.Context, key string) (time.Duration, error) {
	o, err := l.store.stat(ctx, key)
	if err != nil {
		return 0, err
	}
	now, err := l.bucketNow(ctx)
	if err != nil {
		return 0, err
	}
	return max(now.Sub(o.ModTime), 0), nil
}

// refresh rewrites the lock when a quarter of its lifetime has passed, so
// that a long compaction never looks dead.
func (k *compactLock) refresh(ctx context.Context) error {
	if k == nil {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if time.Since(k.written) < compactLockTTL/4 {
		return nil
	}
	if err := k.log.store.put(ctx, CompactLockKey, k.body, contentTypeJSON); err != nil {
		return fmt.Errorf("refresh lock: %w", err)
	}
	k.written = time.Now()
	return nil
}

// release deletes the lock; later calls do nothing.
func (k *compactLock) release() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.released {
		return nil
	}
	k.released = true
	err := k.log.store.delete(context.Background(), CompactLockKey)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("removing %s: %w (it goes stale after %v)", CompactLockKey, err, compactLockTTL)
	}
	return nil
}
