package main

import (
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/internal/answer"
	"github.com/jobevent/jobevent/pkg/format"
)

// formatFlag is the --format flag of a command; the first value is the
// default. A value outside the list is a usage error.
func formatFlag(values ...string) *cli.StringFlag {
	return &cli.StringFlag{
		Name:  "format",
		Usage: "output `FORMAT`: " + orList(values),
		Value: values[0],
		Action: func(c *cli.Context, v string) error {
			for _, ok := range values {
				if v == ok {
					return nil
				}
			}
			return usagef(c, "bad --format %q: want %s", v, orList(values))
		},
	}
}

// orList renders ["a","b","c"] as "a, b or c" (answer.OrList).
func orList(values []string) string { return answer.OrList(values) }

// writeJSON writes v to w as every answer's JSON is written (answer.WriteJSON).
func writeJSON(w io.Writer, v any) error { return answer.WriteJSON(w, v) }

// printNotices writes the notices of a reader as warnings on w. Covered
// segments are the normal result of compaction and are not reported.
func printNotices(w io.Writer, notices []format.Notice) {
	for _, n := range notices {
		if n.Kind == format.NoticeCovered {
			continue
		}
		warnf(w, "%s", n.String())
	}
}

// newTable returns a tablewriter table with the given header, upper-cased
// like the header of dump's table.
func newTable(w io.Writer, header ...string) *tablewriter.Table {
	t := tablewriter.NewTable(w,
		tablewriter.WithHeaderAutoFormat(tw.On),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
	)
	t.Header(toAny(header)...)
	return t
}

func toAny(s []string) []any {
	a := make([]any, len(s))
	for i, v := range s {
		a[i] = v
	}
	return a
}

// jobLabel is how text output names a job: its id, or "(unknown job)"
// for a log that names none (a Flink log copied out of its job's
// directory, without a plan).
func jobLabel(id string) string {
	if id == "" {
		return "(unknown job)"
	}
	return id
}
