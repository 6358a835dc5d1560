package main

import (
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/internal/human"
	"github.com/jobevent/jobevent/internal/report"
	"github.com/jobevent/jobevent/pkg/logsource"
)

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
		Flags: withFlinkFlags(
			&cli.StringFlag{Name: "html", Usage: "write the chart as an HTML page to `FILE` (- for stdout)"},
			&cli.StringFlag{Name: "svg", Usage: "write the chart as an SVG image to `FILE` (- for stdout)"},
			&cli.IntFlag{Name: "points", Usage: "at most `N` points on the exposure curve (0: every event)", Value: defaultTimelinePoints},
			formatFlag("table", "json"),
		),
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
	fo, err := flinkOptionsOf(c)
	if err != nil {
		return err
	}
	src, err := openLog(c, c.Args().First(), logsource.Options{Flink: fo})
	if err != nil {
		return err
	}
	defer src.Close()
	bySeq := logsource.EventTimes(src) == logsource.TimesNone
	if bySeq {
		warnf(c.App.ErrWriter, "%s has no times (Flink records none): the chart is laid out by seq, one event a step, and shows no durations", c.Args().First())
	}
	tl, err := report.BuildTimeline(src, report.TimelineOptions{Points: points, BySeq: bySeq})
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
	fmt.Fprintf(c.App.Writer, "wrote %s: job %s, %s in %s, %s, %s rerun by failovers, %s\n",
		joinFiles(sum.Files), jobLabel(sum.Job), human.Count(sum.Attempts, "attempt"), human.Count(sum.Lanes, "lane"),
		human.Count(sum.Epochs, "epoch"), human.Count(sum.Reran, "subtask"), human.Count(sum.Points, "exposure point"))
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
