package blob

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestEpochs_WhileHeartbeating: on file://, listing epochs/ while the
// master rewrites its heartbeat object must not fail with "object not
// found" (fileblob stats every entry it walks, and the heartbeat is
// replaced by a rename).
func TestEpochs_WhileHeartbeating(t *testing.T) {
	ctx := context.Background()
	l, err := Create(ctx, "file://"+filepath.ToSlash(t.TempDir())+"?prefix=job/")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.ClaimEpoch(ctx, EpochInfo{Epoch: 1, Master: "m1", StartSeq: 2}); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := l.Heartbeat(ctx, 1); err != nil {
				t.Error(err)
				return
			}
			time.Sleep(200 * time.Microsecond) // a busy master, far busier than a real one
		}
	}()
	for i := 0; i < 300; i++ {
		epochs, err := l.Epochs(ctx)
		if err != nil {
			close(stop)
			wg.Wait()
			t.Fatalf("listing %d: %v", i, err)
		}
		if len(epochs) != 1 || epochs[0].Epoch != 1 {
			close(stop)
			wg.Wait()
			t.Fatalf("listing %d: epochs = %v, want epoch 1", i, epochs)
		}
	}
	close(stop)
	wg.Wait()
}
