package main

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/internal/answer"
	"github.com/jobevent/jobevent/internal/human"
	"github.com/jobevent/jobevent/internal/report"
	"github.com/jobevent/jobevent/pkg/blob"
)

func newLsCommand() *cli.Command {
	return &cli.Command{
		Name:  "ls",
		Usage: "list the job logs under a bucket or prefix",
		UsageText: "jobevent ls BUCKET [--format table|json]\n\n" +
			"EXAMPLES:\n" +
			"   jobevent ls file:///var/lib/jobevent\n" +
			"   jobevent ls 's3://ops-logs?prefix=jobs/&region=eu-west-1' --format json | jq -r '.logs[] | select(.finished | not) | .log'",
		Description: "Finds every log at or below BUCKET's prefix (a prefix holding job.yaml or events/) and\n" +
			"prints, for each: its prefix, job id, epochs, segments, events (as read: covered segments\n" +
			"and fenced rows left out), bytes, when it was last modified (by the bucket's clock) and\n" +
			"whether the job finished. It reads each log whole, as status does, so a damaged segment\n" +
			"anywhere in it makes the log damaged (the problem named on stderr). Flink jobs' job-events\n" +
			"directories (<storageDir>/<cluster-id>/<job id>/job-events, docs/flink.md) are listed too,\n" +
			"with status flink; each is read whole.",
		Flags:  []cli.Flag{formatFlag("table", "json")},
		Action: runLs,
	}
}

func runLs(c *cli.Context) error {
	if err := wantArgs(c, 1, 1); err != nil {
		return err
	}
	listing, err := answer.ListJobs(c.Context, c.Args().First())
	if err != nil {
		return err
	}
	logs := listing.Logs
	for _, s := range logs {
		if s.Problem != "" {
			warnf(c.App.ErrWriter, "%s: %s", s.URL, s.Problem)
		}
	}
	if c.String("format") == "json" {
		return writeJSON(c.App.Writer, listing)
	}
	return printLs(c.App.Writer, listing.Bucket, logs)
}

// printLs writes the table form of ls.
func printLs(w io.Writer, bucket string, logs []*blob.Summary) error {
	if len(logs) == 0 {
		fmt.Fprintf(w, "no job logs under %s\n", bucket)
		return nil
	}
	t := newTable(w, "prefix", "job", "epochs", "segments", "events", "bytes", "last modified", "status")
	for _, s := range logs {
		prefix := s.Prefix
		if prefix == "" {
			prefix = "(root)"
		}
		modified := "-"
		if !s.LastModified.IsZero() {
			modified = s.LastModified.UTC().Format(time.RFC3339)
		}
		err := t.Append(prefix, orDash(s.Job), strconv.Itoa(s.Epochs), strconv.Itoa(s.Segments),
			strconv.FormatInt(s.Events, 10), report.HumanBytes(s.Bytes), modified, s.Status)
		if err != nil {
			return fmt.Errorf("ls: table: %w", err)
		}
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("ls: table: %w", err)
	}
	fmt.Fprintf(w, "%s under %s\n", human.Count(len(logs), "log"), bucket)
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
