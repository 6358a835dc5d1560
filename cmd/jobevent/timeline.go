package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/internal/report"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// defaultSweepPoints is the default --points of replay --sweep.
const defaultSweepPoints = 50

// defaultTimelinePoints is the default --points of timeline: the
// resolution of its exposure curve.
const defaultTimelinePoints = 2000

func newTimelineCommand() *cli.Command {
	return &cli.Command{
		Name:  "timeline",
		Usage: "draw every attempt of a job as a Gantt chart, with failovers and the exposure curve",
		UsageText: "jobevent timeline LOG (--html FILE | --svg FILE) [--points N] [--format table|json]\n\n" +
			"EXAMPLES:\n" +
			"   jobevent timeline testdata/logs/failover.jsonl --html failover.html\n" +
			"   jobevent timeline 'file:///var/lib/jobevent?prefix=jobs/wordcount/' --svg wordcount.svg --points 500",
		Description: "Folds LOG once and writes a self-contained chart (no scripts, no network): one lane per\n" +
			"subtask, grouped by vertex, each attempt a bar colored by outcome (finished, failed, reset:\n" +
			"finished and thrown away, interrupted: running when its master died or was reset, running at\n" +
			"the end); master epochs as vertical lines, the time without a master shaded, the subtasks a\n" +
			"failover reran highlighted, the critical path outlined; under it the exposure curve, what a\n" +
			"failover at each moment would rerun (the sweep of \"replay --dry-run --sweep\", the same\n" +
			"replay.Plan). Hover a bar for its details. --html writes a page, --svg the bare chart; both\n" +
			"may be given. Then prints what it drew (--format json: as JSON).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "html", Usage: "write the chart as an HTML page to `FILE` (- for stdout)"},
			&cli.StringFlag{Name: "svg", Usage: "write the chart as an SVG image to `FILE` (- for stdout)"},
			&cli.IntFlag{Name: "points", Usage: "at most `N` points on the exposure curve (0: every event)", Value: defaultTimelinePoints},
			formatFlag("table", "json"),
		},
		Action: runTimeline,
	}
}

// timelineSummary is what timeline prints after writing its files.
type timelineSummary struct {
	Job       string   `json:"job"`
	Files     []string `json:"files"`
	Lanes     int      `json:"lanes"`
	Attempts  int      `json:"attempts"`
	Epochs    int      `json:"epochs"`
	Failovers int      `json:"failovers"`
	Reran     int      `json:"reran"`
	Points    int      `json:"points"`
}

func runTimeline(c *cli.Context) error {
	if err := wantArgs(c, 1, 1); err != nil {
		return err
	}
	htmlFile, svgFile := c.String("html"), c.String("svg")
	if htmlFile == "" && svgFile == "" {
		return usagef(c, "want --html FILE or --svg FILE")
	}
	if htmlFile == "-" && svgFile == "-" {
		return usagef(c, "--html and --svg cannot both write to stdout")
	}
	points := c.Int("points")
	if points < 0 {
		return usagef(c, "bad --points %d: want 0 or more", points)
	}
	src, err := openSource(c.Context, c.Args().First(), sourceOptions{})
	if err != nil {
		return err
	}
	defer src.Close()
	tl, err := report.BuildTimeline(src, report.TimelineOptions{Points: points})
	printNotices(c.App.ErrWriter, src.Notices())
	if err != nil {
		return err
	}
	sum := timelineSummary{Job: tl.Job, Files: []string{}, Lanes: tl.Lanes(), Attempts: len(tl.Attempts),
		Epochs: len(tl.Epochs), Failovers: len(tl.Epochs) - 1, Reran: tl.Reran(), Points: len(tl.Exposure)}
	for _, out := range []struct {
		file  string
		write func(io.Writer, *report.Timeline) error
	}{{htmlFile, report.WriteTimelineHTML}, {svgFile, report.WriteTimelineSVG}} {
		if out.file == "" {
			continue
		}
		if err := writeOutput(c, out.file, tl, out.write); err != nil {
			return err
		}
		sum.Files = append(sum.Files, out.file)
	}
	if htmlFile == "-" || svgFile == "-" {
		return nil // stdout holds the chart
	}
	if c.String("format") == "json" {
		return writeJSON(c.App.Writer, sum)
	}
	fmt.Fprintf(c.App.Writer, "wrote %s: job %s, %d attempts in %d lanes, %d epoch%s, %d subtask%s rerun by failovers, %d exposure points\n",
		joinFiles(sum.Files), sum.Job, sum.Attempts, sum.Lanes, sum.Epochs, plural(sum.Epochs), sum.Reran, plural(sum.Reran), sum.Points)
	return nil
}

// writeOutput writes the chart to file, or to stdout for "-".
func writeOutput(c *cli.Context, file string, tl *report.Timeline, write func(io.Writer, *report.Timeline) error) error {
	if file == "-" {
		return write(c.App.Writer, tl)
	}
	f, err := os.Create(file)
	if err != nil {
		return fmt.Errorf("timeline: %w", err)
	}
	if err := write(f, tl); err != nil {
		f.Close()
		return fmt.Errorf("timeline: write %s: %w", file, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("timeline: %w", err)
	}
	return nil
}

func joinFiles(files []string) string {
	if len(files) == 2 {
		return files[0] + " and " + files[1]
	}
	return files[0]
}

// sweepOutput is the JSON of replay --dry-run --sweep.
type sweepOutput struct {
	Job    string              `json:"job"`
	Points []replay.SweepPoint `json:"points"`
}

// jobOf is a source that remembers the job id of the events it returns.
type jobOf struct {
	replay.Source
	job string
}

func (s *jobOf) Next() (format.Event, error) {
	e, err := s.Source.Next()
	if err == nil && s.job == "" {
		s.job = e.Job
	}
	return e, err
}

// runSweep prints the exposure sweep of replay --dry-run --sweep.
func runSweep(c *cli.Context, src eventSource, opts replay.SweepOptions) error {
	opts.Points = c.Int("points")
	if opts.Points < 0 {
		return usagef(c, "bad --points %d: want 0 or more", opts.Points)
	}
	js := &jobOf{Source: src}
	points, err := replay.Sweep(js, opts)
	printNotices(c.App.ErrWriter, src.Notices())
	if errors.Is(err, replay.ErrUnknownVertex) {
		return usagef(c, "%v", err)
	}
	if err != nil {
		return err
	}
	if points == nil {
		points = []replay.SweepPoint{}
	}
	if c.String("format") == "json" {
		return writeJSON(c.App.Writer, sweepOutput{Job: js.job, Points: points})
	}
	return printSweep(c.App.Writer, js.job, points, opts.Points)
}

// printSweep writes the table form of a sweep.
func printSweep(w io.Writer, job string, points []replay.SweepPoint, cap int) error {
	every := "every event"
	if len(points) > 1 && points[1].Seq-points[0].Seq > 1 {
		every = fmt.Sprintf("every %d events, capped at --points %d", points[1].Seq-points[0].Seq, cap)
	}
	fmt.Fprintf(w, "job %s: exposure sweep, %d point%s (%s)\n", job, len(points), plural(len(points)), every)
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
