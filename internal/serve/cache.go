package serve

import (
	"container/list"
	"context"
	"fmt"
	"sync"

	"github.com/jobevent/jobevent/internal/answer"
	"github.com/jobevent/jobevent/pkg/logsource"
)

// planCache holds the plans answered, per (log, seq, what-if): a plan
// depends only on the events up to its seq and the what-if options.
// Least recently used plans go first. Safe for concurrent use.
type planCache struct {
	mu    sync.Mutex
	max   int
	order *list.List // of *planEntry, most recent first
	byKey map[string]*list.Element
}

type planEntry struct {
	key string
	a   *answer.PlanAnswer
}

func newPlanCache(max int) *planCache {
	return &planCache{max: max, order: list.New(), byKey: make(map[string]*list.Element)}
}

// planKey is the cache key of q on the log arg open as src, or "" when
// the log cannot say how many events it holds (nothing is cached): the
// number of events the listing promises up to q.At stands for the seq
// the plan is made at, so that a log that grows gets a new plan.
func planKey(ctx context.Context, arg string, src logsource.Source, q answer.PlanQuery) string {
	t, ok := src.(logsource.WithTotal)
	if !ok {
		return ""
	}
	n := t.Total(ctx, 0, q.At)
	if n <= 0 {
		return ""
	}
	a := q.Available
	return fmt.Sprintf("%q %d %d %q %v %v", arg, q.At, n, a.LostWorkers, a.LostPartitions, a.NoWorkers)
}

func (c *planCache) get(key string) (*answer.PlanAnswer, bool) {
	if key == "" {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*planEntry).a, true
}

func (c *planCache) put(key string, a *answer.PlanAnswer) {
	if key == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[key]; ok {
		e.Value.(*planEntry).a = a
		c.order.MoveToFront(e)
		return
	}
	c.byKey[key] = c.order.PushFront(&planEntry{key: key, a: a})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byKey, last.Value.(*planEntry).key)
	}
}
