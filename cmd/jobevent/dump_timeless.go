package main

import (
	"bytes"
	"io"

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
		return &timelessJSONPrinter{w: w}
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

// timelessJSONPrinter writes canonical JSONL lines with "time": null.
type timelessJSONPrinter struct {
	w   io.Writer
	buf []byte
}

// zeroTime is how canonical JSON writes the zero time of an event.
var zeroTime = []byte(`,"time":"0001-01-01T00:00:00.000000000Z",`)

func (p *timelessJSONPrinter) Write(e *format.Event) error {
	line := format.AppendJSON(nil, e)
	if i := bytes.Index(line, zeroTime); i >= 0 {
		line = append(append(line[:i:i], `,"time":null,`...), line[i+len(zeroTime):]...)
	}
	p.buf = append(p.buf, line...)
	if len(p.buf) < 64<<10 {
		return nil
	}
	return p.Flush()
}

func (p *timelessJSONPrinter) Flush() error {
	_, err := p.w.Write(p.buf)
	p.buf = p.buf[:0]
	return err
}
