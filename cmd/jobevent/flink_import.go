package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/internal/human"
	"github.com/jobevent/jobevent/pkg/blob"
)

// withFlinkImport adds the flink flags to the import command and imports
// a Flink job-events directory given as its FILE: the events read by
// package flink, written as a jobevent log. Flink deletes its log when the
// job ends; the copy keeps it. Its masters keep their names
// ("flink-jobmaster <graph id>"), by which replay --dry-run knows to plan
// it with the Flink profile.
func withFlinkImport(cmd *cli.Command) *cli.Command {
	cmd.Flags = append(cmd.Flags, flinkPlanFlag(), coordinatorFlag())
	cmd.UsageText = "jobevent import FILE.jsonl|-|FLINK_DIR LOG [--flink-plan FILE] [--coordinator VERTEX=KIND]... [--format table|json]\n" +
		"   (FLINK_DIR: a Flink job-events directory, local or on a bucket; docs/flink.md)\n" + cmd.UsageText[len("jobevent import FILE.jsonl|- LOG [--format table|json]\n"):]
	inner := cmd.Action
	cmd.Action = func(c *cli.Context) error {
		fo, err := flinkOptionsOf(c)
		if err != nil {
			return err
		}
		if c.NArg() == 2 && isFlinkLog(c.Context, c.Args().Get(0)) {
			return runFlinkImport(c, fo)
		}
		if c.NArg() > 0 {
			if err := fo.refuse(c.Args().Get(0)); err != nil {
				return err
			}
		}
		return inner(c)
	}
	return cmd
}

// runFlinkImport writes the events of a Flink log into a new jobevent log.
func runFlinkImport(c *cli.Context, fo *flinkOptions) error {
	dir, url := c.Args().Get(0), c.Args().Get(1)
	if isJSONLPath(url) {
		return usagef(c, "LOG %q is a JSONL file name: import writes a bucket log (a directory or URL)", url)
	}
	src, err := openSource(c.Context, dir, sourceOptions{flink: fo})
	if err != nil {
		return err
	}
	defer src.Close()
	printNotices(c.App.ErrWriter, src.Notices())
	log, err := blob.Create(c.Context, url)
	if err != nil {
		return err
	}
	defer log.Close()
	stats, err := blob.Import(c.Context, log, src, blob.ImportOptions{})
	if errors.Is(err, blob.ErrLogExists) {
		return fmt.Errorf("%s already holds events: import writes new logs only", url)
	}
	if err != nil {
		return err
	}
	sum := importSummary{Log: url, Events: stats.Events, Segments: stats.Segments, Epochs: stats.Epochs}
	if c.String("format") == "json" {
		return writeJSON(c.App.Writer, sum)
	}
	if !c.Bool("quiet") {
		fmt.Fprintf(c.App.ErrWriter, "imported %s of the Flink log %s into %s: %s, %s\n",
			human.Count(sum.Events, "event"), dir, url, human.Count(sum.Segments, "segment"), human.Count(sum.Epochs, "epoch"))
	}
	return nil
}
