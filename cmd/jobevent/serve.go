package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/internal/serve"
	"github.com/jobevent/jobevent/pkg/runtime"
)

func newServeCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "a read-only console and REST API over buckets of logs",
		UsageText: "jobevent serve ROOT... [--listen 127.0.0.1:8080] [--token T] [--tls-cert F --tls-key F]\n\n" +
			"EXAMPLES:\n" +
			"   jobevent serve ./jobevents\n" +
			"   jobevent serve 's3://ops-logs?prefix=jobs/' file:///var/lib/flink-ha --token \"$TOKEN\"\n" +
			"   curl -s localhost:8080/api/v1/jobs | jq -r '.logs[].id'",
		Description: "Serves the job logs under each ROOT (a bucket or directory holding jobevent logs, Flink HA\n" +
			"directories or watch archives), read-only. Pages: / lists the jobs, /jobs/{id} shows a job:\n" +
			"summary, failovers, the plan with a what-if form, the timeline and exposure curve, live while\n" +
			"the log grows. REST under /api/v1/ prints what the CLI prints with --format json: jobs (ls),\n" +
			"jobs/{id} (status), events (dump; kind, vertex, subtask, epoch, since, until), plan (replay\n" +
			"--dry-run; at, lost_worker, lost_partition, no_workers), sweep, stats, validate, and stream\n" +
			"(server-sent events, as dump --follow). A job's id is its prefix relative to its ROOT,\n" +
			"percent-encoded (jobs%2Fwordcount), with \"N:\" first when there are several ROOTs.\n" +
			"With --token, API requests carry \"Authorization: Bearer T\"; a browser opens /?token=T once.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:8080", Usage: "listen on `ADDR`"},
			&cli.StringFlag{Name: "token", Usage: "require `T` of every request"},
			&cli.StringFlag{Name: "tls-cert", Usage: "serve HTTPS with the certificate `FILE` (with --tls-key)"},
			&cli.StringFlag{Name: "tls-key", Usage: "the private key `FILE` of --tls-cert"},
			&cli.DurationFlag{Name: "heartbeat-timeout", Usage: "a heartbeat older than `DURATION` is stale",
				Value: runtime.DefaultSettings().HeartbeatTimeout},
			&cli.DurationFlag{Name: "poll-interval", Value: 250 * time.Millisecond, Usage: "how often a live page looks for new events (`DURATION`)"},
		},
		Action: runServe,
	}
}

func runServe(c *cli.Context) error {
	if err := wantArgs(c, 1, -1); err != nil {
		return err
	}
	cert, key := c.String("tls-cert"), c.String("tls-key")
	if (cert == "") != (key == "") {
		return usagef(c, "--tls-cert and --tls-key go together: give both, or neither")
	}
	if c.Duration("heartbeat-timeout") <= 0 || c.Duration("poll-interval") <= 0 {
		return usagef(c, "--heartbeat-timeout and --poll-interval must be positive durations")
	}
	srv, err := serve.New(c.Context, c.Args().Slice(), serve.Options{Token: c.String("token"),
		Poll: c.Duration("poll-interval"), HeartbeatTimeout: c.Duration("heartbeat-timeout")})
	if err != nil {
		return err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", c.String("listen"))
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	scheme := "http"
	if cert != "" {
		scheme = "https"
	}
	fmt.Fprintf(c.App.ErrWriter, "jobevent: serving %s://%s/ (interrupt to stop)\n", scheme, ln.Addr())
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return c.Context }}
	done := make(chan error, 1)
	go func() {
		if cert != "" {
			done <- hs.ServeTLS(ln, cert, key)
		} else {
			done <- hs.Serve(ln)
		}
	}()
	select {
	case err = <-done:
	case <-c.Context.Done():
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = hs.Shutdown(ctx)
		err = <-done
	}
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return fmt.Errorf("serve: %w", err)
}
