package blob

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
)

// withoutClaimants returns epochs with their random Claimant cleared, so
// that tests can compare the rest.
func withoutClaimants(epochs []EpochInfo) []EpochInfo {
	out := make([]EpochInfo, len(epochs))
	for i, e := range epochs {
		e.Claimant = ""
		out[i] = e
	}
	return out
}

// landThenFailStore reports a failure for the first create of each epoch
// object after the object landed, as an upload whose answer was lost does.
type landThenFailStore struct {
	objectStore
	mu     sync.Mutex
	failed map[string]bool
}

func (s *landThenFailStore) create(ctx context.Context, key string, data []byte, contentType string) error {
	if _, ok := parseEpochKey(key); !ok {
		return s.objectStore.create(ctx, key, data, contentType)
	}
	if err := s.objectStore.create(ctx, key, data, contentType); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failed[key] {
		return nil
	}
	s.failed[key] = true
	return fmt.Errorf("write %s: %w (after the write landed)", key, errInjected)
}

// TestClaimEpoch_RetryFindsItsOwnClaim: a claim whose first upload landed
// but reported a failure is won by its retry, and a second claim of the
// same epoch with the same master and start loses.
func TestClaimEpoch_RetryFindsItsOwnClaim(t *testing.T) {
	l, err := Create(ctx, uniqueMem("claim-retry"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.store = &landThenFailStore{objectStore: l.store, failed: map[string]bool{}}
	info := EpochInfo{Epoch: 1, Master: "embedded", StartSeq: 1}
	if err := l.ClaimEpoch(ctx, info); err != nil {
		t.Fatalf("claim whose first answer was lost: %v, want won", err)
	}
	if err := l.ClaimEpoch(ctx, info); !errors.Is(err, ErrEpochTaken) {
		t.Fatalf("second claim with the same bytes but its own nonce: %v, want ErrEpochTaken", err)
	}
}

// TestClaimEpoch_Claimant: each claim records a nonce of its own.
func TestClaimEpoch_Claimant(t *testing.T) {
	l, err := Create(ctx, uniqueMem("claimant"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for e := int32(1); e <= 2; e++ {
		if err := l.ClaimEpoch(ctx, EpochInfo{Epoch: e, Master: "embedded", StartSeq: 1, Claimant: "chosen"}); err != nil {
			t.Fatal(err)
		}
	}
	epochs, err := l.Epochs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a, b := epochs[0].Claimant, epochs[1].Claimant
	if len(a) != 32 || len(b) != 32 || a == b || a == "chosen" {
		t.Fatalf("claimants = %q, %q, want two different 32-hex nonces drawn by ClaimEpoch", a, b)
	}
}

// readOnlyStore refuses every write, as a bucket does to read-only
// credentials.
type readOnlyStore struct{ objectStore }

func (readOnlyStore) create(ctx context.Context, key string, data []byte, contentType string) error {
	return fmt.Errorf("write %s: %w", key, ErrAccessDenied)
}

func (readOnlyStore) put(ctx context.Context, key string, data []byte, contentType string) error {
	return fmt.Errorf("write %s: %w", key, ErrAccessDenied)
}

func (readOnlyStore) delete(ctx context.Context, key string) error {
	return fmt.Errorf("delete %s: %w", key, ErrAccessDenied)
}

// TestHeartbeatTime_ReadOnly: what `jobevent status` reads of a heartbeat
// needs no write access (HeartbeatAge writes a probe object).
func TestHeartbeatTime_ReadOnly(t *testing.T) {
	l, err := Create(ctx, uniqueMem("hb-readonly"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.ClaimEpoch(ctx, EpochInfo{Epoch: 1, Master: "m", StartSeq: 1}); err != nil {
		t.Fatal(err)
	}
	if err := l.Heartbeat(ctx, 1); err != nil {
		t.Fatal(err)
	}
	l.store = readOnlyStore{l.store}
	if _, err := l.HeartbeatAge(ctx, 1); !errors.Is(err, ErrAccessDenied) {
		t.Fatalf("HeartbeatAge on a read-only bucket: %v, want ErrAccessDenied (it writes a probe)", err)
	}
	got, err := l.HeartbeatTime(ctx, 1)
	if err != nil || got.IsZero() {
		t.Fatalf("HeartbeatTime = %v, %v; want the heartbeat's time", got, err)
	}
	if _, err := l.HeartbeatTime(ctx, 2); !errors.Is(err, ErrNotFound) {
		t.Fatalf("HeartbeatTime of an unclaimed epoch: %v, want ErrNotFound", err)
	}
}

// TestSeqGapError: one missing seq reads "seq 9", several "seq 9 to 11".
func TestSeqGapError(t *testing.T) {
	for _, c := range []struct {
		last, got int64
		want      string
	}{
		{8, 10, "seq gap: seq 9 missing before seq 10"},
		{8, 12, "seq gap: seq 9 to 11 missing before seq 12"},
		{9, 7, "seq gap: seq 7 follows seq 9 (duplicate or out of order)"},
	} {
		err := SeqGapError(c.last, c.got)
		if !errors.Is(err, ErrSeqGap) || err.Error() != c.want {
			t.Errorf("SeqGapError(%d, %d) = %v, want %q wrapping ErrSeqGap", c.last, c.got, err, c.want)
		}
	}
}
