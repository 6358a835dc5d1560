package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/pkg/watch"
)

func newWatchCommand() *cli.Command {
	return &cli.Command{
		Name:  "watch",
		Usage: "keep Flink jobs' logs past their end, and export the exposure now as metrics",
		UsageText: "jobevent watch SOURCE... --archive ROOT [--listen 127.0.0.1:9464] [--interval 2s] [--flink-rest URL]...\n\n" +
			"EXAMPLES:\n" +
			"   jobevent watch /flink/ha --archive file:///var/lib/jobevent/archive --flink-rest http://127.0.0.1:8081\n" +
			"   jobevent watch 's3://flink-ha?region=eu-west-1' --archive 's3://ops-logs?prefix=flink/&region=eu-west-1'\n" +
			"   curl -s 127.0.0.1:9464/metrics | grep jobevent_exposure_bytes",
		Description: "SOURCE is a Flink HA storage directory (every <cluster-id>/<job id>/job-events/ under it)\n" +
			"or a bucket of jobevent logs, on any scheme. For each Flink job, watch keeps an archive under\n" +
			"ROOT (<cluster-id>/<job id>/): the job-events files and the HA plan file copied byte for byte,\n" +
			"the REST plan and config with --flink-rest, and the events as Parquet segments with the time\n" +
			"watch first saw each (observed). The archive is an ordinary LOG: dump, validate, stats,\n" +
			"timeline, diff and replay --dry-run read it, and it is kept, completed (ended.json), when Flink\n" +
			"deletes the job's directory. Each poll lists the sources once and reads only new bytes. Per\n" +
			"job, /metrics exports the dry run at the newest event (jobevent_flink_subtasks{decision},\n" +
			"jobevent_exposure_bytes), seconds since the last event and the archive lag; alerts are one\n" +
			"line on stderr and a metric each. One watch writes a ROOT at a time; a second waits. SIGTERM\n" +
			"or SIGINT finishes the poll under way and exits 0. --format json writes each alert as a JSON object a line. docs/watch.md has the details.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "archive", Usage: "the bucket ROOT where archives are kept (required)"},
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:9464", Usage: "address of /metrics and /healthz (\"\" serves none)"},
			&cli.DurationFlag{Name: "interval", Value: 2 * time.Second, Usage: "how often the sources are polled"},
			&cli.StringSliceFlag{Name: "flink-rest", Usage: "a Flink REST URL (repeatable): job names and states, plans, configs, the REST alerts"},
			&cli.DurationFlag{Name: "stale-after", Value: 5 * time.Minute, Usage: "how long a RUNNING job's log may not grow before the recording-stopped alert"},
			&cli.DurationFlag{Name: "claim-stale", Usage: "how old another watch's claim of ROOT must be before this one takes over (default 5 intervals, at least 10s)"},
			&cli.BoolFlag{Name: "once", Usage: "poll once and exit (no server)"},
			formatFlag("table", "json"),
		},
		Action: runWatch,
	}
}

func runWatch(c *cli.Context) error {
	if err := wantArgs(c, 1, -1); err != nil {
		return err
	}
	if c.String("archive") == "" {
		return usagef(c, "watch needs --archive ROOT: the bucket where the Flink jobs' archives are kept")
	}
	if c.Duration("interval") <= 0 {
		return usagef(c, "bad --interval %s: want a positive duration such as 2s", c.Duration("interval"))
	}
	w, err := watch.New(c.Context, watch.Options{
		Sources: c.Args().Slice(), Archive: c.String("archive"), Interval: c.Duration("interval"),
		REST: c.StringSlice("flink-rest"), StaleAfter: c.Duration("stale-after"), ClaimStale: c.Duration("claim-stale"),
		Log: c.App.ErrWriter, JSONLog: c.String("format") == "json",
	})
	if err != nil {
		return err
	}
	defer w.Close()
	if err := w.Claim(c.Context); err != nil {
		if errors.Is(err, context.Canceled) {
			return nil // stopped while waiting for the claim: nothing written
		}
		return err
	}
	if c.Bool("once") {
		return w.Poll(c.Context)
	}
	if addr := c.String("listen"); addr != "" {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return err
		}
		srv := &http.Server{Handler: w.Handler(), ReadHeaderTimeout: 10 * time.Second}
		go srv.Serve(ln)
		defer srv.Close()
	}
	return w.Run(c.Context)
}
