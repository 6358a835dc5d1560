package main

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/internal/progress"
	"github.com/jobevent/jobevent/pkg/format"
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

// progressOptions is the base of every command's progress line; tests
// replace its terminal check to exercise the line without a terminal.
var progressOptions = progress.Options{}

// newProgress returns the progress line of the command running in c. It
// draws only when the app's stdout and stderr are both terminals, outside
// CI and without --quiet; otherwise it does nothing.
func newProgress(c *cli.Context) *progress.Reporter {
	o := progressOptions
	o.Quiet = c.Bool("quiet")
	return progress.New(c.App.Writer, c.App.ErrWriter, o)
}

// progressSource counts the events read from an eventSource into a
// progress line. Key, Notices and Close are those of the source.
type progressSource struct {
	eventSource
	p *progress.Reporter
}

// Next returns the source's next event and counts it.
func (s *progressSource) Next() (format.Event, error) {
	e, err := s.eventSource.Next()
	if err == nil {
		s.p.Add(1)
	}
	return e, err
}

// withProgress returns src counting into p, or src itself when p draws
// nothing.
func withProgress(src eventSource, p *progress.Reporter) eventSource {
	if !p.Enabled() {
		return src
	}
	return &progressSource{eventSource: src, p: p}
}

// eventTotal returns how many events a reader of src between since and
// until (inclusive, 0 = unbounded) will return, as far as the segment
// names tell: the seq range that the log's segments span, cut to the
// bounds. It is 0 (unknown) for a JSONL file or when the listing fails;
// fenced rows can make it a little high.
func eventTotal(ctx context.Context, src eventSource, since, until int64) int64 {
	bs, ok := src.(*blobSource)
	if !ok {
		return 0
	}
	segs, err := bs.log.Segments(ctx)
	if err != nil || len(segs) == 0 {
		return 0
	}
	first, last := segs[0].First, segs[0].Last
	for _, s := range segs {
		first, last = min(first, s.First), max(last, s.Last)
	}
	if since > first {
		first = since
	}
	if until > 0 && until < last {
		last = until
	}
	return max(last-first+1, 0)
}
