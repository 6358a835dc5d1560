package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/internal/answer"
	"github.com/jobevent/jobevent/internal/progress"
	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/logsource"
)

// quietFlag is the --quiet flag of the long-running commands: no progress
// line and no summary lines on stderr. Errors and warnings are always
// printed.
func quietFlag() *cli.BoolFlag {
	return &cli.BoolFlag{
		Name:    "quiet",
		Aliases: []string{"q"},
		Usage:   "no progress bar and no summary line on stderr (errors and warnings are still printed)",
	}
}

// newProgress returns the progress line of the command running in c. It
// draws only when the app's stderr is a terminal, outside CI and without
// --quiet; otherwise it does nothing.
func newProgress(c *cli.Context) *progress.Reporter {
	o := appOf(c).progress
	o.Quiet = c.Bool("quiet")
	return progress.New(c.App.Writer, c.App.ErrWriter, o)
}

// withProgress returns src counting into p (answer.WithProgress).
func withProgress(src logsource.Source, p *progress.Reporter) logsource.Source {
	return answer.WithProgress(src, p)
}

// eventTotal returns how many events a reader of src between since and
// until (inclusive, 0 = unbounded) will return, as far as the log's
// listing tells (logsource.WithTotal); 0 when unknown.
func eventTotal(ctx context.Context, src logsource.Source, since, until int64) int64 {
	if t, ok := src.(logsource.WithTotal); ok {
		return t.Total(ctx, since, until)
	}
	return 0
}

// watchPoll is how often the progress line of a run looks for new
// segments in the log.
const watchPoll = 250 * time.Millisecond

// watchRun shows the progress of the job whose master writes the log at
// url: subtasks finished of the job's total (a spinner while a parallelism
// is still to be decided), from the events as they become durable. The
// runtime has no progress hook, so the line follows the log as "dump
// --follow" does, reading each segment once. It returns the function that
// stops watching. A disabled p watches nothing.
func watchRun(ctx context.Context, url string, p *progress.Reporter) (stop func()) {
	if !p.Enabled() {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		followSubtasks(ctx, url, p)
	}()
	return func() {
		cancel()
		<-done
	}
}

// followSubtasks counts the subtasks of the log at url into p until ctx is
// done. Reading errors end the count silently: the run itself reports
// what is wrong with its log.
func followSubtasks(ctx context.Context, url string, p *progress.Reporter) {
	log, r := openFollower(ctx, url)
	if r == nil {
		return
	}
	defer log.Close()
	defer r.Close()
	countSubtasks(r, p)
}

// countSubtasks counts the subtasks of the events of src into p until src
// ends or fails. The notices of src are drained unread: the run reports
// its own log's problems.
func countSubtasks(src interface {
	Next() (format.Event, error)
	Notices() []format.Notice
}, p *progress.Reporter) {
	var count progress.SubtaskCount
	for {
		e, err := src.Next()
		if err != nil {
			return
		}
		count.Apply(&e)
		src.Notices()
		p.SetTotal(count.Total())
		p.Set(count.Finished())
	}
}

// openFollower opens a following reader of the log at url, waiting for
// the log to appear (a new run creates it); nil when ctx is done first.
func openFollower(ctx context.Context, url string) (*blob.Log, *blob.Reader) {
	for {
		log, err := blob.Open(ctx, url)
		if err == nil {
			r, err := log.NewReader(ctx, blob.ReaderOptions{Follow: true, PollInterval: watchPoll})
			if err == nil {
				return log, r
			}
			log.Close()
		}
		if !pause(ctx, watchPoll) {
			return nil, nil
		}
	}
}

// pause waits d; false when ctx is done first.
func pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// runLogURL is the log a run of job writes to: --events, or the runtime's
// default, file://./jobevents?prefix=<job>/ under the working directory
// (runtime.Options.Events). It is only watched: a mismatch would cost the
// progress line, never the run.
func runLogURL(events, job string) string {
	if events != "" {
		return events
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return "file://" + filepath.ToSlash(filepath.Join(wd, "jobevents")) + "?prefix=" + job + "/"
}

// startRunProgress starts the progress line of a run of job writing to
// the log of --events (events, "" for the default): it returns the writer
// the runtime's messages must go to while the line may be drawn, and the
// function that ends the line, to call before the summary is printed.
func startRunProgress(c *cli.Context, job, events string) (stderr io.Writer, end func()) {
	p := newProgress(c)
	p.Start("run "+job, 0, progress.Subtasks)
	stop := watchRun(c.Context, runLogURL(events, job), p)
	return p.Writer(c.App.ErrWriter), func() {
		stop()
		p.Done()
	}
}
