package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/internal/human"
	"github.com/jobevent/jobevent/internal/report"
	"github.com/jobevent/jobevent/pkg/logsource"
	"github.com/jobevent/jobevent/pkg/replay"
)

func newStatsCommand() *cli.Command {
	return &cli.Command{
		Name:  "stats",
		Usage: "per-vertex statistics, the critical path and the time lost to failovers",
		UsageText: "jobevent stats LOG [--format table|json]\n\n" +
			"EXAMPLES:\n" +
			"   jobevent stats 'file:///var/lib/jobevent?prefix=jobs/wordcount/'\n" +
			"   jobevent stats testdata/logs/failover.jsonl --format json | jq .lost_to_failovers",
		Description: "Folds LOG once and prints, per vertex: parallelism, attempts, reruns (attempts beyond\n" +
			"the first of each subtask), failed attempts, the p50 and max duration of the attempts that\n" +
			"finished (subtask_started to subtask_finished), and the records and bytes in and out of the\n" +
			"finished attempts that stand at the end of the log. Then the critical path: the chain of\n" +
			"attempts that bounded the wall time, walked back from the finish that came last through\n" +
			"what each attempt waited for (its latest-finishing input, or its own previous attempt).\n" +
			"Then each master failover: its downtime (from the last event of the old master to the new\n" +
			"master_started) and the work it redid (task time of the attempts running when the master\n" +
			"died and of the finished attempts its recovery reset); lost = downtime + redone.",
		Flags:  withFlinkFlags(formatFlag("table", "json")),
		Action: runStats,
	}
}

func runStats(c *cli.Context) error {
	if err := wantArgs(c, 1, 1); err != nil {
		return err
	}
	fo, err := flinkOptionsOf(c)
	if err != nil {
		return err
	}
	src, err := openLog(c, c.Args().First(), logsource.Options{Flink: fo})
	if err != nil {
		return err
	}
	if logsource.EventTimes(src) == logsource.TimesNone {
		warnf(c.App.ErrWriter, "%s is a Flink log: Flink records no times, so every duration, wall time, wait and downtime is unknown and shows as 0s; counts, records and bytes are Flink's", c.Args().First())
	}
	defer src.Close()
	st, err := replay.ComputeStats(src)
	printNotices(c.App.ErrWriter, src.Notices())
	if err != nil {
		return err
	}
	if c.String("format") == "json" {
		return writeJSON(c.App.Writer, st)
	}
	return printStats(c.App.Writer, st)
}

// printStats writes the table form of st.
func printStats(w io.Writer, st *replay.Stats) error {
	fmt.Fprintf(w, "job %s: %s, %s, wall %s, %s\n\n",
		jobLabel(st.Job), st.Status, human.Count(st.Events, "event"), seconds(st.WallSeconds), human.Count(len(st.Failovers), "failover"))
	header := []string{"vertex", "parallelism", "attempts", "reruns", "failed", "median", "max",
		"records in", "records out", "bytes in", "bytes out"}
	if len(st.Names) > 0 {
		header = slices.Insert(header, 1, "id") // named: the name first, the id beside
	}
	t := newTable(w, header...)
	for _, v := range st.Vertices {
		par := "-"
		if v.Initialized {
			par = strconv.Itoa(int(v.Parallelism))
		}
		row := []string{v.Vertex, par, strconv.Itoa(v.Attempts), strconv.Itoa(v.Reruns), strconv.Itoa(v.Failed),
			seconds(v.P50Seconds), seconds(v.MaxSeconds), strconv.FormatInt(v.RecordsIn, 10),
			strconv.FormatInt(v.RecordsOut, 10), report.HumanBytes(v.BytesIn), report.HumanBytes(v.BytesOut)}
		if len(st.Names) > 0 {
			row = slices.Insert(row, 0, nameOr(st.Names, v.Vertex))
		}
		if err := t.Append(row); err != nil {
			return fmt.Errorf("stats: table: %w", err)
		}
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("stats: table: %w", err)
	}
	if err := printCriticalPath(w, st); err != nil {
		return err
	}
	return printFailovers(w, st)
}

func printCriticalPath(w io.Writer, st *replay.Stats) error {
	if len(st.CriticalPath) == 0 {
		fmt.Fprintln(w, "\ncritical path: nothing has finished")
		return nil
	}
	fmt.Fprintf(w, "\ncritical path (%s):\n", human.Count(len(st.CriticalPath), "step"))
	t := newTable(w, "subtask", "attempt", "worker", "waited for", "wait", "start", "duration")
	for _, s := range st.CriticalPath {
		err := t.Append(s.SubtaskRef.String(), strconv.Itoa(int(s.Attempt)), s.Worker, s.Wait,
			seconds(s.WaitSeconds), "+"+seconds(s.Start.Sub(st.Start).Seconds()), seconds(s.Seconds))
		if err != nil {
			return fmt.Errorf("stats: table: %w", err)
		}
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("stats: table: %w", err)
	}
	return nil
}

func printFailovers(w io.Writer, st *replay.Stats) error {
	if len(st.Failovers) == 0 {
		fmt.Fprintln(w, "\nno failovers")
		return nil
	}
	fmt.Fprintln(w)
	t := newTable(w, "epoch", "after seq", "downtime", "redone", "reran")
	for _, f := range st.Failovers {
		err := t.Append(strconv.Itoa(int(f.Epoch)), strconv.FormatInt(f.LastSeq, 10), seconds(f.DowntimeSeconds),
			seconds(f.RedoneSeconds), strconv.Itoa(f.Reran))
		if err != nil {
			return fmt.Errorf("stats: table: %w", err)
		}
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("stats: table: %w", err)
	}
	fmt.Fprintf(w, "lost to failovers: %s downtime + %s redone work = %s\n",
		seconds(st.Lost.DowntimeSeconds), seconds(st.Lost.RedoneSeconds), seconds(st.Lost.TotalSeconds))
	return nil
}

// seconds renders a number of seconds for people, as every text output
// does (human.Seconds): "14m12s", "1.316s", "404ms", "0s".
func seconds(s float64) string { return human.Seconds(s) }
