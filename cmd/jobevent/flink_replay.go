package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/internal/human"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// flinkMasterPrefix starts the master name of every master_started event
// of a Flink log (package flink names each JobMaster incarnation so); a
// jobevent log imported from a Flink log keeps it, and is planned with
// the Flink profile.
const flinkMasterPrefix = "flink-jobmaster"

// withFlinkReplay adds the flink flags to the replay command and plans a
// Flink log (or one imported from a Flink log) with the Flink profile.
func withFlinkReplay(cmd *cli.Command) *cli.Command {
	cmd.Flags = append(cmd.Flags, flinkPlanFlag(), coordinatorFlag())
	cmd.Description += "\n\nLOG may be an Apache Flink job-events directory (docs/flink.md): the dry run then predicts\n" +
		"what Flink's recovering JobMaster keeps and redeploys (--lost-worker takes TaskManager\n" +
		"resource ids; the default availability is what the TaskManagers still hold), with\n" +
		"--flink-plan for names and --coordinator for coordinator kinds the log cannot tell.\n" +
		"Without --dry-run a Flink log is refused: Flink recovers its own job. A log imported from\n" +
		"a Flink log (jobevent import FLINK_DIR LOG) is planned the same way."
	inner := cmd.Action
	cmd.Action = func(c *cli.Context) error {
		fo, err := flinkOptionsOf(c)
		if err != nil || c.NArg() != 1 {
			if err == nil {
				err = inner(c)
			}
			return err
		}
		arg := c.Args().First()
		if isFlinkLog(c.Context, arg) {
			return runFlinkReplay(c, arg, fo)
		}
		if err := fo.refuse(arg); err != nil {
			return err
		}
		if c.Bool("dry-run") && !c.Bool("sweep") && importedFromFlink(c.Context, arg) {
			return runFlinkReplay(c, arg, nil)
		}
		return inner(c)
	}
	return cmd
}

// importedFromFlink reports whether the log at arg was imported from a
// Flink log: its first master is a Flink JobMaster.
func importedFromFlink(ctx context.Context, arg string) bool {
	src, err := openSource(ctx, arg, sourceOptions{})
	if err != nil {
		return false
	}
	defer src.Close()
	for i := 0; i < 2; i++ {
		e, err := src.Next()
		if err != nil {
			return false
		}
		if e.Kind == format.KindMasterStarted {
			return strings.HasPrefix(e.Master, flinkMasterPrefix)
		}
	}
	return false
}

// runFlinkReplay is replay on a Flink log: the dry run, with the Flink
// profile; without --dry-run it is refused, since Flink recovers its own
// job.
func runFlinkReplay(c *cli.Context, arg string, fo *flinkOptions) error {
	if !c.Bool("dry-run") {
		if _, ok := localDir(arg); ok && !isFlinkLog(c.Context, arg) {
			return usagef(c, "%s was imported from a Flink log: it records what Flink did, and jobevent cannot run Flink's job; use --dry-run", arg)
		}
		return usagef(c, "%s %v", arg, errFlinkReplay)
	}
	for _, name := range append([]string{"sweep", "points"}, realFlags...) {
		if c.IsSet(name) {
			return usagef(c, "--%s does not apply to the dry run of a Flink log", name)
		}
	}
	opts, err := availabilityOptions(c)
	if err != nil {
		return err
	}
	at := c.Int64("at")
	if c.IsSet("at") && at < 1 {
		return usagef(c, "bad --at %d: want the seq of an event (1 or more); leave --at out to plan after the last event", at)
	}
	src, err := openSource(c.Context, arg, sourceOptions{flink: fo})
	if err != nil {
		return err
	}
	defer src.Close()
	tap := &graphTap{eventSource: src}
	st, err := replay.Fold(tap, at)
	printNotices(c.App.ErrWriter, src.Notices())
	if err != nil {
		return err
	}
	if n := st.Skipped(); n > 0 {
		warnf(c.App.ErrWriter, "%s of the log could not be applied and were skipped: %v", human.Count(n, "event"), st.SkipErrors())
	}
	st.SetProfile(replay.ProfileFlink)
	if at > st.LastSeq() {
		warnf(c.App.ErrWriter, "--at %d is past the end of the log (seq %d): planning after the last event", at, st.LastSeq())
	}
	avail, err := replay.BuildAvailability(st, opts)
	if err != nil {
		return availabilityError(c, st, opts, err)
	}
	warnUnmatched(c, opts.Unmatched(st))
	plan := replay.PlanRecovery(st, avail, replay.PlanOptions{})
	names := tap.names()
	if c.String("format") == "json" {
		return writeJSON(c.App.Writer, flinkPlanOf(plan, names))
	}
	if err := printPlanTable(c, plan, c.Bool("verbose"), opts.LostPartitions); err != nil {
		return err
	}
	printFlinkNames(c, plan, names)
	return nil
}

// graphTap passes events on and keeps the job_submitted graph.
type graphTap struct {
	eventSource
	graph *format.Graph
}

func (t *graphTap) Next() (format.Event, error) {
	e, err := t.eventSource.Next()
	if err == nil && e.Kind == format.KindJobSubmitted && t.graph == nil {
		t.graph = e.Graph
	}
	return e, err
}

// names returns the vertex names the graph holds (from --flink-plan).
func (t *graphTap) names() map[string]string {
	m := map[string]string{}
	if t.graph != nil {
		for _, v := range t.graph.Vertices {
			if v.Operator != "" {
				m[v.ID] = v.Operator
			}
		}
	}
	return m
}

// flinkPlan is the JSON of a Flink log's dry run: the plan's JSON with a
// "name" in vertex and subtask rows whose name is known.
type flinkPlan struct {
	Job         string         `json:"job"`
	LastSeq     int64          `json:"last_seq"`
	Epoch       int32          `json:"epoch"`
	Vertices    []flinkVertex  `json:"vertices"`
	Subtasks    []flinkSubtask `json:"subtasks"`
	Summary     replay.Summary `json:"summary"`
	Ended       string         `json:"ended,omitempty"`
	FullRestart string         `json:"full_restart,omitempty"`
}

type flinkVertex struct {
	Vertex      string `json:"vertex"`
	Name        string `json:"name,omitempty"`
	Parallelism *int32 `json:"parallelism"`
	Initialized bool   `json:"initialized"`
	Deferred    bool   `json:"deferred"`
}

type flinkSubtask struct {
	Vertex   string          `json:"vertex"`
	Name     string          `json:"name,omitempty"`
	Subtask  int32           `json:"subtask"`
	Decision replay.Decision `json:"decision"`
	Attempt  int32           `json:"attempt"`
	Reasons  []string        `json:"reasons"`
}

func flinkPlanOf(p *replay.RecoveryPlan, names map[string]string) *flinkPlan {
	out := &flinkPlan{Job: p.Job, LastSeq: p.LastSeq, Epoch: p.Epoch, Summary: p.Summary, Ended: p.Ended, FullRestart: p.FullRestart,
		Vertices: []flinkVertex{}, Subtasks: []flinkSubtask{}}
	for _, v := range p.Vertices {
		fv := flinkVertex{Vertex: v.Vertex, Name: names[v.Vertex], Initialized: v.Initialized, Deferred: v.Deferred}
		if v.Initialized {
			par := v.Parallelism
			fv.Parallelism = &par
		}
		out.Vertices = append(out.Vertices, fv)
	}
	for _, s := range p.Subtasks {
		out.Subtasks = append(out.Subtasks, flinkSubtask{Vertex: s.Vertex, Name: names[s.Vertex], Subtask: s.Subtask,
			Decision: s.Decision, Attempt: s.Attempt, Reasons: s.Reasons})
	}
	return out
}

// printFlinkNames ends the table with the names of the vertices, when
// --flink-plan gave them.
func printFlinkNames(c *cli.Context, p *replay.RecoveryPlan, names map[string]string) {
	if len(names) == 0 {
		return
	}
	fmt.Fprintln(c.App.Writer, "\nvertex names (--flink-plan):")
	for _, v := range p.Vertices {
		if n := names[v.Vertex]; n != "" {
			fmt.Fprintf(c.App.Writer, "  %s  %s\n", v.Vertex, n)
		}
	}
}
