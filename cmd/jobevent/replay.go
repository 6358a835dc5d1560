package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// recoverJob recovers the job of a log for real, the same as
// "jobevent run --resume": "jobevent replay LOG" without --dry-run calls
// it. The runtime's command file sets it; while it is nil, replay without
// --dry-run is an error.
var recoverJob func(c *cli.Context, log string) error

func newReplayCommand() *cli.Command {
	return &cli.Command{
		Name:  "replay",
		Usage: "say which subtasks a master failover would keep, rerun or run, and why",
		UsageText: "jobevent replay LOG --dry-run [--at SEQ] [--lost-worker W]... [--lost-partition V/I]... [--no-workers] [--available FILE] [--verbose] [--sweep [--points N]] [--format table|json]\n\n" +
			"EXAMPLES:\n" +
			"   jobevent replay testdata/logs/failover.jsonl --dry-run --sweep --points 20\n" +
			"   jobevent replay file:///var/lib/jobevent?prefix=jobs/wordcount/ --dry-run\n" +
			"   jobevent replay testdata/logs/running.jsonl --dry-run --lost-worker w2\n" +
			"   jobevent replay ./jobevents --dry-run --at 120 --format json | jq .summary",
		Description: "Replays LOG and prints the recovery plan (docs/recovery.md) as if the master died after\n" +
			"event --at (default: the last one) — computed by replay.Plan, the function a recovering\n" +
			"master calls. By default every recorded partition is available; --available FILE (a JSON\n" +
			"list of {\"vertex\",\"subtask\",\"attempt\",\"consumer\",\"worker\"}) replaces that base,\n" +
			"--no-workers empties it, and --lost-worker / --lost-partition subtract from it.\n" +
			"The table shows keep/rerun/run counts per vertex and the reruns with their reasons\n" +
			"(--verbose: every subtask). Without --dry-run, replay recovers the job for real from the\n" +
			"log and its job.yaml (the same as \"jobevent run --resume\").\n" +
			"--sweep folds the log once and calls the same plan after each sampled event (up to --at),\n" +
			"with the same availability flags: the exposure curve, what a failover would cost then.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Usage: "print the plan; change nothing"},
			&cli.Int64Flag{Name: "at", Usage: "plan as if the master died after event `SEQ`", DefaultText: "the last"},
			&cli.StringSliceFlag{Name: "lost-worker", Usage: "worker `W` lost: none of its partitions is available (repeatable)"},
			&cli.StringSliceFlag{Name: "lost-partition", Usage: "the partitions of subtask `V/I` are lost (repeatable)"},
			&cli.BoolFlag{Name: "no-workers", Usage: "no worker comes back: no partition is available"},
			&cli.StringFlag{Name: "available", Usage: "JSON `FILE` listing the available partitions"},
			&cli.BoolFlag{Name: "verbose", Usage: "table: list every subtask, not only the reruns"},
			&cli.BoolFlag{Name: "sweep", Usage: "print the exposure sweep: the plan's cost as if the master died after each sampled event"},
			&cli.IntFlag{Name: "points", Usage: "--sweep: at most `N` points, evenly spaced (0: every event)", Value: defaultSweepPoints},
			formatFlag("table", "json"),
		},
		Action: runReplay,
	}
}

func runReplay(c *cli.Context) error {
	if err := wantArgs(c, 1, 1); err != nil {
		return err
	}
	opts, err := availabilityOptions(c)
	if err != nil {
		return err
	}
	at := c.Int64("at")
	if at < 0 {
		return usagef(c, "bad --at %d: want a seq >= 0", at)
	}
	if c.Bool("sweep") && !c.Bool("dry-run") {
		return usagef(c, "--sweep needs --dry-run")
	}
	if !c.Bool("dry-run") {
		if recoverJob == nil {
			return fmt.Errorf("replay: recovering for real is not available in this build; use --dry-run to print the plan, or \"jobevent run SPEC --resume\"")
		}
		return recoverJob(c, c.Args().First())
	}
	src, err := openSource(c.Context, c.Args().First(), sourceOptions{until: at})
	if err != nil {
		return err
	}
	defer src.Close()
	if c.Bool("sweep") {
		return runSweep(c, src, replay.SweepOptions{Until: at, Available: opts})
	}
	st, err := replay.Fold(src, at)
	printNotices(c.App.ErrWriter, src.Notices())
	if err != nil {
		return err
	}
	avail, err := replay.BuildAvailability(st, opts)
	if err != nil {
		return usagef(c, "%v", err)
	}
	plan := replay.Plan(st, avail)
	if c.String("format") == "json" {
		return writeJSON(c.App.Writer, plan)
	}
	return printPlanTable(c, plan, c.Bool("verbose"))
}

// availabilityOptions maps replay's flags onto replay.AvailabilityOptions.
func availabilityOptions(c *cli.Context) (replay.AvailabilityOptions, error) {
	o := replay.AvailabilityOptions{LostWorkers: c.StringSlice("lost-worker"), NoWorkers: c.Bool("no-workers")}
	for _, s := range c.StringSlice("lost-partition") {
		ref, err := parseSubtaskRef(s)
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

// parseSubtaskRef parses "vertex/subtask".
func parseSubtaskRef(s string) (format.SubtaskRef, error) {
	i := strings.LastIndexByte(s, '/')
	if i <= 0 {
		return format.SubtaskRef{}, fmt.Errorf("want VERTEX/SUBTASK")
	}
	n, err := strconv.ParseInt(s[i+1:], 10, 32)
	if err != nil || n < 0 {
		return format.SubtaskRef{}, fmt.Errorf("want VERTEX/SUBTASK with a subtask number >= 0")
	}
	return format.SubtaskRef{Vertex: s[:i], Subtask: int32(n)}, nil
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

func printPlanTable(c *cli.Context, p *replay.RecoveryPlan, verbose bool) error {
	w := c.App.Writer
	fmt.Fprintf(w, "job %s, replayed to seq %d (epoch %d): keep %d, rerun %d, run %d\n\n",
		p.Job, p.LastSeq, p.Epoch, p.Summary.Keep, p.Summary.Rerun, p.Summary.Run)
	if err := printVertexTable(w, p); err != nil {
		return err
	}
	var rows [][]string
	for _, s := range p.Subtasks {
		if verbose || s.Decision == replay.DecisionRerun {
			rows = append(rows, []string{fmt.Sprintf("%s/%d", s.Vertex, s.Subtask), string(s.Decision),
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

// printVertexTable writes one row per vertex with its decision counts.
func printVertexTable(w io.Writer, p *replay.RecoveryPlan) error {
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
	t := newTable(w, "vertex", "parallelism", "keep", "rerun", "run", "note")
	for _, v := range p.Vertices {
		n := byVertex[v.Vertex]
		par, note := strconv.Itoa(int(v.Parallelism)), ""
		switch {
		case !v.Initialized:
			par, note = "-", "not initialized"
		case v.Deferred:
			note = "deferred: a later reset of any subtask reruns them all"
		}
		if err := t.Append(v.Vertex, par, strconv.Itoa(n.keep), strconv.Itoa(n.rerun), strconv.Itoa(n.run), note); err != nil {
			return fmt.Errorf("replay: table: %w", err)
		}
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("replay: table: %w", err)
	}
	return nil
}
