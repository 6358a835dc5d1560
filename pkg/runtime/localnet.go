package runtime

import (
	"context"
	"fmt"
	"sync"
)

// localNet connects in-process workers: a task fetches a partition
// straight from the worker's store. Disconnect makes a worker unreachable,
// as a dead machine would be.
type localNet struct {
	mu      sync.Mutex
	workers map[string]*workerCore
	down    map[string]bool
	lost    map[partID]bool
}

func newLocalNet() *localNet {
	return &localNet{workers: map[string]*workerCore{}, down: map[string]bool{}, lost: map[partID]bool{}}
}

// Lose makes one partition unreadable, as a failing disk would, while its
// worker still lists it.
func (n *localNet) Lose(id partID) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.lost[id] = true
}

func (n *localNet) add(w *workerCore) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.workers[w.id] = w
}

// Disconnect makes worker id unreachable for fetches.
func (n *localNet) Disconnect(id string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.down[id] = true
}

func (n *localNet) fetch(ctx context.Context, job string, in inputFetch) ([]byte, int64, error) {
	n.mu.Lock()
	w, down, lost := n.workers[in.Worker], n.down[in.Worker], n.lost[in.Partition]
	n.mu.Unlock()
	if w == nil || down {
		return nil, 0, fmt.Errorf("worker %s: %w: %w", in.Worker, errWorkerUnreachable, ErrPartitionNotFound)
	}
	if lost {
		return nil, 0, fmt.Errorf("%s on worker %s: %w", partString(in.Partition), in.Worker, ErrPartitionNotFound)
	}
	return w.serve(job, in.Partition, in.From, in.To)
}
