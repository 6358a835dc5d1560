package main

import (
	"context"
	"errors"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/pkg/runtime"
)

func newWorkerCommand() *cli.Command {
	return &cli.Command{
		Name:  "worker",
		Usage: "run a worker process for the job of a log",
		UsageText: "jobevent worker --events LOG --dir DIR [--master ADDR] [--slots N] [--token T] [--listen ADDR] [--name NAME] [--tls-cert FILE --tls-key FILE --tls-ca FILE]\n\n" +
			"EXAMPLES:\n" +
			"   JOBEVENT_TOKEN=s3cret jobevent worker --events ./jobevents/wordcount --dir /var/tmp/w1\n" +
			"   JOBEVENT_TOKEN=s3cret jobevent worker --events 's3://ops-logs?prefix=wc/' --dir /var/tmp/w1 --listen 10.0.0.6:7200 \\\n" +
			"       --tls-cert w1.pem --tls-key w1-key.pem --tls-ca ca.pem",
		Description: "Runs the attempts the job's master deploys and serves the partitions they write under\n" +
			"DIR to the other workers (over HTTP on ADDR, default 127.0.0.1:0). The worker finds the\n" +
			"current master through the log's newest epoch object unless --master pins it; when the\n" +
			"master is unreachable it keeps its partitions and reconnects with backoff, reporting\n" +
			"what it holds to the next master. It exits when the job has ended (its partitions are\n" +
			"then deleted) or on SIGTERM (its partitions stay). A master that refuses it for a reason\n" +
			"retrying cannot fix (a wrong token, TLS on one side only, an untrusted certificate) ends\n" +
			"it after 5 attempts: exit 2 with one line naming the cause. Before the master accepts the\n" +
			"worker it asks the worker's address to prove that it holds the token (without sending it).\n" +
			"With --tls-cert, --tls-key and --tls-ca it serves and calls the master and the other\n" +
			"workers over mutual HTTPS: each side checks the other's certificate against --tls-ca.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "events", Usage: "the job's event log `LOG` (required)"},
			&cli.StringFlag{Name: "dir", Usage: "`DIR` for partitions (required)"},
			&cli.StringFlag{Name: "master", Usage: "master `ADDR` (default: from the log)"},
			&cli.IntFlag{Name: "slots", Usage: "attempts `N` run at once", Value: 2},
			tokenFlag(),
			&cli.StringFlag{Name: "listen", Usage: "`ADDR` to serve on", Value: "127.0.0.1:0"},
			&cli.StringFlag{Name: "name", Usage: "worker `NAME` recorded in the log (letters, digits, '_', '.', '-')", DefaultText: "host name and a hash of DIR"},
			formatFlag("table", "json"),
		}, tlsFlags()...),
		Action: runWorker,
	}
}

func runWorker(c *cli.Context) error {
	if err := requireFlags(c, "", "events", "dir"); err != nil {
		return err
	}
	if err := wantArgs(c, 0, 0); err != nil {
		return err
	}
	if c.String("token") == "" {
		return usagef(c, "a token is required: --token or JOBEVENT_TOKEN")
	}
	if c.Int("slots") < 1 {
		return usagef(c, "--slots must be at least 1")
	}
	if err := checkTLS(c); err != nil {
		return err
	}
	err := runtime.RunWorker(c.Context, runtime.WorkerOptions{
		Events: c.String("events"),
		Dir:    c.String("dir"),
		Master: c.String("master"),
		Slots:  c.Int("slots"),
		Token:  c.String("token"),
		Listen: c.String("listen"),
		Name:   c.String("name"),
		Stderr: c.App.ErrWriter,
		TLS:    tlsFiles(c),
	})
	if errors.Is(err, context.Canceled) {
		return nil // SIGTERM: a clean stop
	}
	return err
}
