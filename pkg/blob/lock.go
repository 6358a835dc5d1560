package blob

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
)

// CompactLockKey is the object a compaction holds while it runs, created
// with IfNotExist: JSON {"owner":"host:pid","started":"RFC 3339 time"}.
// Part of the layout.
const CompactLockKey = "compact.lock"

// compactLockTTL is how old, by the bucket's clock, a compaction lock must
// be to count as left by a compaction that died. A running compaction
// rewrites it every compactLockTTL/4. Tests shorten it.
var compactLockTTL = 10 * time.Minute

// compactLock is a held compaction lock.
type compactLock struct {
	log      *Log
	body     []byte
	mu       sync.Mutex
	written  time.Time // local clock: only to pace refreshes
	released bool
}

// lockCompaction takes the log's compaction lock. A lock that another
// compaction holds is an error wrapping ErrCompacting; one older than
// compactLockTTL by the bucket's modification times is broken and taken.
// Two compactions that find the same stale lock at the same moment can
// both break it: the lock guards against overlapping compactions of a
// live log, not against that double fault.
func (l *Log) lockCompaction(ctx context.Context) (*compactLock, error) {
	host, _ := os.Hostname()
	body, err := json.Marshal(map[string]string{
		"owner":   fmt.Sprintf("%s:%d", host, os.Getpid()),
		"started": time.Now().UTC().Format(time.RFC3339),
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
		if !errors.Is(err, errExists) {
			return nil, fmt.Errorf("lock: %w", err)
		}
		age, err := l.objectAge(ctx, CompactLockKey)
		if errors.Is(err, ErrNotFound) && attempt < 2 {
			continue // released meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("lock: %w", err)
		}
		if age < compactLockTTL || attempt >= 2 {
			owner, _ := l.store.get(ctx, CompactLockKey)
			return nil, fmt.Errorf("%w: %s was written %v ago (%s); it goes stale %v after its last update",
				ErrCompacting, CompactLockKey, age.Round(time.Second), trimJSON(owner), compactLockTTL)
		}
		if err := l.store.delete(ctx, CompactLockKey); err != nil && !errors.Is(err, ErrNotFound) {
			return nil, fmt.Errorf("lock: break stale lock: %w", err)
		}
	}
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
