package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/replay"
)

func newCancelCommand() *cli.Command {
	return &cli.Command{
		Name:  "cancel",
		Usage: "ask the master holding a job to cancel it",
		UsageText: "jobevent cancel LOG [--format table|json]\n\n" +
			"EXAMPLE:\n" +
			"   jobevent cancel file:///var/lib/jobevent?prefix=jobs/wordcount/",
		Description: "Writes the log's cancel object. The master holding the job (embedded, a `jobevent master`\n" +
			"process, or one that recovers the job later) sees it at its next heartbeat and ends the job\n" +
			"as SIGTERM would: job_finished with status canceled, exit code 1 for `run`. A job that has\n" +
			"already ended is left alone.",
		Flags:  []cli.Flag{formatFlag("table", "json")},
		Action: runCancel,
	}
}

// cancelResult is what cancel prints.
type cancelResult struct {
	Log       string `json:"log"`
	Job       string `json:"job"`
	Requested bool   `json:"requested"` // false: the job had already ended
	Status    string `json:"status"`    // the job's status as the log has it ("" while running)
}

func runCancel(c *cli.Context) error {
	if err := wantArgs(c, 1, 1); err != nil {
		return err
	}
	arg := c.Args().First()
	if isJSONLPath(arg) {
		return fmt.Errorf("%s: cancel needs a bucket log, not a JSONL file", arg)
	}
	src, err := openSource(c.Context, arg, sourceOptions{})
	if err != nil {
		return err
	}
	state, err := replay.Fold(src, 0)
	src.Close()
	if err != nil {
		return err
	}
	res := cancelResult{Log: arg, Job: state.Job(), Status: state.Status()}
	if res.Status == "" {
		log, err := blob.Open(c.Context, arg)
		if err != nil {
			return err
		}
		defer log.Close()
		host, _ := os.Hostname()
		if err := log.RequestCancel(c.Context, host); err != nil {
			return err
		}
		res.Requested = true
	}
	if c.String("format") == "json" {
		return writeJSON(c.App.Writer, res)
	}
	if !res.Requested {
		_, err = fmt.Fprintf(c.App.Writer, "job %s has already ended (%s): nothing to cancel\n", res.Job, res.Status)
		return err
	}
	_, err = fmt.Fprintf(c.App.Writer, "asked the master of job %s to cancel it: it stops at its next heartbeat\n", res.Job)
	return err
}
