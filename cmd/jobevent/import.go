package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/internal/human"
	"github.com/jobevent/jobevent/internal/progress"
	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/format"
)

func newImportCommand() *cli.Command {
	return &cli.Command{
		Name:  "import",
		Usage: "write a canonical JSONL file into a new log",
		UsageText: "jobevent import FILE.jsonl|- LOG [--format table|json]\n\n" +
			"EXAMPLES:\n" +
			"   jobevent import testdata/logs/healthy.jsonl 'file:///tmp/jobevents?prefix=wordcount/'\n" +
			"   jobevent dump 's3://ops-logs?prefix=jobs/a/' --format json | jobevent import - ./copy-of-a",
		Description: "Reads canonical JSONL strictly (a wrong type or an unknown field names the line and\n" +
			"field) and writes it as Parquet segments, keeping the seq and epoch of every event, plus\n" +
			"one epochs/ object per epoch. It does not judge the job (that is \"jobevent validate\"), but\n" +
			"refuses input that would not read back as the same log: a first seq other than 1, a seq\n" +
			"repeated or skipped, an epoch going back, a time or an event a segment cannot hold. All of\n" +
			"it is checked and encoded before anything is written (stdin is spooled to a temporary\n" +
			"file), and a failed write removes what it wrote; a log that already holds events is\n" +
			"refused. The summary\n" +
			"goes to stderr (--format json: a JSON object on stdout; --quiet: none). On a terminal a\n" +
			"progress bar shows each pass.",
		Flags:  []cli.Flag{formatFlag("table", "json"), quietFlag()},
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
	if isJSONLPath(url) {
		// Every reader would take the directory import creates for a
		// JSONL file and call it corrupt.
		return usagef(c, "LOG %q is a JSONL file name (or an existing file), which readers read as JSONL: import writes a bucket log (a directory or URL); to copy a JSONL file, copy it", url)
	}
	p := newProgress(c)
	defer p.Done()
	p.Start("import: reading stdin", 0, progress.Bytes) // shown only while stdin is spooled
	in, name, err := openImportInput(file, p.Reader(c.App.Reader))
	if err != nil {
		return err
	}
	defer in.close()
	// The input is checked whole first, so that a syntax error never
	// leaves a half-imported log behind.
	events, err := checkSyntax(in.f, name, p)
	if err != nil {
		return err
	}
	if events == 0 {
		return fmt.Errorf("%s holds no events: nothing to import (a log starts with job_submitted at seq 1)", name)
	}
	log, err := blob.Create(c.Context, url)
	if err != nil {
		return err
	}
	defer log.Close()
	p.Start("import: writing", events, progress.Events)
	src := &namedJSONReader{name: name, r: format.NewJSONReader(in.f), p: p}
	stats, err := blob.Import(c.Context, log, src, blob.ImportOptions{})
	p.Done()
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
	if c.Bool("quiet") {
		return nil
	}
	fmt.Fprintf(c.App.ErrWriter, "imported %s into %s: %s, %s\n",
		human.Count(sum.Events, "event"), url, human.Count(sum.Segments, "segment"), human.Count(sum.Epochs, "epoch"))
	return nil
}

// importInput is import's FILE argument, opened for two passes.
type importInput struct {
	f     *os.File
	spool bool // f is a temporary copy of stdin
}

// openImportInput opens import's FILE argument. "-" is stdin, spooled to
// a temporary file so that it can be read twice.
func openImportInput(file string, stdin io.Reader) (*importInput, string, error) {
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return nil, "", err
		}
		return &importInput{f: f}, file, nil
	}
	f, err := os.CreateTemp("", "jobevent-import-*.jsonl")
	if err != nil {
		return nil, "", fmt.Errorf("spool stdin: %w", err)
	}
	in := &importInput{f: f, spool: true}
	if _, err := io.Copy(f, stdin); err != nil {
		in.close()
		return nil, "", fmt.Errorf("read stdin: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		in.close()
		return nil, "", fmt.Errorf("spool stdin: %w", err)
	}
	return in, "stdin", nil
}

func (in *importInput) close() {
	in.f.Close()
	if in.spool {
		os.Remove(in.f.Name())
	}
}

// checkSyntax reads every event of f, counting the bytes read into p, and
// rewinds it. It returns the number of events.
func checkSyntax(f *os.File, name string, p *progress.Reporter) (int64, error) {
	var size int64
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	p.Start("import: checking", size, progress.Bytes)
	r := &namedJSONReader{name: name, r: format.NewJSONReader(p.Reader(f))}
	var n int64
	for {
		_, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return n, err
		}
		n++
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return n, fmt.Errorf("%s: %w", name, err)
	}
	return n, nil
}

// namedJSONReader prefixes syntax errors with the input's name, and counts
// the events read into a progress line when it has one.
type namedJSONReader struct {
	name string
	r    *format.JSONReader
	p    *progress.Reporter // nil: none
}

func (r *namedJSONReader) Next() (format.Event, error) {
	e, err := r.r.Next()
	if err != nil && err != io.EOF {
		return e, fmt.Errorf("%s: %w", r.name, err)
	}
	if err == nil && r.p != nil {
		r.p.Add(1)
	}
	return e, err
}
