package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/internal/answer"
	"github.com/jobevent/jobevent/internal/human"
	"github.com/jobevent/jobevent/internal/report"
	"github.com/jobevent/jobevent/pkg/logsource"
	"github.com/jobevent/jobevent/pkg/replay"
)

// defaultSweepPoints is the default --points of replay --sweep.
const defaultSweepPoints = 50

// runSweep prints the exposure sweep of replay --dry-run --sweep.
func runSweep(c *cli.Context, src logsource.Source, opts replay.SweepOptions) error {
	opts.Points = c.Int("points")
	if opts.Points < 0 {
		return usagef(c, "bad --points %d: want 0 or more", opts.Points)
	}
	sw, err := answer.Sweep(src, opts)
	printNotices(c.App.ErrWriter, src.Notices())
	if errors.Is(err, replay.ErrUnknownVertex) {
		return usagef(c, "%v", err)
	}
	if err != nil {
		return err
	}
	if c.String("format") == "json" {
		return writeJSON(c.App.Writer, sw)
	}
	return printSweep(c.App.Writer, sw.Job, sw.Points, opts.Points)
}

// printSweep writes the table form of a sweep.
func printSweep(w io.Writer, job string, points []replay.SweepPoint, cap int) error {
	every := "every event"
	if len(points) > 1 && points[1].Seq-points[0].Seq > 1 {
		every = fmt.Sprintf("every %d events, capped at --points %d", points[1].Seq-points[0].Seq, cap)
	}
	fmt.Fprintf(w, "job %s: exposure sweep, %s (%s)\n", jobLabel(job), human.Count(len(points), "point"), every)
	if len(points) == 0 {
		return nil
	}
	worst, _ := replay.MostExposed(points) // the timeline's card names the same point
	p := points[worst]
	fmt.Fprintf(w, "most exposed: after seq %d (epoch %d, %s): rerun %d, redo %s of work and %s of results\n\n",
		p.Seq, p.Epoch, p.Kind, p.Rerun, seconds(p.RerunSeconds), report.HumanBytes(p.RerunBytes))
	t := newTable(w, "seq", "time", "epoch", "kind", "keep", "rerun", "run", "discarded", "rerun bytes", "rerun time")
	for _, p := range points {
		err := t.Append(strconv.FormatInt(p.Seq, 10), p.Time.UTC().Format("15:04:05.000"), strconv.Itoa(int(p.Epoch)),
			string(p.Kind), strconv.Itoa(p.Keep), strconv.Itoa(p.Rerun), strconv.Itoa(p.Run), strconv.Itoa(p.Discarded),
			report.HumanBytes(p.RerunBytes), seconds(p.RerunSeconds))
		if err != nil {
			return fmt.Errorf("replay: sweep table: %w", err)
		}
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("replay: sweep table: %w", err)
	}
	return nil
}
