package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/internal/human"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/logsource"
	"github.com/jobevent/jobevent/pkg/replay"
)

func newDiffCommand() *cli.Command {
	return &cli.Command{
		Name:  "diff",
		Usage: "compare two logs: replayed state, or event by event",
		UsageText: "jobevent diff LOG_A LOG_B [--events] [--format table|json]\n\n" +
			"EXAMPLES:\n" +
			"   jobevent diff ./before ./after\n" +
			"   jobevent diff testdata/logs/healthy.jsonl testdata/logs/failover.jsonl --events",
		Description: "Compares the replayed state of two logs (graph, parallelism, each subtask's decision and\n" +
			"attempt, partitions, records and bytes, final status). --events aligns the two event\n" +
			"sequences instead, ignoring seq and time (it holds both logs in memory).\n" +
			"Exit 1 when the logs differ.",
		Flags: withFlinkFlags(
			&cli.BoolFlag{Name: "events", Usage: "compare events, not replayed state"},
			formatFlag("table", "json"),
		),
		Action: runDiff,
	}
}

func runDiff(c *cli.Context) error {
	if err := wantArgs(c, 2, 2); err != nil {
		return err
	}
	a, b, err := openDiffLogs(c)
	if err != nil {
		return err
	}
	defer a.Close()
	defer b.Close()
	var res *replay.DiffResult
	if c.Bool("events") {
		res, err = replay.DiffEvents(a, b)
	} else {
		res, err = diffStates(a, b)
	}
	printNotices(c.App.ErrWriter, a.Notices())
	printNotices(c.App.ErrWriter, b.Notices())
	if err != nil {
		return err
	}
	if err := printDiff(c, res); err != nil {
		return err
	}
	if !res.Equal() {
		return findings("")
	}
	return nil
}

func diffStates(a, b logsource.Source) (*replay.DiffResult, error) {
	sa, err := replay.Fold(a, 0)
	if err != nil {
		return nil, err
	}
	sb, err := replay.Fold(b, 0)
	if err != nil {
		return nil, err
	}
	return replay.Diff(sa, sb), nil
}

func printDiff(c *cli.Context, res *replay.DiffResult) error {
	w := c.App.Writer
	if c.String("format") == "json" {
		return writeJSON(w, res)
	}
	if res.Equal() {
		fmt.Fprintln(w, "no differences")
		return nil
	}
	withSeqs := false
	for _, d := range res.Differences {
		withSeqs = withSeqs || d.SeqA != 0 || d.SeqB != 0
	}
	header := []string{"path", "a", "b"}
	if withSeqs {
		header = append(header, "seq a", "seq b")
	}
	fmt.Fprintln(w, human.Count(len(res.Differences), "difference"))
	t := newTable(w, header...)
	for _, d := range res.Differences {
		row := []string{d.Path, clip(diffValue(d.A)), clip(diffValue(d.B))}
		if withSeqs {
			row = append(row, seqCell(d.SeqA), seqCell(d.SeqB))
		}
		if err := t.Append(row); err != nil {
			return fmt.Errorf("diff: table: %w", err)
		}
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("diff: table: %w", err)
	}
	return nil
}

// diffValue renders one side of a difference: "-" when absent, strings
// as they are, a whole event as a one-line summary, anything else as
// compact JSON.
func diffValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "-"
	case string:
		return v
	case json.RawMessage:
		if e, err := format.NewJSONReader(bytes.NewReader(v)).Next(); err == nil {
			return eventSummary(&e)
		}
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

// maxCell is the widest value the diff table shows; --format json has
// them whole.
const maxCell = 72

// clip shortens s to maxCell runes.
func clip(s string) string {
	r := []rune(s)
	if len(r) <= maxCell {
		return s
	}
	return string(r[:maxCell-3]) + "..."
}

// eventSummary renders an event without its seq and time: epoch, kind,
// subtask, attempt, worker and detail.
func eventSummary(e *format.Event) string {
	row := eventRow(e)
	parts := []string{"epoch " + row[2], row[3]}
	if row[5] != "" {
		parts = append(parts, row[5])
	}
	if row[6] != "" {
		parts[len(parts)-1] += "/" + row[6]
		parts = append(parts, "attempt "+row[7], "on "+row[8])
	}
	if row[9] != "" {
		parts = append(parts, row[9])
	}
	return strings.Join(parts, " ")
}

func seqCell(seq int64) string {
	if seq == 0 {
		return ""
	}
	return strconv.FormatInt(seq, 10)
}

// openDiffLogs opens diff's two logs. The Flink flags go to whichever of
// them is a Flink log; with neither, they are a usage error.
func openDiffLogs(c *cli.Context) (a, b logsource.Source, err error) {
	fo, err := flinkOptionsOf(c)
	if err != nil {
		return nil, nil, err
	}
	var srcs [2]logsource.Source
	var refused error
	fits := 0
	for i := range srcs {
		arg := c.Args().Get(i)
		srcs[i], err = openLog(c, arg, logsource.Options{Flink: fo})
		var ue *usageError
		if fo != nil && errors.As(err, &ue) {
			if refused == nil {
				refused = ue // not a Flink log: the flags must fit the other
			}
			srcs[i], err = openLog(c, arg, logsource.Options{})
		} else if err == nil {
			fits++
		}
		if err != nil {
			if i == 1 {
				srcs[0].Close()
			}
			return nil, nil, err
		}
	}
	if fo != nil && fits == 0 {
		srcs[0].Close()
		srcs[1].Close()
		return nil, nil, refused
	}
	return srcs[0], srcs[1], nil
}
