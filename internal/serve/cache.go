package serve

import (
	"container/list"
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/jobevent/jobevent/internal/answer"
	"github.com/jobevent/jobevent/pkg/logsource"
	"github.com/jobevent/jobevent/pkg/replay"
)

// lru holds answers by key, least recently used first to go. The server
// holds plans per (log, seq, what-if): a plan depends only on the events
// up to its seq and the what-if options; and the timelines of the logs
// last shown, per (log, events). Safe for concurrent use.
type lru[V any] struct {
	mu    sync.Mutex
	max   int
	order *list.List // of *lruEntry, most recent first
	byKey map[string]*list.Element
}

type lruEntry[V any] struct {
	key string
	v   V
}

// planned is a plan answered, with the names of its vertices then: what
// the API writes and a page shows of it. It holds no State, whose memory
// is that of the whole job.
type planned struct {
	plan  *replay.RecoveryPlan
	names map[string]string
}

// writeJSON writes the plan's JSON, as replay --dry-run --format json
// (answer.PlanAnswer.WriteJSON).
func (p *planned) writeJSON(w io.Writer) error { return replay.WritePlanJSON(w, p.plan, p.names) }

func newLRU[V any](max int) *lru[V] {
	return &lru[V]{max: max, order: list.New(), byKey: make(map[string]*list.Element)}
}

// planKey is the cache key of q on the log arg open as src, or "" when
// the log cannot say how many events it holds (nothing is cached): the
// number of events the listing promises up to q.At stands for the seq
// the plan is made at, so that a log that grows gets a new plan.
func planKey(ctx context.Context, arg string, src logsource.Source, q answer.PlanQuery, fo *logsource.FlinkOptions) string {
	t, ok := src.(logsource.WithTotal)
	if !ok {
		return ""
	}
	n := t.Total(ctx, 0, q.At)
	if n <= 0 {
		return ""
	}
	a := q.Available
	var coords map[string]string
	if fo != nil {
		coords = fo.Coordinators
	}
	return fmt.Sprintf("%q %d %d %q %v %v %q", arg, q.At, n, a.LostWorkers, a.LostPartitions, a.NoWorkers, coords)
}

// get returns the value of key; "" is never held.
func (c *lru[V]) get(key string) (v V, ok bool) {
	if key == "" {
		return v, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[key]
	if !ok {
		return v, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*lruEntry[V]).v, true
}

// put holds v under key, unless key is "".
func (c *lru[V]) put(key string, v V) {
	if key == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[key]; ok {
		e.Value.(*lruEntry[V]).v = v
		c.order.MoveToFront(e)
		return
	}
	c.byKey[key] = c.order.PushFront(&lruEntry[V]{key: key, v: v})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byKey, last.Value.(*lruEntry[V]).key)
	}
}
