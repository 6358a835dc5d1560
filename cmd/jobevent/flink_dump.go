package main

import (
	"bytes"
	"io"

	"github.com/jobevent/jobevent/pkg/format"
)

// Flink records no times: dump prints the events of a Flink log without
// any. Their JSON has "time": null (docs/flink.md), the table and CSV an
// empty time column. Other logs' output is unchanged.

// newFlinkEventPrinter returns dump's printer for the events of a Flink
// log.
func newFlinkEventPrinter(name string, w io.Writer) eventPrinter {
	switch name {
	case "json":
		return &flinkJSONPrinter{w: w}
	case "csv":
		p := newCSVPrinter(w)
		p.row = flinkEventRow
		return p
	default:
		t := newTablePrinter(w, false)
		t.row = flinkEventRow
		return t
	}
}

// flinkEventRow is eventRow without a time.
func flinkEventRow(e *format.Event) []string {
	row := eventRow(e)
	row[1] = ""
	return row
}

// flinkJSONPrinter writes canonical JSONL lines with "time": null.
type flinkJSONPrinter struct {
	w   io.Writer
	buf []byte
}

// zeroTime is how canonical JSON writes the zero time of a Flink event.
var zeroTime = []byte(`,"time":"0001-01-01T00:00:00.000000000Z",`)

func (p *flinkJSONPrinter) Write(e *format.Event) error {
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

func (p *flinkJSONPrinter) Flush() error {
	_, err := p.w.Write(p.buf)
	p.buf = p.buf[:0]
	return err
}
