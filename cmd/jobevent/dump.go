package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/internal/answer"
	"github.com/jobevent/jobevent/internal/progress"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/logsource"
)

func newDumpCommand() *cli.Command {
	return &cli.Command{
		Name:  "dump",
		Usage: "print the events of a log",
		UsageText: "jobevent dump LOG [--kind K]... [--vertex V] [--subtask N] [--epoch E] [--since SEQ] [--until SEQ] [--follow] [--format table|json|csv]\n\n" +
			"EXAMPLES:\n" +
			"   jobevent dump 'file:///var/lib/jobevent?prefix=jobs/wordcount/'\n" +
			"   jobevent dump ./jobevents/wordcount --kind subtask_finished --vertex count --format csv\n" +
			"   jobevent dump 's3://ops-logs?prefix=jobs/wordcount/' --format json > wordcount.jsonl\n" +
			"   jobevent dump ./jobevents/wordcount --follow --since 100",
		Description: "Streams the events of LOG in log order (memory does not grow with the log).\n" +
			"--format json writes canonical JSONL, which \"jobevent import\" reads back byte for byte.\n" +
			"--vertex matches events of that vertex, resets naming one of its subtasks and snapshots\n" +
			"of its coordinator; --subtask matches subtask events and resets of that subtask number.\n" +
			"--since and --until are inclusive seqs. --follow keeps printing new events until interrupted;\n" +
			"a log that does not exist yet is waited for, with a notice on stderr.\n" +
			"Torn tails and fenced rows are reported as warnings on stderr. On a terminal a progress\n" +
			"bar counts the events read (not with --follow or --quiet).",
		Flags: withFlinkFlags(
			&cli.StringSliceFlag{Name: "kind", Usage: "only events of kind `K` (repeatable; comma-separated)"},
			&cli.StringFlag{Name: "vertex", Usage: "only events concerning vertex `V`"},
			&cli.IntFlag{Name: "subtask", Usage: "only events concerning subtask `N`", DefaultText: "any"},
			&cli.IntFlag{Name: "epoch", Usage: "only events of epoch `E`", DefaultText: "any"},
			&cli.Int64Flag{Name: "since", Usage: "only events with seq >= `SEQ`", DefaultText: "the first"},
			&cli.Int64Flag{Name: "until", Usage: "only events with seq <= `SEQ`", DefaultText: "the last"},
			&cli.BoolFlag{Name: "follow", Usage: "keep printing new events until interrupted"},
			&cli.DurationFlag{Name: "poll-interval", Value: time.Second, Usage: "how often --follow looks for new segments (`DURATION`)"},
			formatFlag("table", "json", "csv"),
			quietFlag(),
		),
		Action: runDump,
	}
}

// eventFilter is the selection of dump's flags (answer.EventFilter).
type eventFilter = answer.EventFilter

func dumpFilter(c *cli.Context) (eventFilter, error) {
	q := answer.EventQuery{Kinds: c.StringSlice("kind"), Vertex: c.String("vertex"),
		Since: c.Int64("since"), Until: c.Int64("until")}
	if c.IsSet("subtask") {
		n := c.Int("subtask")
		q.Subtask = &n
	}
	if c.IsSet("epoch") {
		n := c.Int("epoch")
		q.Epoch = &n
	}
	f, err := answer.ParseEventFilter(q)
	if err != nil {
		return f, usagef(c, "%v", err)
	}
	return f, nil
}

// eventPrinter writes events in one output format.
type eventPrinter = answer.EventWriter

func newEventPrinter(name string, w io.Writer, follow bool) eventPrinter {
	switch name {
	case "json":
		return answer.NewEventJSONWriter(w, false)
	case "csv":
		return newCSVPrinter(w)
	default:
		return newTablePrinter(w, follow)
	}
}

func runDump(c *cli.Context) error {
	if err := wantArgs(c, 1, 1); err != nil {
		return err
	}
	filter, err := dumpFilter(c)
	if err != nil {
		return err
	}
	follow := c.Bool("follow")
	poll := c.Duration("poll-interval")
	if poll <= 0 {
		return usagef(c, "bad --poll-interval %v: want a positive duration", poll)
	}
	o := logsource.Options{Since: filter.Since, Until: filter.Until, Follow: follow, Poll: poll}
	if o.Flink, err = flinkOptionsOf(c); err != nil {
		return err
	}
	var src logsource.Source
	if follow {
		src, err = openFollowed(c, c.Args().First(), o)
	} else {
		src, err = openLog(c, c.Args().First(), o)
	}
	if follow && c.Context.Err() != nil {
		return nil // interrupted while waiting for the log
	}
	if err != nil {
		return err
	}
	defer src.Close()
	bar := newDumpProgress(c, src, &filter, follow)
	defer bar.Done()
	p := newEventPrinter(c.String("format"), bar.Writer(c.App.Writer), follow)
	if logsource.EventTimes(src) == logsource.TimesNone {
		p = newTimelessEventPrinter(c.String("format"), bar.Writer(c.App.Writer))
	}
	var notices func()
	if follow {
		notices = func() { printNotices(c.App.ErrWriter, src.Notices()) }
	}
	err = answer.Dump(withProgress(src, bar), p, &filter, follow, notices)
	if ferr := p.Flush(); err == nil {
		err = ferr
	}
	bar.Done()
	printNotices(c.App.ErrWriter, src.Notices())
	if follow && (errors.Is(err, context.Canceled) || c.Context.Err() != nil) {
		return nil // interrupted: the normal end of --follow
	}
	return err
}

// newDumpProgress returns the progress line of a dump: the events read of
// those the segment names promise between --since and --until. A dump
// that follows the log has no end to show progress towards: it gets none.
func newDumpProgress(c *cli.Context, src logsource.Source, f *eventFilter, follow bool) *progress.Reporter {
	if follow {
		return progress.Disabled()
	}
	bar := newProgress(c)
	if bar.Enabled() {
		bar.Start("dump", eventTotal(c.Context, src, f.Since, f.Until), progress.Events)
	}
	return bar
}

// eventColumns are the columns of dump's table and CSV output.
var eventColumns = []string{"seq", "time", "epoch", "kind", "job", "vertex", "subtask", "attempt", "worker", "detail"}

// eventRow renders e as the cells of eventColumns. Columns that do not
// belong to the kind are empty.
func eventRow(e *format.Event) []string {
	row := []string{
		strconv.FormatInt(e.Seq, 10),
		e.Time.UTC().Format("2006-01-02T15:04:05.000000000Z"),
		strconv.FormatInt(int64(e.Epoch), 10),
		string(e.Kind),
		e.Job,
		"", "", "", "",
		eventDetail(e),
	}
	switch e.Kind {
	case format.KindVertexInitialized:
		row[5] = e.Vertex
	case format.KindSubtaskStarted, format.KindSubtaskFinished, format.KindSubtaskFailed:
		row[5] = e.Vertex
		row[6] = strconv.FormatInt(int64(e.Subtask), 10)
		row[7] = strconv.FormatInt(int64(e.Attempt), 10)
		row[8] = e.Worker
	}
	return row
}

// openFollowed opens the log dump --follow reads. A log that does not
// exist yet (a follower started before its master) is waited for, polling
// every --poll-interval, with one notice on stderr.
func openFollowed(c *cli.Context, arg string, o logsource.Options) (logsource.Source, error) {
	for said := false; ; said = true {
		src, err := openLog(c, arg, o)
		if err == nil || !logsource.IsNoLog(err) {
			return src, err
		}
		if !said {
			fmt.Fprintf(c.App.ErrWriter, "jobevent: %v yet: waiting for it to appear (--follow; interrupt to stop)\n", err)
		}
		select {
		case <-c.Context.Done():
			return nil, c.Context.Err()
		case <-time.After(o.Poll):
		}
	}
}
