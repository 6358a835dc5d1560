package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/internal/human"
	"github.com/jobevent/jobevent/internal/progress"
	"github.com/jobevent/jobevent/internal/report"
	"github.com/jobevent/jobevent/pkg/runtime"
	"github.com/jobevent/jobevent/pkg/runtime/drill"
)

func newDrillCommand() *cli.Command {
	return &cli.Command{
		Name:  "drill",
		Usage: "crash the job at every point and prove that the dry run predicts what recovery reruns",
		UsageText: "jobevent drill SPEC.yaml [--points all|N] [--at SEQ,...] [--faults master,worker,torn-tail,slow-workers,double] [--seed N] [--parallel N] [--format table|json] [--report FILE.html] [--keep DIR] [--no-timing] [--quiet]\n\n" +
			"EXAMPLES:\n" +
			"   jobevent drill testdata/jobs/wordcount.yaml --points all\n" +
			"   jobevent drill testdata/jobs/flink-failover.yaml --faults master,double --seed 3 --report drill.html\n" +
			"   jobevent drill testdata/jobs/shuffle.yaml --format json --no-timing | jq .verdict",
		Description: "Runs SPEC once clean (seeded, embedded runtime, every run in a fresh temporary directory;\n" +
			"relative inputs are resolved against the working directory), then, for every crash point\n" +
			"and fault, runs it again, lets the master die right after event K is durable, injects the\n" +
			"fault, takes the dry-run plan of the crashed log (the replay.Plan that \"replay --dry-run\"\n" +
			"prints), resumes, and checks from the log that the resumed master started exactly the\n" +
			"predicted subtasks with the predicted attempts and logged the predicted resets, that the\n" +
			"plan's reasons are true of the log, that the output is byte for byte the clean run's, and\n" +
			"that the recovered log validates.\n\n" +
			"Crash points: every seq of the clean log (--points all), N evenly spaced ones plus the\n" +
			"vertex boundaries, or the seqs of --at. Faults: master (the master dies), worker (one\n" +
			"worker's partitions are lost too: --lost-worker), torn-tail (the newest segment is\n" +
			"truncated), slow-workers (no worker reports in time: --no-workers), double (the master\n" +
			"dies again 1 to 3 events into recovery, then a second master resumes).\n\n" +
			"Prints one row per case, the recovery cost curve (work redone per crash point) and a\n" +
			"verdict; --report writes the curve and the cases as a self-contained HTML page. A failing\n" +
			"case is kept, with a repro.sh that replays it with jobevent, under --keep DIR or in the\n" +
			"printed temporary directory. Every run syncs its log to disk: with TMPDIR=/dev/shm (a\n" +
			"tmpfs) a drill runs about twice as fast.\n\n" +
			"SIGINT or SIGTERM stops the drill: nothing is kept, its temporary directory is deleted;\n" +
			"exit 130 (SIGINT) or 143 (SIGTERM).\n\n" +
			"Exit codes: 0 every prediction held and every output was identical; 1 a case failed;\n" +
			"2 bad input or I/O; 130/143 stopped by SIGINT/SIGTERM.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "points", Usage: "crash points: `all` or N evenly spaced ones plus the vertex boundaries", Value: strconv.Itoa(drill.DefaultPoints)},
			&cli.StringFlag{Name: "at", Usage: "crash only after these seqs: comma-separated `LIST` (replaces --points)"},
			&cli.StringFlag{Name: "faults", Usage: "comma-separated `LIST` of faults, or all", Value: "all"},
			&cli.Int64Flag{Name: "seed", Usage: "seed `N` of every run", Value: 1},
			&cli.IntFlag{Name: "parallel", Usage: "run up to `N` cases at once", Value: 2},
			&cli.IntFlag{Name: "workers", Usage: "in-process workers `N` of each run", Value: 2},
			&cli.StringFlag{Name: "report", Usage: "write the cost curve and the cases as an HTML page to `FILE`"},
			&cli.StringFlag{Name: "keep", Usage: "copy failing cases to `DIR`", DefaultText: "a printed temporary directory"},
			&cli.BoolFlag{Name: "no-timing", Usage: "leave the wall times out, so that equal drills print equal output"},
			quietFlag(),
			formatFlag("table", "json"),
		},
		Action: runDrill,
	}
}

func runDrill(c *cli.Context) error {
	if err := wantArgs(c, 1, 1); err != nil {
		return err
	}
	opts, err := drillOptions(c)
	if err != nil {
		return err
	}
	spec, err := runtime.LoadSpec(c.Args().First())
	if err != nil {
		return err
	}
	// Inputs are relative to the spec's directory; each case writes its
	// outputs in its own directory.
	if err := spec.ResolveInputs(filepath.Dir(c.Args().First())); err != nil {
		return err
	}
	p := newProgress(c)
	p.Start("drill "+spec.Job, 0, progress.Cases)
	opts.Stderr = p.Writer(c.App.ErrWriter)
	opts.Progress = func(done, total int) {
		p.SetTotal(int64(total))
		p.Set(int64(done))
	}
	res, err := drill.Run(c.Context, spec, opts)
	p.Done()
	if in := interruptsOf(c.Context); errors.Is(err, drill.ErrInterrupted) && in.signal() != nil {
		return &exitError{code: in.exitCode(), err: fmt.Errorf("drill of job %s stopped by %s: nothing was kept (its temporary logs and outputs are deleted)", spec.Job, in.signalName())}
	}
	if err != nil {
		return err
	}
	if c.Bool("no-timing") {
		res.StripTiming()
	}
	if file := c.String("report"); file != "" {
		if err := writeDrillReport(file, res); err != nil {
			return err
		}
	}
	if c.String("format") == "json" {
		err = writeJSON(c.App.Writer, res)
	} else {
		err = printDrill(c.App.Writer, res, !c.Bool("no-timing"))
	}
	if err != nil {
		return err
	}
	if !res.Verdict.OK {
		return findings("drill: %d of %d cases failed; kept in %s", res.Verdict.Failed, res.Verdict.Cases, res.Kept)
	}
	return nil
}

// drillOptions maps the flags onto drill.Options.
func drillOptions(c *cli.Context) (drill.Options, error) {
	o := drill.Options{
		Seed: c.Int64("seed"), Parallel: c.Int("parallel"), Workers: c.Int("workers"),
		Keep: c.String("keep"), SpecPath: c.Args().First(), Stderr: c.App.ErrWriter,
		Planner: appOf(c).drillPlanner,
	}
	switch p := c.String("points"); p {
	case "all":
	default:
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return o, usagef(c, "bad --points %q: want all or a number of points >= 1", p)
		}
		o.Points = n
	}
	if at := c.String("at"); at != "" {
		for _, f := range strings.Split(at, ",") {
			seq, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
			if err != nil || seq < 1 {
				return o, usagef(c, "bad --at %q: want a comma-separated list of seqs >= 1", at)
			}
			o.At = append(o.At, seq)
		}
	}
	faults, err := drill.ParseFaults(c.String("faults"))
	if err != nil {
		return o, usagef(c, "bad --faults: %v", err)
	}
	o.Faults = faults
	if o.Parallel < 1 || o.Workers < 1 {
		return o, usagef(c, "--parallel and --workers must be at least 1")
	}
	return o, nil
}

// writeDrillReport writes the HTML report of a drill to file.
func writeDrillReport(file string, res *drill.Result) error {
	f, err := os.Create(file)
	if err != nil {
		return fmt.Errorf("drill: %w", err)
	}
	if err := report.WriteDrillHTML(f, res); err != nil {
		f.Close()
		return fmt.Errorf("drill: write %s: %w", file, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("drill: %w", err)
	}
	return nil
}

// printDrill writes the table form of a drill: a heading, one row per
// case, the failed cases' problems, the cost curve and the verdict.
func printDrill(w io.Writer, res *drill.Result, timing bool) error {
	fmt.Fprintf(w, "drill of job %s (seed %d): %s, %s × %s = %s\n\n",
		res.Job, res.Seed, human.Count(res.Events, "event"), human.Count(len(res.Points), "crash point"),
		human.Count(len(res.Faults), "fault"), human.Count(len(res.Cases), "case"))
	if err := printDrillCases(w, res, timing); err != nil {
		return err
	}
	printDrillFailures(w, res)
	fmt.Fprintln(w, "\nrecovery cost curve: subtasks (bytes) redone after a crash at each point")
	if err := printDrillCurve(w, res); err != nil {
		return err
	}
	for _, f := range res.Faults {
		if p, ok := res.MostExposed(f); ok && p.Redone[f].Subtasks > 0 {
			cost := p.Redone[f]
			fmt.Fprintf(w, "most exposed to %s: after seq %d (%s): %s redone, %s\n",
				f, p.Seq, p.Event, human.Count(cost.Subtasks, "subtask"), report.HumanBytes(cost.Bytes))
		}
	}
	_, err := fmt.Fprintf(w, "\nverdict: %s\n", res.Verdict)
	return err
}

func printDrillCases(w io.Writer, res *drill.Result, timing bool) error {
	events := map[int64]string{}
	for _, p := range res.Points {
		events[p.Seq] = p.Event
	}
	header := []string{"point", "event", "fault", "predicted", "actual", "match", "output", "log", "redone", "redone bytes"}
	if timing {
		header = append(header, "recovery ms")
	}
	t := newTable(w, header...)
	for i := range res.Cases {
		cs := &res.Cases[i]
		match, output, log := "yes", "identical", "valid"
		if !cs.Match {
			match = "NO"
		}
		if !cs.OutputIdentical {
			output = "DIFFERS"
		}
		if cs.LogErrors > 0 {
			log = fmt.Sprintf("%d ERRORS", cs.LogErrors)
		}
		row := []string{strconv.FormatInt(cs.Point, 10), events[cs.Point], string(cs.Fault),
			strconv.Itoa(len(cs.Predicted)), strconv.Itoa(len(cs.Actual)), match, output, log,
			strconv.Itoa(cs.RedoneSubtasks), report.HumanBytes(cs.RedoneBytes)}
		if timing {
			row = append(row, strconv.FormatFloat(cs.RecoveryMs, 'f', 1, 64))
		}
		if err := t.Append(toAny(row)...); err != nil {
			return fmt.Errorf("drill: table: %w", err)
		}
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("drill: table: %w", err)
	}
	return nil
}

// printDrillFailures lists what went wrong with each failed case and
// where it was kept.
func printDrillFailures(w io.Writer, res *drill.Result) {
	for i := range res.Cases {
		cs := &res.Cases[i]
		if cs.OK() {
			continue
		}
		fmt.Fprintf(w, "\nFAILED %s\n", cs.Name())
		for _, p := range cs.Problems {
			fmt.Fprintf(w, "  - %s\n", p)
		}
		if cs.Kept != "" {
			fmt.Fprintf(w, "  kept in %s; replay it with: sh %s/repro.sh\n", cs.Kept, strings.TrimSuffix(cs.Kept, "/"))
		}
	}
}

// printDrillCurve writes the cost curve as a table: one row per crash
// point, one column per fault.
func printDrillCurve(w io.Writer, res *drill.Result) error {
	header := []string{"point", "event"}
	for _, f := range res.Faults {
		// The header is upper-cased, and "-" would come out as " - ".
		header = append(header, strings.ReplaceAll(string(f), "-", " "))
	}
	t := newTable(w, header...)
	for _, p := range res.Curve {
		row := []string{strconv.FormatInt(p.Seq, 10), p.Event}
		for _, f := range res.Faults {
			cell := "-"
			if cost, ok := p.Redone[f]; ok {
				cell = fmt.Sprintf("%d (%s)", cost.Subtasks, report.HumanBytes(cost.Bytes))
			}
			row = append(row, cell)
		}
		if err := t.Append(toAny(row)...); err != nil {
			return fmt.Errorf("drill: table: %w", err)
		}
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("drill: table: %w", err)
	}
	return nil
}
