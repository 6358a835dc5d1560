package watch

import (
	"context"
	"time"

	"github.com/jobevent/jobevent/pkg/blob"
)

// logJob is one jobevent log watched: planned, never copied.
type logJob struct {
	url  string
	id   string
	mark logMark
	exp  exposure
}

// pollLog plans a jobevent log when its segments changed.
func (w *Watcher) pollLog(ctx context.Context, src *blob.Bucket, prefix string, mark logMark) error {
	key := src.URL() + "\x00" + prefix
	w.mu.Lock()
	j := w.logs[key]
	if j == nil {
		j = &logJob{url: src.Sub(prefix).URL()}
		w.logs[key] = j
	}
	w.mu.Unlock()
	if j.exp.planned && j.mark == mark {
		return nil
	}
	st, p, fresh, err := plan(ctx, j.url, j.exp.archived)
	if err != nil {
		return err
	}
	j.mark, j.id = mark, st.Job()
	if j.id == "" {
		j.id = prefix
	}
	if len(fresh) > 0 || j.exp.lastGrowth.IsZero() {
		j.exp.lastGrowth = w.opts.Now()
	}
	j.exp.archived = st.LastSeq()
	w.update(j.url, &j.exp, st, p, fresh)
	return nil
}

// age is the time since t, in seconds.
func (w *Watcher) age(t time.Time) float64 { return w.opts.Now().Sub(t).Seconds() }
