package drill

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
	"github.com/jobevent/jobevent/pkg/runtime"
)

// withReader opens the log at url and calls f with a reader over all of
// it, as `jobevent replay --dry-run` and the recovering master read it.
func withReader(ctx context.Context, url string, f func(r *blob.Reader) error) error {
	l, err := blob.Open(ctx, url)
	if err != nil {
		return err
	}
	defer l.Close()
	r, err := l.NewReader(ctx, blob.ReaderOptions{})
	if err != nil {
		return err
	}
	defer r.Close()
	return f(r)
}

// readEvents returns every event of the log as read (fenced rows
// filtered, a torn tail left out).
func readEvents(ctx context.Context, url string) ([]format.Event, error) {
	var events []format.Event
	err := withReader(ctx, url, func(r *blob.Reader) error {
		for {
			e, err := r.Next()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			events = append(events, e)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("read log %s: %w", url, err)
	}
	return events, nil
}

// foldLog folds the whole log at url over a blob reader, as `jobevent
// replay --dry-run` and the recovering master do, and returns the state
// with the events it folded.
func foldLog(ctx context.Context, url string) (*replay.State, []format.Event, error) {
	var st *replay.State
	var rec recorder
	err := withReader(ctx, url, func(r *blob.Reader) error {
		rec.src = r
		var err error
		st, err = replay.Fold(&rec, 0)
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("fold log %s: %w", url, err)
	}
	return st, rec.events, nil
}

// planOptions reads the plan options of the job.yaml of the log at url.
func planOptions(ctx context.Context, url string) (replay.PlanOptions, error) {
	l, err := blob.Open(ctx, url)
	if err != nil {
		return replay.PlanOptions{}, err
	}
	defer l.Close()
	opts, _, err := runtime.LogPlanOptions(ctx, l)
	if err != nil {
		return replay.PlanOptions{}, fmt.Errorf("job.yaml of %s: %w", url, err)
	}
	return opts, nil
}

// recorder is a replay.Source that keeps the events it passes on.
type recorder struct {
	src    replay.Source
	events []format.Event
}

func (r *recorder) Next() (format.Event, error) {
	e, err := r.src.Next()
	if err == nil {
		r.events = append(r.events, e)
	}
	return e, err
}

// validationErrors returns the error findings of replay.Validate on the
// events of a log as read. (Read from the log itself, Validate would add
// warnings for its torn tails and fenced rows, never errors: a reader
// error fails readEvents first.)
func validationErrors(events []format.Event) []replay.Finding {
	var errs []replay.Finding
	for _, f := range replay.Validate(&replay.SliceSource{Events: events}, replay.ValidateOptions{}) {
		if f.Severity == replay.SeverityError {
			errs = append(errs, f)
		}
	}
	return errs
}

// tearNewest truncates the newest segment of the log in d to half its
// size, as an upload cut short leaves it (no valid footer), and returns
// its key and new size.
func tearNewest(ctx context.Context, d runDir) (string, int64, error) {
	l, err := blob.Open(ctx, d.logURL())
	if err != nil {
		return "", 0, err
	}
	defer l.Close()
	segs, err := l.Segments(ctx)
	if err != nil {
		return "", 0, err
	}
	if len(segs) == 0 {
		return "", 0, fmt.Errorf("tear the newest segment of %s: the log has none", d.logURL())
	}
	newest := segs[len(segs)-1]
	size := newest.Size / 2
	if err := os.Truncate(d.logPath(newest.Key), size); err != nil {
		return "", 0, fmt.Errorf("tear segment %s: %w", newest.Key, err)
	}
	return newest.Key, size, nil
}
