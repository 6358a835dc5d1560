package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/internal/human"
	"github.com/jobevent/jobevent/pkg/runtime"
)

func newRunCommand() *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "run a batch job with the embedded runtime, recording its events",
		UsageText: "jobevent run SPEC.yaml [--events LOG] [--workers N] [--resume] [--crash-after-seq N] [--seed N] [--work-dir DIR] [--compact-on-finish] [--format table|json]\n\n" +
			"EXAMPLES:\n" +
			"   jobevent run testdata/jobs/wordcount.yaml\n" +
			"   jobevent run testdata/jobs/flink-failover.yaml --seed 1 --crash-after-seq 20; jobevent run testdata/jobs/flink-failover.yaml --seed 1 --resume",
		Description: "Runs the job of SPEC.yaml: a master and N in-process workers. Events go to LOG (default\n" +
			"file://./jobevents?prefix=<job>/), partitions to the work dir (default ./jobevents-work,\n" +
			"kept across a crash). A log that already holds the job is refused unless --resume, which\n" +
			"recovers it in a new epoch: finished work whose partitions survived is kept, the rest\n" +
			"reruns (see \"jobevent replay LOG --dry-run\" for the plan). --crash-after-seq N makes the\n" +
			"master die right after event N is durable (exit 3; job_submitted and master_started, the\n" +
			"first two events of a log, are one unit); --seed N runs the attempts one at a\n" +
			"time in a seeded order, so that crash points and logs are reproducible.\n\n" +
			"Relative paths in SPEC.yaml (inputs, sink outputs) are relative to the spec file's\n" +
			"directory; the log's job.yaml stores them resolved, so the job runs and recovers from\n" +
			"any working directory. A job that cannot start (a spec error, a missing input, an output\n" +
			"that takes no writes or holds another log's committed output) is refused before anything\n" +
			"is written (exit 2); --overwrite-output lets it replace another log's output.\n\n" +
			"SIGINT or SIGTERM suspends the job: the master writes nothing more, the partitions stay,\n" +
			"and one line says how to resume it (--resume) or cancel it (jobevent cancel LOG); exit\n" +
			"130 (SIGINT) or 143 (SIGTERM). A second SIGINT while it suspends cancels the job.\n\n" +
			"Exit codes: 0 the job finished (or had finished); 1 it failed or was canceled; 2 bad\n" +
			"input or I/O; 3 the deliberate crash; 130/143 suspended by SIGINT/SIGTERM.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "events", Usage: "event log `LOG` (bucket URL or path)", DefaultText: "file://./jobevents?prefix=<job>/"},
			&cli.IntFlag{Name: "workers", Usage: "number of in-process workers `N`", Value: 2},
			&cli.IntFlag{Name: "slots", Usage: "slots `N` per worker", Value: 2},
			&cli.BoolFlag{Name: "resume", Usage: "recover the job from the log in a new epoch"},
			&cli.Int64Flag{Name: "crash-after-seq", Usage: "die right after event `N` is durable (exit 3)"},
			&cli.BoolFlag{Name: "compact-on-finish", Usage: "merge the log's segments (jobevent compact) once the job has finished"},
			&cli.Int64Flag{Name: "seed", Usage: "run in a reproducible order drawn from `N`"},
			&cli.StringFlag{Name: "work-dir", Usage: "`DIR` for the workers' partitions", DefaultText: "./jobevents-work"},
			overwriteOutputFlag(),
			quietFlag(),
			formatFlag("table", "json"),
		},
		Action: runRun,
	}
}

func runRun(c *cli.Context) error {
	if err := wantArgs(c, 1, 1); err != nil {
		return err
	}
	if c.Int("workers") < 1 || c.Int("slots") < 1 {
		return usagef(c, "--workers and --slots must be at least 1")
	}
	if c.Int64("crash-after-seq") < 0 {
		return usagef(c, "--crash-after-seq must be positive")
	}
	spec, err := runtime.LoadSubmission(c.Args().First())
	if err != nil {
		return err
	}
	stderr, endProgress := startRunProgress(c, spec.Job, c.String("events"))
	defer endProgress()
	opts := runtime.Options{
		Events:          c.String("events"),
		Workers:         c.Int("workers"),
		Slots:           c.Int("slots"),
		WorkDir:         c.String("work-dir"),
		Resume:          c.Bool("resume"),
		CrashAfterSeq:   c.Int64("crash-after-seq"),
		CompactOnFinish: c.Bool("compact-on-finish"),
		Seeded:          c.IsSet("seed"),
		Seed:            c.Int64("seed"),
		Stderr:          stderr,
		Cancel:          interruptsOf(c.Context).Cancel(),
		OverwriteOutput: c.Bool("overwrite-output"),
	}
	sum, err := runtime.Run(c.Context, spec, opts)
	endProgress()
	if sum != nil && sum.Status == "suspended" {
		// The work dir and the output ownership are recorded in the log:
		// the line works from any directory without repeating a flag.
		resume := []string{"jobevent", "run", absPath(c.Args().First()), "--events", sum.Log, "--resume"}
		return endBySignal(c, sum.Log, withWorkDir(c, resume), c.String("work-dir"), err)
	}
	if err = endBySignal(c, "", nil, "", err); sum == nil {
		return err
	}
	var crash *runtime.CrashError
	if k := opts.CrashAfterSeq; k > 0 && !errors.As(err, &crash) && sum.LastSeq < k {
		fmt.Fprintf(c.App.ErrWriter, "jobevent: notice: the job ended (%s) at seq %d, before --crash-after-seq %d: the master did not crash\n", sum.Status, sum.LastSeq, k)
	}
	return reportRun(c, sum, err)
}

// recoverFromLog is "jobevent replay LOG" without --dry-run: the job of
// LOG recovered for real with the embedded runtime, as "run --resume".
func recoverFromLog(c *cli.Context, log string) error {
	sum, err := runtime.Resume(c.Context, runtime.Options{
		Events: log, Stderr: c.App.ErrWriter, Cancel: interruptsOf(c.Context).Cancel(),
		WorkDir: c.String("work-dir"), Workers: c.Int("workers"), Slots: c.Int("slots"),
	})
	if sum != nil && sum.Status == "suspended" {
		return endBySignal(c, sum.Log, withWorkDir(c, []string{"jobevent", "replay", sum.Log}), c.String("work-dir"), err)
	}
	if err = endBySignal(c, "", nil, "", err); sum == nil {
		return err
	}
	return reportRun(c, sum, err)
}

// withWorkDir appends the --work-dir the command was given, made absolute,
// to a resume line: a log written before the work dir was recorded at
// submission needs it (for the others it repeats the recorded one).
func withWorkDir(c *cli.Context, resume []string) []string {
	if !c.IsSet("work-dir") {
		return resume
	}
	return append(resume, "--work-dir", absPath(c.String("work-dir")))
}

// absPath returns path made absolute, or path itself when that fails.
func absPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// reportRun prints the summary of a run, unless the master crashed on
// purpose (it skips everything, the summary included), and returns err.
func reportRun(c *cli.Context, sum *runtime.Summary, err error) error {
	var crash *runtime.CrashError
	if sum == nil || errors.As(err, &crash) {
		return err
	}
	if sum.FullRestart && sum.FullRestartReason != "" {
		warnf(c.App.ErrWriter, "full restart: %s", sum.FullRestartReason)
	}
	if perr := printSummary(c.App.Writer, c.String("format"), sum); perr != nil && err == nil {
		err = perr
	}
	return err
}

func printSummary(w io.Writer, format string, s *runtime.Summary) error {
	if format == "json" {
		return writeJSON(w, s)
	}
	status := s.Status
	switch {
	case s.AlreadyEnded:
		status = "already " + s.Status + " (nothing to run)"
	case s.FullRestart:
		status += " (FULL RESTART)"
	case s.Recovered && s.Plan != nil:
		status += fmt.Sprintf(" (recovered in epoch %d: plan kept %d, reran %d, ran %d)", s.Epoch, s.Plan.Keep, s.Plan.Rerun, s.Plan.Run)
	case s.Recovered:
		status += fmt.Sprintf(" (recovered in epoch %d: %s kept)", s.Epoch, human.Count(s.Kept, "subtask"))
	}
	outputs := strings.Join(s.Outputs, ", ")
	if outputs == "" {
		outputs = "-"
	}
	rows := [][]string{
		{"job", s.Job},
		{"status", status},
		{"vertices", fmt.Sprint(s.Vertices)},
		{"subtasks", fmt.Sprint(s.Subtasks)},
		{"attempts run", fmt.Sprint(s.Deployed)},
		{"reruns", fmt.Sprint(s.Reruns)},
		{"wall time", human.Seconds(s.Wall)},
		{"events", fmt.Sprint(s.LastSeq)},
		{"log", s.Log},
		{"output", outputs},
	}
	for _, r := range rows {
		if _, err := fmt.Fprintf(w, "%-13s %s\n", r[0], r[1]); err != nil {
			return err
		}
	}
	return nil
}
