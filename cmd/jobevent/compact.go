package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/internal/human"
	"github.com/jobevent/jobevent/internal/report"
	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/logsource"
)

func newCompactCommand() *cli.Command {
	return &cli.Command{
		Name:  "compact",
		Usage: "merge runs of small segments into covering segments",
		UsageText: "jobevent compact LOG [--target-size BYTES] [--dry-run] [--quiet] [--format table|json]\n\n" +
			"EXAMPLES:\n" +
			"   jobevent compact 'file:///var/lib/jobevent?prefix=jobs/wordcount/'\n" +
			"   jobevent compact 's3://ops-logs?prefix=jobs/wordcount/' --target-size 4MiB --dry-run",
		Description: "Merges runs of consecutive small segments of one epoch into one covering segment each,\n" +
			"named by the seq range it covers, then deletes the parts. Readers prefer a covering segment\n" +
			"to the segments it covers, so a crash at any step loses and duplicates nothing as read, and\n" +
			"the next compact deletes the parts an interrupted one left. Rows of fenced masters are kept\n" +
			"as stored (readers filter them, validate reports them). Left alone: segments of only fenced\n" +
			"rows, torn segments, and the newest segment of a job that has not finished (its master may\n" +
			"still be writing). It is safe while masters write and readers read; two compactions of one\n" +
			"log do not run at once (the second fails: the log's compact.lock is held).\n\n" +
			"--target-size bounds the bytes merged into one covering segment (default 8MiB, at most\n" +
			"15MiB: every segment stays a single upload); it takes a number of bytes or KiB/MiB.\n" +
			"--quiet prints no report (errors still go to stderr; --format json still prints its object),\n" +
			"for cron jobs.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "target-size", Usage: "merge at most `BYTES` into one covering segment", Value: "8MiB"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print what would be merged and change nothing"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print no report in table form (errors are still printed)"},
			formatFlag("table", "json"),
		},
		Action: runCompact,
	}
}

func runCompact(c *cli.Context) error {
	if err := wantArgs(c, 1, 1); err != nil {
		return err
	}
	target, err := parseSize(c.String("target-size"))
	if err != nil || target <= 0 || target > blob.MaxSegmentBytes {
		return usagef(c, "bad --target-size %q: want a size from 1 to 15MiB, e.g. 8MiB or 4194304", c.String("target-size"))
	}
	arg := c.Args().First()
	if logsource.IsJSONLPath(arg) {
		return fmt.Errorf("%s: compact needs a bucket log, not a JSONL file", arg)
	}
	log, err := openExistingLog(c, arg)
	if err != nil {
		return err
	}
	defer log.Close()
	res, err := blob.Compact(c.Context, log, blob.CompactOptions{TargetSize: target, DryRun: c.Bool("dry-run")})
	if errors.Is(err, blob.ErrCompacting) {
		return fmt.Errorf("%s: %w", arg, err)
	}
	if err != nil {
		return err
	}
	if c.String("format") == "json" {
		return writeJSON(c.App.Writer, res)
	}
	if c.Bool("quiet") {
		return nil
	}
	return printCompact(c.App.Writer, res)
}

// printCompactPlan writes the summary line of a dry run.
func printCompactPlan(w io.Writer, res *blob.CompactResult) {
	fmt.Fprintf(w, "would compact %s: %s (%s) -> %s", res.URL, human.Count(res.SegmentsBefore, "segment"),
		report.HumanBytes(res.BytesBefore), human.Count(res.SegmentsAfter, "segment"))
	if len(res.Covering) > 0 {
		parts := 0
		for _, cv := range res.Covering {
			parts += cv.Parts
		}
		fmt.Fprintf(w, " (%d merged into %s)", parts, human.Count(len(res.Covering), "covering segment"))
	}
	fmt.Fprintln(w)
}

// openExistingLog opens a LOG argument that must hold a log.
func openExistingLog(c *cli.Context, arg string) (*blob.Log, error) {
	log, err := blob.Open(c.Context, arg)
	if err != nil {
		return nil, err
	}
	ok, err := log.Exists(c.Context)
	if err == nil && !ok {
		err = &blob.NoLogError{URL: arg}
	}
	if err != nil {
		log.Close()
		return nil, err
	}
	return log, nil
}

// parseSize parses "4194304", "512KiB", "8MiB" (also KB/MB, K/M, as
// binary units).
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"K", 1 << 10}, {"M", 1 << 20}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if len(s) > len(u.suffix) && s[len(s)-len(u.suffix):] == u.suffix {
			s, mult = s[:len(s)-len(u.suffix)], u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > (1<<40)/mult {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n * mult, nil
}

// printCompact writes the table form of res.
func printCompact(w io.Writer, res *blob.CompactResult) error {
	if res.DryRun {
		printCompactPlan(w, res)
	} else {
		fmt.Fprintf(w, "compacted %s: %s (%s) -> %s (%s)\n", res.URL, human.Count(res.SegmentsBefore, "segment"),
			report.HumanBytes(res.BytesBefore), human.Count(res.SegmentsAfter, "segment"), report.HumanBytes(res.BytesAfter))
	}
	if res.Leftovers > 0 {
		verb := "deleted"
		if res.DryRun {
			verb = "to delete"
		}
		fmt.Fprintf(w, "%s of an earlier compaction %s\n", human.Count(res.Leftovers, "covered segment"), verb)
	}
	if len(res.Covering) > 0 {
		fmt.Fprintln(w)
		t := newTable(w, "covering segment", "parts", "events", "bytes")
		for _, cv := range res.Covering {
			if err := t.Append(cv.Key, strconv.Itoa(cv.Parts), strconv.FormatInt(cv.Events, 10), report.HumanBytes(cv.Bytes)); err != nil {
				return fmt.Errorf("compact: table: %w", err)
			}
		}
		if err := t.Render(); err != nil {
			return fmt.Errorf("compact: table: %w", err)
		}
	} else {
		fmt.Fprintln(w, "nothing to merge")
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(w, "left alone: %s: %s\n", s.Key, s.Reason)
	}
	return nil
}
