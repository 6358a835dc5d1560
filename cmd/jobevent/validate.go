package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/internal/answer"
	"github.com/jobevent/jobevent/internal/human"
	"github.com/jobevent/jobevent/internal/progress"
	"github.com/jobevent/jobevent/internal/quote"
	"github.com/jobevent/jobevent/pkg/logsource"
	"github.com/jobevent/jobevent/pkg/replay"
)

func newValidateCommand() *cli.Command {
	return &cli.Command{
		Name:  "validate",
		Usage: "check that logs are well-formed (a CI gate)",
		UsageText: "jobevent validate LOG... [--strict] [--format table|json|github]\n\n" +
			"EXAMPLES:\n" +
			"   jobevent validate 'file:///var/lib/jobevent?prefix=jobs/wordcount/'\n" +
			"   jobevent validate testdata/logs/*.jsonl --strict --format github",
		Description: "Checks every rule of the event model (seq gap-free, epochs, the attempt state machine,\n" +
			"references to vertices and subtasks, ...) and reports each violation as a finding with a\n" +
			"rule id. Corruption is an error finding naming the object; a torn tail and fenced rows\n" +
			"are warnings. Exit 1 when there is an error finding (--strict: any finding).\n" +
			"--format github prints workflow annotations (::error file=...,title=RULE::seq N: ...).\n" +
			"On a terminal a progress bar counts the events checked (not with --quiet).",
		Flags: withFlinkFlags(
			&cli.BoolFlag{Name: "strict", Usage: "exit 1 on warnings too"},
			formatFlag("table", "json", "github"),
			quietFlag(),
		),
		Action: runValidate,
	}
}

// logFinding is a finding of one of the logs validated (answer.Finding).
type logFinding = answer.Finding

func runValidate(c *cli.Context) error {
	if err := wantArgs(c, 1, -1); err != nil {
		return err
	}
	var all []logFinding
	bar := newProgress(c)
	defer bar.Done()
	fo, err := flinkOptionsOf(c)
	if err != nil {
		return err
	}
	flinkSeen := false
	for i, arg := range c.Args().Slice() {
		fs, isFlink, err := validateLog(c, arg, fo, bar, i)
		if err != nil {
			return err
		}
		flinkSeen = flinkSeen || isFlink
		all = append(all, answer.LogFindings(arg, fs)...)
	}
	bar.Done()
	if !flinkSeen && fo != nil {
		return &usageError{msg: (&logsource.FlinkOptionsError{Given: fo.Given, Arg: c.Args().First()}).Error()}
	}
	if err := printFindings(c, all); err != nil {
		return err
	}
	errs, warns := countFindings(all)
	if errs > 0 || (c.Bool("strict") && warns > 0) {
		return findings("validate: %s, %s", human.Count(errs, "error"), human.Count(warns, "warning"))
	}
	return nil
}

// validateLog validates one log (answer.Validate), counting the events
// read on the progress line.
func validateLog(c *cli.Context, arg string, fo *logsource.FlinkOptions, bar *progress.Reporter, i int) (fs []replay.Finding, isFlink bool, err error) {
	return answer.Validate(c.Context, arg, fo, bar, func(src logsource.Source) {
		if bar.Enabled() {
			bar.Start(validateLabel(arg, i, c.NArg()), eventTotal(c.Context, src, 0, 0), progress.Events)
		}
	})
}

// validateLabel names the log being validated on the progress line: the
// i-th (from 0) of n.
func validateLabel(arg string, i, n int) string {
	if n == 1 {
		return "validate " + arg
	}
	return fmt.Sprintf("validate %d/%d %s", i+1, n, arg)
}

func countFindings(fs []logFinding) (errs, warns int) {
	for _, f := range fs {
		if f.Severity == "error" {
			errs++
		} else {
			warns++
		}
	}
	return errs, warns
}

func printFindings(c *cli.Context, fs []logFinding) error {
	w := c.App.Writer
	switch c.String("format") {
	case "json":
		if fs == nil {
			fs = []logFinding{}
		}
		return writeJSON(w, fs)
	case "github":
		for _, f := range fs {
			printAnnotation(w, f)
		}
		return nil
	}
	if len(fs) == 0 {
		fmt.Fprintf(w, "%s: no findings\n", human.Count(c.NArg(), "log"))
		return nil
	}
	t := newTable(w, "log", "severity", "seq", "key", "rule", "message")
	for _, f := range fs {
		seq := ""
		if f.Seq > 0 {
			seq = strconv.FormatInt(f.Seq, 10)
		}
		if err := t.Append(f.Log, f.Severity, seq, f.Key, f.Rule, f.Message); err != nil {
			return fmt.Errorf("validate: table: %w", err)
		}
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("validate: table: %w", err)
	}
	return nil
}

// printAnnotation writes f as a GitHub Actions workflow command. The file
// is the JSONL file, or the object inside a local log directory; for a
// bucket URL it is the URL, and the message names the object.
func printAnnotation(w io.Writer, f logFinding) {
	level := "warning"
	if f.Severity == "error" {
		level = "error"
	}
	file, msg := f.Log, f.Message
	if f.Seq > 0 {
		msg = fmt.Sprintf("seq %d: %s", f.Seq, msg)
	}
	if f.Key != "" {
		if strings.Contains(f.Log, "://") {
			msg += " (object " + f.Key + ")"
		} else {
			file = filepath.Join(f.Log, filepath.FromSlash(f.Key))
		}
	}
	props := "file=" + escapeProperty(file)
	if f.Line > 0 {
		props += ",line=" + strconv.Itoa(f.Line)
	}
	fmt.Fprintf(w, "::%s %s,title=%s::%s\n", level, props, escapeProperty(f.Rule), escapeData(quote.Line(msg)))
}

// escapeData escapes the message of a workflow command, as GitHub's
// toolkit does (escapeData in @actions/core): %, CR and LF.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a property value of a workflow command, as
// GitHub's toolkit does (escapeProperty): %, CR, LF, ':' and ','. Text
// from the log is made safe first (quote.Line): no escape bytes.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(quote.Line(s))
}
