package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/internal/gcstart"
	"github.com/jobevent/jobevent/internal/human"
	"github.com/jobevent/jobevent/internal/progress"
	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/logsource"
)

func newImportCommand() *cli.Command {
	return &cli.Command{
		Name:  "import",
		Usage: "write a canonical JSONL file into a new log",
		UsageText: "jobevent import FILE.jsonl|-|FLINK_DIR LOG [--flink-plan FILE] [--coordinator VERTEX=KIND]... [--format table|json]\n" +
			"   (FLINK_DIR: a Flink job-events directory, local or on a bucket; docs/flink.md)\n\n" +
			"EXAMPLES:\n" +
			"   jobevent import testdata/logs/healthy.jsonl 'file:///tmp/jobevents?prefix=wordcount/'\n" +
			"   jobevent dump 's3://ops-logs?prefix=jobs/a/' --format json | jobevent import - ./copy-of-a",
		Description: "Reads canonical JSONL strictly (a wrong type or an unknown field names the line and\n" +
			"field) and writes it as Parquet segments, keeping the seq and epoch of every event, plus\n" +
			"one epochs/ object per epoch. It does not judge the job (that is \"jobevent validate\"), but\n" +
			"refuses input that would not read back as the same log: a first seq other than 1, a seq\n" +
			"repeated or skipped, an epoch going back, a time or an event a segment cannot hold. All of\n" +
			"it is read once and checked before anything is written, and encoded into a temporary\n" +
			"directory (the last segments may still be encoding while the first are written, once\n" +
			"nothing in them can be refused); a failed write removes what it wrote, and a log that\n" +
			"already holds events is refused. The summary goes to stderr (--format json: a JSON object\n" +
			"on stdout; --quiet: none). On a terminal a progress bar shows the bytes read.",
		Flags:  withFlinkFlags(formatFlag("table", "json"), quietFlag()),
		Action: runImport,
	}
}

// importSummary is what import prints.
type importSummary struct {
	Log      string `json:"log"`
	Events   int64  `json:"events"`
	Segments int    `json:"segments"`
	Epochs   int    `json:"epochs"`
}

func runImport(c *cli.Context) error {
	if err := wantArgs(c, 2, 2); err != nil {
		return err
	}
	file, url := c.Args().Get(0), c.Args().Get(1)
	if logsource.IsJSONLPath(url) {
		// Every reader would take the directory import creates for a
		// JSONL file and call it corrupt.
		return usagef(c, "LOG %q is a JSONL file name (or an existing file), which readers read as JSONL: import writes a bucket log (a directory or URL); to copy a JSONL file, copy it", url)
	}
	fo, err := flinkOptionsOf(c)
	if err != nil {
		return err
	}
	p := newProgress(c)
	defer p.Done()
	input := func(r io.Reader, size int64) io.Reader {
		p.Start("import: reading", size, progress.Bytes)
		return p.Reader(r)
	}
	src, err := openLog(c, file, logsource.Options{Raw: true, Input: input, Flink: fo})
	if err != nil {
		return err
	}
	defer src.Close()
	printNotices(c.App.ErrWriter, src.Notices())
	// The input is read and checked whole before the log is touched, so
	// that a bad line never leaves a half-imported log behind; Write
	// writes the segments as their encoding, which can no longer refuse
	// anything, ends.
	defer relaxGC()()
	staged, err := blob.StageImport(c.Context, src, blob.ImportOptions{})
	p.Done()
	if err != nil {
		return err
	}
	defer staged.Close()
	name := src.Info().Arg
	if name == "-" {
		name = "stdin"
	}
	if staged.Events() == 0 {
		return fmt.Errorf("%s holds no events: nothing to import (a log starts with job_submitted at seq 1)", name)
	}
	log, err := blob.Create(c.Context, url)
	if err != nil {
		return err
	}
	defer log.Close()
	stats, err := staged.Write(c.Context, log)
	if errors.Is(err, blob.ErrLogExists) {
		return fmt.Errorf("%s already holds events: import writes new logs only", url)
	}
	if err != nil {
		return err
	}
	sum := importSummary{Log: url, Events: stats.Events, Segments: stats.Segments, Epochs: stats.Epochs}
	gone := "" // an in-memory bucket lives as long as the process
	if strings.HasPrefix(url, "mem://") {
		gone = " (an in-memory bucket: the log is gone when import exits; import into a directory or a cloud bucket to keep it)"
		if c.String("format") == "json" || c.Bool("quiet") {
			warnf(c.App.ErrWriter, "%s is an in-memory bucket: the imported log is gone when import exits; import into a directory or a cloud bucket to keep it", url)
		}
	}
	if c.String("format") == "json" {
		return writeJSON(c.App.Writer, sum)
	}
	if c.Bool("quiet") {
		return nil
	}
	of := ""
	if src.Info().Kind == logsource.KindFlink {
		of = " of the Flink log " + file
	}
	fmt.Fprintf(c.App.ErrWriter, "imported %s%s into %s: %s, %s%s\n",
		human.Count(sum.Events, "event"), of, url, human.Count(sum.Segments, "segment"), human.Count(sum.Epochs, "epoch"), gone)
	return nil
}

// importGCPercent is the garbage collector's target (GOGC) while import
// runs, unless GOGC is set. Most of import's heap is its blocks of events,
// two segments' worth, which are live from start to end: with the default
// of 100 the heap's climb to them took more collections, each marking the
// blocks again under write barriers. (With three segments' worth in one
// array each, a 1M-event import took 1.07-1.19 s instead of 0.93 s, means
// of 4-6 runs on 2 cores, at the same peak RSS; with blocks, 4 alternating
// runs each of GOGC 100, 200 and 300 gave medians of 0.61, 0.58 and
// 0.57 s.)
const importGCPercent = 200

// relaxGC sets the collector's target to importGCPercent unless GOGC is
// set, and returns the function that puts the previous one back.
func relaxGC() (restore func()) { return gcstart.SetPercent(importGCPercent) }
