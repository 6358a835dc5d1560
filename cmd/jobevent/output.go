package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/internal/human"
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

// orList renders ["a","b","c"] as "a, b or c".
func orList(values []string) string {
	if len(values) == 1 {
		return values[0]
	}
	return strings.Join(values[:len(values)-1], ", ") + " or " + values[len(values)-1]
}

// writeJSON writes v to w as indented JSON followed by a newline, with
// every number of seconds rounded to the millisecond (roundSeconds).
func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	if _, err := w.Write(roundSeconds(buf.Bytes())); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	return nil
}

// secondsValue matches a key that holds a number of seconds and its
// value, in JSON as encoding/json writes it: "wall_seconds": 3.0405581710000003.
// A key inside a string value cannot match: its quotes are escaped.
var secondsValue = regexp.MustCompile(`("(?:[a-z_]*_)?seconds": )(-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)`)

// roundSeconds rounds the value of every "seconds" or "*_seconds" key of
// the JSON data to the millisecond (human.RoundSeconds): 3.041, not
// 3.0405581710000003. Those values measure times, which the log records
// to the millisecond or less precisely anyway.
func roundSeconds(data []byte) []byte {
	return secondsValue.ReplaceAllFunc(data, func(m []byte) []byte {
		sub := secondsValue.FindSubmatch(m)
		v, err := strconv.ParseFloat(string(sub[2]), 64)
		if err != nil {
			return m
		}
		return strconv.AppendFloat(sub[1], human.RoundSeconds(v), 'f', -1, 64)
	})
}

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
