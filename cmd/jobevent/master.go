package main

import (
	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/pkg/runtime"
)

// overwriteOutputFlag lets a job commit over another log's output.
func overwriteOutputFlag() *cli.BoolFlag {
	return &cli.BoolFlag{Name: "overwrite-output", Usage: "let the job's sinks replace the committed output of another log's job"}
}

func newMasterCommand() *cli.Command {
	return &cli.Command{
		Name:  "master",
		Usage: "run a job's master as its own process; workers connect over HTTP",
		UsageText: "jobevent master SPEC.yaml --events LOG [--listen ADDR] [--resume] [--standby] [--token T] [--crash-after-seq N] [--compact-on-finish] [--tls-cert FILE --tls-key FILE --tls-ca FILE]\n\n" +
			"EXAMPLES:\n" +
			"   JOBEVENT_TOKEN=s3cret jobevent master testdata/jobs/wordcount.yaml --events ./jobevents/wordcount\n" +
			"   JOBEVENT_TOKEN=s3cret jobevent master --events ./jobevents/wordcount --standby\n" +
			"   JOBEVENT_TOKEN=s3cret jobevent master testdata/jobs/wordcount.yaml --events 's3://ops-logs?prefix=wc/' --listen 10.0.0.5:7100 \\\n" +
			"       --tls-cert master.pem --tls-key master-key.pem --tls-ca ca.pem",
		Description: "Runs the master of SPEC.yaml, serving workers (\"jobevent worker\") on ADDR (default\n" +
			"127.0.0.1:0; the address is recorded in the log's epoch object, where workers find it).\n" +
			"Every request carries the shared token (--token or JOBEVENT_TOKEN). --resume recovers the\n" +
			"job from the log in a new epoch (SPEC.yaml may then be omitted: the log's job.yaml is\n" +
			"used); --standby waits while the current master's heartbeat is fresh (judged by the\n" +
			"bucket's modification times), then claims the next epoch and recovers: of several\n" +
			"standbys exactly one wins. --crash-after-seq N exits 3 right after event N is durable,\n" +
			"leaving the workers up. A registering worker must prove at its address that it holds the\n" +
			"token before the master sends it anything, and the master takes reports only of attempts\n" +
			"it deployed to that worker. With --tls-cert, --tls-key and --tls-ca the master serves and\n" +
			"calls its workers over mutual HTTPS, checking their certificates against --tls-ca; the\n" +
			"workers must be started with TLS too.\n\n" +
			"Relative paths in SPEC.yaml are relative to the spec file's directory and stored resolved\n" +
			"in the log's job.yaml. A job that cannot start (a missing input, an output that takes no\n" +
			"writes or holds another log's output: see --overwrite-output) is refused before anything\n" +
			"is written (exit 2).\n\n" +
			"SIGINT or SIGTERM suspends the job, as a Flink JobMaster that loses its leadership: the\n" +
			"master writes nothing more, the workers keep their partitions and wait for the next\n" +
			"master (a standby takes over by itself), and one line says how to resume it (--resume)\n" +
			"or cancel it (jobevent cancel LOG); exit 130 (SIGINT) or 143 (SIGTERM). A second SIGINT\n" +
			"while it suspends cancels the job.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "events", Usage: "event log `LOG` (required)"},
			&cli.StringFlag{Name: "listen", Usage: "`ADDR` to serve workers on", Value: "127.0.0.1:0"},
			&cli.BoolFlag{Name: "resume", Usage: "recover the job from the log in a new epoch"},
			&cli.BoolFlag{Name: "standby", Usage: "take over when the current master's heartbeat goes stale"},
			tokenFlag(),
			&cli.Int64Flag{Name: "crash-after-seq", Usage: "die right after event `N` is durable (exit 3)"},
			&cli.BoolFlag{Name: "compact-on-finish", Usage: "merge the log's segments (jobevent compact) once the job has finished"},
			overwriteOutputFlag(),
			formatFlag("table", "json"),
		}, tlsFlags()...),
		Action: runMaster,
	}
}

func runMaster(c *cli.Context) error {
	spec := ""
	if c.NArg() == 0 && !c.Bool("resume") && !c.Bool("standby") {
		spec = "SPEC.yaml"
	}
	if err := requireFlags(c, spec, "events"); err != nil {
		return err
	}
	if err := wantArgs(c, 0, 1); err != nil {
		return err
	}
	opts := runtime.MasterOptions{
		Events:          c.String("events"),
		Listen:          c.String("listen"),
		Token:           c.String("token"),
		Resume:          c.Bool("resume"),
		Standby:         c.Bool("standby"),
		CrashAfterSeq:   c.Int64("crash-after-seq"),
		CompactOnFinish: c.Bool("compact-on-finish"),
		Stderr:          c.App.ErrWriter,
		TLS:             tlsFiles(c),
		Cancel:          interruptsOf(c.Context).Cancel(),
		OverwriteOutput: c.Bool("overwrite-output"),
	}
	if err := checkTLS(c); err != nil {
		return err
	}
	if c.NArg() == 1 {
		spec, err := runtime.LoadSubmission(c.Args().First())
		if err != nil {
			return err
		}
		opts.Spec = spec
	} else if !opts.Resume && !opts.Standby {
		return usagef(c, "want SPEC.yaml (it may be omitted only with --resume or --standby)")
	}
	if opts.Token == "" {
		return usagef(c, "a token is required: --token or JOBEVENT_TOKEN")
	}
	sum, err := runtime.RunMaster(c.Context, opts)
	if sum != nil && sum.Status == "suspended" {
		resume := []string{"jobevent", "master", "--events", sum.Log, "--resume"}
		return endBySignal(c, sum.Log, resume, "", err)
	}
	if err = endBySignal(c, "", nil, "", err); sum == nil {
		return err
	}
	return reportRun(c, sum, err)
}
