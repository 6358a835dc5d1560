package main

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jobevent/jobevent/pkg/format"
)

// eventDetail is the detail column of dump: the kind's fields that have no
// column of their own, as key=value pairs.
func eventDetail(e *format.Event) string {
	switch e.Kind {
	case format.KindJobSubmitted:
		return graphDetail(e.Graph)
	case format.KindMasterStarted:
		return fmt.Sprintf("master=%s recovering=%t", e.Master, e.Recovering)
	case format.KindVertexInitialized:
		return fmt.Sprintf("parallelism=%d", e.Parallelism)
	case format.KindSubtaskFinished:
		return fmt.Sprintf("records=%d/%d bytes=%d/%d partitions=%s",
			e.RecordsIn, e.RecordsOut, e.BytesIn, e.BytesOut, partitionsDetail(e.Partitions))
	case format.KindSubtaskFailed:
		return "error=" + strconv.Quote(e.Error)
	case format.KindSubtasksReset:
		refs := make([]string, len(e.Subtasks))
		for i, r := range e.Subtasks {
			refs[i] = r.String()
		}
		return fmt.Sprintf("reason=%s subtasks=%s", e.Reason, strings.Join(refs, ","))
	case format.KindSnapshot:
		keys := make([]string, 0, len(e.Coordinators))
		for k := range e.Coordinators {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			keys[i] = fmt.Sprintf("%s(%dB)", k, len(e.Coordinators[k]))
		}
		return "coordinators=" + strings.Join(keys, ",")
	case format.KindJobFinished:
		if e.Error != "" {
			return fmt.Sprintf("status=%s error=%s", e.Status, strconv.Quote(e.Error))
		}
		return "status=" + e.Status
	}
	return ""
}

// graphDetail summarizes a job graph: each vertex with its parallelism
// ("auto" when decided at run time) and coordinator, then the edge count.
func graphDetail(g *format.Graph) string {
	if g == nil {
		return "graph=none"
	}
	vs := make([]string, len(g.Vertices))
	for i, v := range g.Vertices {
		p := strconv.FormatInt(int64(v.Parallelism), 10)
		if v.Parallelism == 0 {
			p = "auto"
		}
		vs[i] = fmt.Sprintf("%s(%s,%s)", v.ID, v.Operator, p)
		if v.Coordinator != "" && v.Coordinator != format.CoordinatorNone {
			vs[i] = fmt.Sprintf("%s(%s,%s,%s)", v.ID, v.Operator, p, v.Coordinator)
		}
	}
	return fmt.Sprintf("vertices=%s edges=%d", strings.Join(vs, ","), len(g.Edges))
}

// partitionsDetail renders a partitions list: "default" when absent (one
// per out-edge), else consumer:records per partition ("none" when empty).
func partitionsDetail(ps []format.Partition) string {
	if ps == nil {
		return "default"
	}
	if len(ps) == 0 {
		return "none"
	}
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = fmt.Sprintf("%s:%d", p.Consumer, p.Records)
	}
	return strings.Join(s, ",")
}

// tablePrinter writes events as an aligned text table without holding the
// log: column widths come from the first sampleRows rows (all of a small
// log), and a later wider cell widens its column from there on. When
// following, rows are not held back at all.
type tablePrinter struct {
	w       *bufio.Writer
	sample  [][]string
	limit   int
	widths  []int
	started bool
	row     func(*format.Event) []string // eventRow, or flinkEventRow
}

// sampleRows is how many rows the table holds back to choose its widths.
const sampleRows = 512

func newTablePrinter(w io.Writer, follow bool) *tablePrinter {
	limit := sampleRows
	if follow {
		limit = 0
	}
	widths := make([]int, len(eventColumns))
	for i, c := range eventColumns {
		widths[i] = len(c)
	}
	return &tablePrinter{w: bufio.NewWriter(w), limit: limit, widths: widths, row: eventRow}
}

// Write adds one event row.
func (t *tablePrinter) Write(e *format.Event) error {
	row := t.row(e)
	if !t.started && len(t.sample) < t.limit {
		t.sample = append(t.sample, row)
		return nil
	}
	if err := t.start(); err != nil {
		return err
	}
	return t.writeRow(row)
}

func (t *tablePrinter) start() error {
	if t.started {
		return nil
	}
	t.started = true
	for _, row := range t.sample {
		t.grow(row)
	}
	header := make([]string, len(eventColumns))
	for i, c := range eventColumns {
		header[i] = strings.ToUpper(c)
	}
	if err := t.writeRow(header); err != nil {
		return err
	}
	for _, row := range t.sample {
		if err := t.writeRow(row); err != nil {
			return err
		}
	}
	t.sample = nil
	return nil
}

func (t *tablePrinter) grow(row []string) {
	for i, cell := range row[:len(row)-1] {
		if n := utf8.RuneCountInString(cell); n > t.widths[i] {
			t.widths[i] = n
		}
	}
}

// rightAligned reports whether column i holds numbers.
func rightAligned(i int) bool { return i == 0 || i == 2 || i == 6 || i == 7 }

func (t *tablePrinter) writeRow(row []string) error {
	t.grow(row)
	var b strings.Builder
	for i, cell := range row {
		if i == len(row)-1 {
			b.WriteString(cell)
			break
		}
		pad := strings.Repeat(" ", t.widths[i]-utf8.RuneCountInString(cell))
		if rightAligned(i) {
			b.WriteString(pad + cell)
		} else {
			b.WriteString(cell + pad)
		}
		b.WriteString("  ")
	}
	line := strings.TrimRight(b.String(), " ")
	if _, err := t.w.WriteString(line + "\n"); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	return nil
}

// Flush writes the rows held back and flushes the output. An empty dump
// prints the header alone.
func (t *tablePrinter) Flush() error {
	if err := t.start(); err != nil {
		return err
	}
	if err := t.w.Flush(); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	return nil
}

// csvPrinter writes events as CSV with a header line.
type csvPrinter struct {
	w      *csv.Writer
	header bool
	row    func(*format.Event) []string // eventRow, or flinkEventRow
}

func newCSVPrinter(w io.Writer) *csvPrinter { return &csvPrinter{w: csv.NewWriter(w), row: eventRow} }

// Write adds one event record.
func (p *csvPrinter) Write(e *format.Event) error {
	if err := p.writeHeader(); err != nil {
		return err
	}
	if err := p.w.Write(p.row(e)); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	return nil
}

func (p *csvPrinter) writeHeader() error {
	if p.header {
		return nil
	}
	p.header = true
	if err := p.w.Write(eventColumns); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	return nil
}

// Flush writes the header of an empty dump and flushes the output.
func (p *csvPrinter) Flush() error {
	if err := p.writeHeader(); err != nil {
		return err
	}
	p.w.Flush()
	if err := p.w.Error(); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	return nil
}
