package main

import (
	"io"

	"github.com/jobevent/jobevent/internal/answer"
	"github.com/jobevent/jobevent/pkg/format"
)

// A log without times (a Flink log: logsource.TimesNone) is dumped without
// any: its JSON has "time": null (docs/flink.md), the table and CSV an
// empty time column. Other logs' output is unchanged.

// newTimelessEventPrinter returns dump's printer for the events of a log
// without times.
func newTimelessEventPrinter(name string, w io.Writer) eventPrinter {
	switch name {
	case "json":
		return answer.NewEventJSONWriter(w, true)
	case "csv":
		p := newCSVPrinter(w)
		p.row = timelessEventRow
		return p
	default:
		t := newTablePrinter(w, false)
		t.row = timelessEventRow
		return t
	}
}

// timelessEventRow is eventRow without a time.
func timelessEventRow(e *format.Event) []string {
	row := eventRow(e)
	row[1] = ""
	return row
}
