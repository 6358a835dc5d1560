package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/internal/answer"
	"github.com/jobevent/jobevent/internal/human"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/logsource"
	"github.com/jobevent/jobevent/pkg/replay"
)

func newReplayCommand() *cli.Command {
	return &cli.Command{
		Name:  "replay",
		Usage: "say which subtasks a master failover would keep, rerun or run, and why",
		UsageText: "jobevent replay LOG --dry-run [--at SEQ] [--lost-worker W]... [--lost-partition V/I]... [--no-workers] [--available FILE] [--verbose] [--sweep [--points N]] [--format table|json]\n" +
			"   jobevent replay LOG [--work-dir DIR] [--workers N] [--slots N] [--format table|json]\n\n" +
			"EXAMPLES:\n" +
			"   jobevent replay testdata/logs/failover.jsonl --dry-run --sweep --points 20\n" +
			"   jobevent replay 'file:///var/lib/jobevent?prefix=jobs/wordcount/' --dry-run\n" +
			"   jobevent replay testdata/logs/running.jsonl --dry-run --lost-worker w2\n" +
			"   jobevent replay ./jobevents/wordcount --dry-run --at 20 --format json | jq .summary",
		Description: "Replays LOG and prints the recovery plan (docs/recovery.md) as if the master died after\n" +
			"event --at (default: the last one) — computed by replay.Plan, the function a recovering\n" +
			"master calls. By default every recorded partition is available; --available FILE (a JSON\n" +
			"list of {\"vertex\",\"subtask\",\"attempt\",\"consumer\",\"worker\"}) replaces that base,\n" +
			"--no-workers empties it, and --lost-worker / --lost-partition subtract from it.\n" +
			"The table shows keep/rerun/run counts per vertex and the reruns with their reasons\n" +
			"(--verbose: every subtask). The plan reads the job's settings from the job.yaml stored in\n" +
			"the log: with execution.batch.job-recovery.enabled false it is a full restart\n" +
			"(recovery_disabled); a log that cannot be replayed is one too (log_unreadable); a job the\n" +
			"log ends runs nothing. A .jsonl log holds no job.yaml: its plan assumes recovery enabled.\n" +
			"--sweep folds the log once and calls the same plan after each sampled event (up to --at),\n" +
			"with the same availability flags: the exposure curve, what a failover would cost then; the\n" +
			"most exposed point is the one that would redo the most task-seconds (then bytes, then\n" +
			"subtasks), as in \"jobevent timeline\".\n\n" +
			"Without --dry-run, replay recovers the job for real from the log and its job.yaml (the same\n" +
			"as \"jobevent run --resume\", with the same --work-dir, --workers and --slots: give the\n" +
			"--work-dir the job ran with, or its partitions are not found). The what-if flags (--at,\n" +
			"--lost-worker, --lost-partition, --no-workers, --available, --verbose, --sweep, --points)\n" +
			"then are a usage error: add --dry-run. A .jsonl log is read-only: import it first\n" +
			"(jobevent import FILE.jsonl LOG).\n\n" +
			"LOG may be an Apache Flink job-events directory (docs/flink.md): the dry run then predicts\n" +
			"what Flink's recovering JobMaster keeps and redeploys (--lost-worker takes TaskManager\n" +
			"resource ids; the default availability is what the TaskManagers still hold), with\n" +
			"--flink-plan for names and --coordinator for coordinator kinds the log cannot tell.\n" +
			"Without --dry-run a Flink log is refused: Flink recovers its own job. A log imported from\n" +
			"a Flink log (jobevent import FLINK_DIR LOG) is planned the same way.",
		Flags: withFlinkFlags(
			&cli.BoolFlag{Name: "dry-run", Usage: "print the plan; change nothing"},
			&cli.Int64Flag{Name: "at", Usage: "plan as if the master died after event `SEQ`", DefaultText: "the last"},
			&cli.StringSliceFlag{Name: "lost-worker", Usage: "worker `W` lost: none of its partitions is available (repeatable)"},
			&cli.StringSliceFlag{Name: "lost-partition", Usage: "the partitions of subtask `V/I` are lost (repeatable)"},
			&cli.BoolFlag{Name: "no-workers", Usage: "no worker comes back: no partition is available"},
			&cli.StringFlag{Name: "available", Usage: "JSON `FILE` listing the available partitions"},
			&cli.BoolFlag{Name: "verbose", Usage: "table: list every subtask, not only the reruns"},
			&cli.BoolFlag{Name: "strict", Usage: "exit 1 when the plan rests on an assumption (a Flink log's coordinator kinds or datasets that neither the log nor Flink's storage tells)"},
			&cli.BoolFlag{Name: "sweep", Usage: "print the exposure sweep: the plan's cost as if the master died after each sampled event"},
			&cli.IntFlag{Name: "points", Usage: "--sweep: at most `N` points, evenly spaced (0: every event)", Value: defaultSweepPoints},
			&cli.StringFlag{Name: "work-dir", Usage: "without --dry-run: `DIR` for the workers' partitions, as given to run", DefaultText: "./jobevents-work"},
			&cli.IntFlag{Name: "workers", Usage: "without --dry-run: number of in-process workers `N`", Value: 2},
			&cli.IntFlag{Name: "slots", Usage: "without --dry-run: slots `N` per worker", Value: 2},
			formatFlag("table", "json"),
		),
		Action: runReplay,
	}
}

// whatIfFlags are the flags of the dry run alone: without --dry-run they
// are a usage error, never ignored.
var whatIfFlags = []string{"at", "lost-worker", "lost-partition", "no-workers", "available", "verbose", "sweep", "points", "strict"}

// realFlags are the flags of a real recovery alone.
var realFlags = []string{"work-dir", "workers", "slots"}

func runReplay(c *cli.Context) error {
	if err := wantArgs(c, 1, 1); err != nil {
		return err
	}
	fo, err := flinkOptionsOf(c)
	if err != nil {
		return err
	}
	if !c.Bool("dry-run") {
		return runRecover(c, fo)
	}
	for _, name := range realFlags {
		if c.IsSet(name) {
			return usagef(c, "--%s applies to a real recovery (replay without --dry-run); the dry run uses no workers", name)
		}
	}
	if c.IsSet("points") && !c.Bool("sweep") {
		return usagef(c, "--points applies to --sweep only: add --sweep, or leave --points out")
	}
	opts, err := availabilityOptions(c)
	if err != nil {
		return err
	}
	at := c.Int64("at")
	if c.IsSet("at") && at < 1 {
		return usagef(c, "bad --at %d: want the seq of an event (1 or more); leave --at out to plan after the last event", at)
	}
	src, err := openLog(c, c.Args().First(), logsource.Options{Until: at, Flink: fo})
	if err != nil {
		return err
	}
	defer src.Close()
	if lw, ok := src.(logsource.WithLostWorkers); ok {
		lost, why := lw.LostWorkers()
		for _, w := range lost {
			if !slices.Contains(opts.LostWorkers, w) {
				opts.LostWorkers = append(opts.LostWorkers, w)
				fmt.Fprintf(c.App.ErrWriter, "jobevent: note: TaskManager %s %s\n", w, why)
			}
		}
	}
	if c.Bool("sweep") {
		return runSweep(c, src, replay.SweepOptions{Until: at, Available: opts})
	}
	a, err := answer.Plan(c.Context, src, answer.PlanQuery{At: at, Available: opts})
	printNotices(c.App.ErrWriter, src.Notices())
	if a == nil {
		return err
	}
	st, note := a.State, a.Note
	if a.Unreadable != nil {
		warnf(c.App.ErrWriter, "%v: a resumed master cannot replay the log and restarts the job (log_unreadable); the plan covers what could be read", a.Unreadable)
	}
	if note != "" && st.Profile() != replay.ProfileFlink {
		// A log imported from Flink's holds no job.yaml, and needs none:
		// Flink records job events only with recovery enabled.
		fmt.Fprintf(c.App.ErrWriter, "jobevent: note: %s\n", note)
	}
	if n := st.Skipped(); n > 0 {
		warnf(c.App.ErrWriter, "%s of the log could not be applied and were skipped: %v", human.Count(n, "event"), st.SkipErrors())
	}
	if at > st.LastSeq() && a.Unreadable == nil {
		warnf(c.App.ErrWriter, "--at %d is past the end of the log (seq %d): planning after the last event", at, st.LastSeq())
	}
	if err != nil {
		return usagef(c, "%v", answer.AvailabilityError(st, opts, err))
	}
	warnUnmatched(c, opts.Unmatched(st))
	if c.String("format") == "json" {
		err = a.WriteJSON(c.App.Writer)
	} else {
		err = printPlanTable(c, a.Plan(), st.Names(), c.Bool("verbose"), opts.LostPartitions)
	}
	if err == nil && a.Unreadable != nil {
		// The log is corrupt: exit 2 as every reader does, after the plan
		// has said what a resumed master does with it.
		return &exitError{code: exitFailure}
	}
	if a, ok := src.(logsource.WithAssumptions); err == nil && ok && c.Bool("strict") && len(a.Assumptions()) > 0 {
		return findings("replay: the plan rests on %s (--strict): %s", human.Count(len(a.Assumptions()), "assumption"), strings.Join(a.Assumptions(), "; "))
	}
	return err
}

// runRecover is replay without --dry-run: the job recovered for real.
func runRecover(c *cli.Context, fo *logsource.FlinkOptions) error {
	for _, name := range whatIfFlags {
		if c.IsSet(name) {
			return usagef(c, "--%s needs --dry-run: it is a what-if flag of the dry run; add --dry-run to print the plan (without it, replay recovers the job for real)", name)
		}
	}
	arg := c.Args().First()
	src, err := openLog(c, arg, logsource.Options{Flink: fo})
	if err != nil {
		return err
	}
	_, err = logsource.Recoverable(c.Context, src)
	src.Close()
	var ro *logsource.ReadOnlyError
	if errors.As(err, &ro) {
		return usagef(c, "%v", err)
	}
	if err != nil {
		return err
	}
	if c.Int("workers") < 1 || c.Int("slots") < 1 {
		return usagef(c, "--workers and --slots must be at least 1")
	}
	return appOf(c).recoverJob(c, arg)
}

// warnUnmatched warns about every what-if value that names nothing in the
// log: it changes nothing, and is never silently ignored.
func warnUnmatched(c *cli.Context, un []replay.Unmatched) {
	flags := map[string]string{"LostWorkers": "--lost-worker", "LostPartitions": "--lost-partition", "Available": "--available entry"}
	for _, u := range un {
		warnf(c.App.ErrWriter, "%s %s names nothing in the log: %s", flags[u.Option], u.Value, u.Why)
	}
}

// availabilityOptions maps replay's flags onto replay.AvailabilityOptions.
func availabilityOptions(c *cli.Context) (replay.AvailabilityOptions, error) {
	o := replay.AvailabilityOptions{LostWorkers: c.StringSlice("lost-worker"), NoWorkers: c.Bool("no-workers")}
	for _, s := range c.StringSlice("lost-partition") {
		ref, err := answer.ParseSubtaskRef(s)
		if err != nil {
			return o, usagef(c, "bad --lost-partition %q: %v", s, err)
		}
		o.LostPartitions = append(o.LostPartitions, ref)
	}
	if file := c.String("available"); file != "" {
		if o.NoWorkers {
			return o, usagef(c, "--no-workers and --available exclude each other")
		}
		locs, err := readAvailable(file)
		if err != nil {
			return o, err
		}
		o.Available = locs
	}
	return o, nil
}

// readAvailable reads --available: a JSON list of partitions. An empty
// list is valid (nothing available) and stays non-nil.
func readAvailable(file string) ([]replay.PartitionLoc, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--available: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	locs := []replay.PartitionLoc{}
	if err := dec.Decode(&locs); err != nil {
		return nil, fmt.Errorf("--available %s: want a JSON list of {\"vertex\",\"subtask\",\"attempt\",\"consumer\",\"worker\"}: %w", file, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("--available %s: trailing data after the JSON list", file)
	}
	return locs, nil
}

func printPlanTable(c *cli.Context, p *replay.RecoveryPlan, names map[string]string, verbose bool, lost []format.SubtaskRef) error {
	w := c.App.Writer
	fmt.Fprintf(w, "job %s, replayed to seq %d (epoch %d): keep %d, rerun %d, run %d\n",
		jobLabel(p.Job), p.LastSeq, p.Epoch, p.Summary.Keep, p.Summary.Rerun, p.Summary.Run)
	switch {
	case p.Ended != "":
		fmt.Fprintf(w, "the job already ended (%s): a resumed master runs nothing\n", p.Ended)
	case p.FullRestart == replay.ReasonRecoveryDisabled:
		fmt.Fprintln(w, "FULL RESTART: execution.batch.job-recovery.enabled is false in the job's settings: every subtask runs again")
	case p.FullRestart == replay.ReasonLogUnreadable:
		fmt.Fprintln(w, "FULL RESTART: the log cannot be replayed: the master restarts the job from its job.yaml, from attempt 0")
	}
	for _, note := range lostPartitionNotes(p, lost) {
		fmt.Fprintln(w, note)
	}
	fmt.Fprintln(w)
	if err := printVertexTable(w, p, names); err != nil {
		return err
	}
	if p.Ended != "" {
		return nil
	}
	var rows [][]string
	for _, s := range p.Subtasks {
		if verbose || s.Decision == replay.DecisionRerun {
			rows = append(rows, []string{fmt.Sprintf("%s/%d", nameOr(names, s.Vertex), s.Subtask), string(s.Decision),
				strconv.Itoa(int(s.Attempt)), strings.Join(s.Reasons, ", ")})
		}
	}
	if len(rows) == 0 {
		fmt.Fprintln(w, "\nnothing reruns")
		return nil
	}
	fmt.Fprintln(w)
	t := newTable(w, "subtask", "decision", "attempt", "reasons")
	if err := t.Bulk(rows); err != nil {
		return fmt.Errorf("replay: table: %w", err)
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("replay: table: %w", err)
	}
	return nil
}

// lostPartitionNotes says, for each --lost-partition that changed nothing,
// why: the subtask is kept (its partitions are optional: every subtask
// reading them had finished and is kept), or it reruns or runs anyway.
func lostPartitionNotes(p *replay.RecoveryPlan, lost []format.SubtaskRef) []string {
	var out []string
	for _, ref := range lost {
		for _, s := range p.Subtasks {
			if s.Vertex != ref.Vertex || s.Subtask != ref.Subtask || slices.Contains(s.Reasons, replay.ReasonPartitionLost) {
				continue
			}
			why := ""
			switch {
			case s.Decision == replay.DecisionKeep:
				why = "its partitions are optional (every subtask that reads them had finished and is kept), so it is kept"
			case s.Decision == replay.DecisionRun:
				why = "it never ran, so it has no partitions"
			case !slices.Contains(s.Reasons, replay.ReasonRunningAtFailover) || p.FullRestart != "":
				why = "it reruns anyway (" + strings.Join(s.Reasons, ", ") + ")"
			default:
				why = "it had not finished, so it has no partitions"
			}
			out = append(out, fmt.Sprintf("--lost-partition %s changed nothing: %s", ref, why))
		}
	}
	return out
}

// printVertexTable writes one row per vertex with its decision counts.
// With names (a Flink log's), a vertex is shown by its name, its id in
// the second column.
func printVertexTable(w io.Writer, p *replay.RecoveryPlan, names map[string]string) error {
	type counts struct{ keep, rerun, run int }
	byVertex := make(map[string]*counts)
	for _, v := range p.Vertices {
		byVertex[v.Vertex] = &counts{}
	}
	for _, s := range p.Subtasks {
		n := byVertex[s.Vertex]
		if n == nil {
			continue
		}
		switch s.Decision {
		case replay.DecisionKeep:
			n.keep++
		case replay.DecisionRerun:
			n.rerun++
		case replay.DecisionRun:
			n.run++
		}
	}
	header := []string{"vertex", "parallelism", "keep", "rerun", "run", "note"}
	if len(names) > 0 {
		header = slices.Insert(header, 1, "id")
	}
	t := newTable(w, header...)
	for _, v := range p.Vertices {
		n := byVertex[v.Vertex]
		par, note := strconv.Itoa(int(v.Parallelism)), ""
		switch {
		case !v.Initialized:
			par, note = "-", "not initialized"
		case v.Deferred:
			note = "deferred: a later reset of any subtask reruns them all"
		}
		row := []string{v.Vertex, par, strconv.Itoa(n.keep), strconv.Itoa(n.rerun), strconv.Itoa(n.run), note}
		if len(names) > 0 {
			row = slices.Insert(row, 0, nameOr(names, v.Vertex))
		}
		if err := t.Append(row); err != nil {
			return fmt.Errorf("replay: table: %w", err)
		}
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("replay: table: %w", err)
	}
	return nil
}

// nameOr returns the name of vertex id in names, or the id when it has
// none.
func nameOr(names map[string]string, id string) string {
	if n := names[id]; n != "" {
		return n
	}
	return id
}

// parseSubtaskRef parses "vertex/subtask" (answer.ParseSubtaskRef).
func parseSubtaskRef(s string) (format.SubtaskRef, error) { return answer.ParseSubtaskRef(s) }
