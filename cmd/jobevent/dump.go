package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

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

// eventFilter is the selection of dump's flags.
type eventFilter struct {
	kinds        map[format.Kind]bool // nil: every kind
	vertex       string
	subtask      int32
	hasSubtask   bool
	epoch        int32
	since, until int64
}

func dumpFilter(c *cli.Context) (eventFilter, error) {
	f := eventFilter{vertex: c.String("vertex"), since: c.Int64("since"), until: c.Int64("until")}
	for _, k := range c.StringSlice("kind") {
		if !format.Kind(k).Valid() {
			return f, usagef(c, "unknown --kind %q: want one of %s", k, kindList())
		}
		if f.kinds == nil {
			f.kinds = make(map[format.Kind]bool)
		}
		f.kinds[format.Kind(k)] = true
	}
	if c.IsSet("subtask") {
		n := c.Int("subtask")
		if n < 0 || n > 1<<31-1 {
			return f, usagef(c, "bad --subtask %d: want a subtask number >= 0", n)
		}
		f.subtask, f.hasSubtask = int32(n), true
	}
	if c.IsSet("epoch") {
		n := c.Int("epoch")
		if n < 1 || n > 1<<31-1 {
			return f, usagef(c, "bad --epoch %d: want an epoch >= 1", n)
		}
		f.epoch = int32(n)
	}
	if f.since < 0 || f.until < 0 || (f.until > 0 && f.since > f.until) {
		return f, usagef(c, "bad --since %d / --until %d: want 0 <= since <= until", f.since, f.until)
	}
	return f, nil
}

func kindList() string {
	s := make([]string, len(format.Kinds))
	for i, k := range format.Kinds {
		s[i] = string(k)
	}
	return orList(s)
}

// match reports whether e passes the filter.
func (f *eventFilter) match(e *format.Event) bool {
	if f.kinds != nil && !f.kinds[e.Kind] {
		return false
	}
	if f.epoch != 0 && e.Epoch != f.epoch {
		return false
	}
	if e.Seq < f.since || (f.until > 0 && e.Seq > f.until) {
		return false
	}
	if f.vertex == "" && !f.hasSubtask {
		return true
	}
	switch e.Kind {
	case format.KindVertexInitialized:
		return !f.hasSubtask && e.Vertex == f.vertex
	case format.KindSubtaskStarted, format.KindSubtaskFinished, format.KindSubtaskFailed:
		return (f.vertex == "" || e.Vertex == f.vertex) && (!f.hasSubtask || e.Subtask == f.subtask)
	case format.KindSubtasksReset:
		for _, r := range e.Subtasks {
			if (f.vertex == "" || r.Vertex == f.vertex) && (!f.hasSubtask || r.Subtask == f.subtask) {
				return true
			}
		}
	case format.KindSnapshot:
		_, ok := e.Coordinators[f.vertex]
		return ok && !f.hasSubtask
	}
	return false
}

// eventPrinter writes events in one output format.
type eventPrinter interface {
	Write(e *format.Event) error
	Flush() error
}

func newEventPrinter(name string, w io.Writer, follow bool) eventPrinter {
	switch name {
	case "json":
		return format.NewJSONWriter(w)
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
	o := logsource.Options{Since: filter.since, Until: filter.until, Follow: follow, Poll: poll}
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
	err = dumpEvents(withProgress(src, bar), p, &filter, follow, c.App.ErrWriter)
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
		bar.Start("dump", eventTotal(c.Context, src, f.since, f.until), progress.Events)
	}
	return bar
}

// dumpEvents copies the matching events of src to p. When following, the
// output is flushed after every event and warnings are printed as they
// arrive, and the dump ends after --until.
func dumpEvents(src logsource.Source, p eventPrinter, f *eventFilter, follow bool, stderr io.Writer) error {
	// One event, reused: p.Write takes its address through an interface,
	// so an event declared inside the loop would move to the heap on
	// every iteration.
	var e format.Event
	for {
		var err error
		e, err = src.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if follow && f.until > 0 && e.Seq > f.until {
			return nil
		}
		if f.match(&e) {
			if err := p.Write(&e); err != nil {
				return err
			}
		}
		if follow {
			if err := p.Flush(); err != nil {
				return err
			}
			printNotices(stderr, src.Notices())
		}
	}
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
