package report

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"

	"github.com/jobevent/jobevent/internal/human"
	"github.com/jobevent/jobevent/pkg/runtime/drill"
)

// Geometry of a drill chart, in pixels.
const (
	drillWidth  = 1060
	drillHeight = 300
	drillX0     = 78 // left edge of the plot; the y labels sit before it
	drillX1     = drillWidth - 24
	drillY0     = 44 // top of the plot; the title and boundary labels above
	drillY1     = drillHeight - 40
)

// drillAxis is what a chart plots on its y axis.
type drillAxis struct {
	title string
	value func(drill.Cost) float64
	label func(float64) string
	// ceil rounds the largest value up to the top of the axis, which has
	// four grid steps.
	ceil func(float64) float64
}

var (
	drillBytesAxis = drillAxis{
		title: "bytes redone",
		value: func(c drill.Cost) float64 { return float64(c.Bytes) },
		label: func(v float64) string { return HumanBytes(int64(v)) },
		ceil:  drillBytesCeil,
	}
	drillSubtasksAxis = drillAxis{
		title: "subtasks redone",
		value: func(c drill.Cost) float64 { return float64(c.Subtasks) },
		label: func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) },
		ceil:  func(v float64) float64 { return 4 * math.Max(1, math.Ceil(v/4)) },
	}
)

// drillChart draws the cost curve of r on axis as an SVG element: one
// polyline per fault over the crash points, a marker per point with its
// numbers as a tooltip, failed cases ringed, vertex boundaries dashed.
func drillChart(r *drill.Result, axis drillAxis) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="dc" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s per crash point">`,
		drillWidth, drillHeight, drillWidth, drillHeight, html.EscapeString(axis.title))
	fmt.Fprintf(&b, `<text class="title" x="%d" y="18">%s per crash point</text>`, drillX0, html.EscapeString(axis.title))
	maxY := 0.0
	for _, p := range r.Curve {
		for _, c := range p.Redone {
			maxY = math.Max(maxY, axis.value(c))
		}
	}
	top := axis.ceil(maxY)
	xs := drillXScale(r)
	ys := func(v float64) float64 { return drillY1 - v/top*(drillY1-drillY0) }
	drillGrid(&b, axis, top, ys)
	drillBoundaries(&b, r, xs)
	failed := map[int64]map[drill.Fault]bool{}
	for i := range r.Cases {
		if c := &r.Cases[i]; !c.OK() {
			if failed[c.Point] == nil {
				failed[c.Point] = map[drill.Fault]bool{}
			}
			failed[c.Point][c.Fault] = true
		}
	}
	for _, f := range r.Faults {
		drillLine(&b, r, f, axis, xs, ys, failed)
	}
	fmt.Fprintf(&b, `<text class="tick" x="%d" y="%d" text-anchor="end">crash point (seq)</text>`, drillX1, drillHeight-6)
	b.WriteString(`</svg>`)
	return b.String()
}

// drillXScale maps a seq to x: seq 1 at the left edge, the last event of
// the clean log at the right.
func drillXScale(r *drill.Result) func(int64) float64 {
	last := max(r.Events, 2)
	return func(seq int64) float64 {
		return drillX0 + float64(seq-1)/float64(last-1)*(drillX1-drillX0)
	}
}

// drillGrid draws the axes, the horizontal grid lines and their labels,
// and the seq ticks.
func drillGrid(b *strings.Builder, axis drillAxis, top float64, ys func(float64) float64) {
	for i := 0; i <= 4; i++ {
		v := top * float64(i) / 4
		y := ys(v)
		fmt.Fprintf(b, `<line class="grid" x1="%d" x2="%d" y1="%.1f" y2="%.1f"/>`, drillX0, drillX1, y, y)
		fmt.Fprintf(b, `<text class="tick" x="%d" y="%.1f" text-anchor="end">%s</text>`, drillX0-6, y+3, html.EscapeString(axis.label(v)))
	}
	fmt.Fprintf(b, `<line class="axis" x1="%d" x2="%d" y1="%d" y2="%d"/>`, drillX0, drillX1, drillY1, drillY1)
	fmt.Fprintf(b, `<line class="axis" x1="%d" x2="%d" y1="%d" y2="%d"/>`, drillX0, drillX0, drillY0, drillY1)
}

// drillBoundaries draws a dashed line, labeled with the vertex, at every
// vertex_initialized point, and labels a few seqs along the x axis.
func drillBoundaries(b *strings.Builder, r *drill.Result, xs func(int64) float64) {
	const initialized = "vertex_initialized "
	for _, p := range r.Points {
		if !strings.HasPrefix(p.Event, initialized) {
			continue
		}
		x := xs(p.Seq)
		fmt.Fprintf(b, `<line class="bound" x1="%.1f" x2="%.1f" y1="%d" y2="%d"/>`, x, x, drillY0-6, drillY1)
		fmt.Fprintf(b, `<text class="bound-label" x="%.1f" y="%d">%s</text>`, x+3, drillY0-8, html.EscapeString(strings.TrimPrefix(p.Event, initialized)))
	}
	step := drillNiceCeil(float64(r.Events) / 8)
	for s := int64(0); s <= r.Events; s += max(int64(step), 1) {
		seq := max(s, 1)
		fmt.Fprintf(b, `<text class="tick" x="%.1f" y="%d" text-anchor="middle">%d</text>`, xs(seq), drillY1+14, seq)
	}
}

// drillLine draws one fault's curve and its point markers.
func drillLine(b *strings.Builder, r *drill.Result, f drill.Fault, axis drillAxis, xs func(int64) float64, ys func(float64) float64, failed map[int64]map[drill.Fault]bool) {
	color := drillColor(f)
	var pts []string
	for _, p := range r.Curve {
		if c, ok := p.Redone[f]; ok {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", xs(p.Seq), ys(axis.value(c))))
		}
	}
	if len(pts) == 0 {
		return
	}
	fmt.Fprintf(b, `<polyline class="line" stroke="%s" points="%s"/>`, color, strings.Join(pts, " "))
	for _, p := range r.Curve {
		c, ok := p.Redone[f]
		if !ok {
			continue
		}
		x, y := xs(p.Seq), ys(axis.value(c))
		tip := fmt.Sprintf("seq %d (%s), %s: %s, %s redone", p.Seq, p.Event, f, human.Count(c.Subtasks, "subtask"), HumanBytes(c.Bytes))
		if failed[p.Seq][f] {
			tip += " — FAILED"
			fmt.Fprintf(b, `<circle class="fail" cx="%.1f" cy="%.1f" r="6"/>`, x, y)
		}
		fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="2.6" fill="%s"><title>%s</title></circle>`, x, y, color, html.EscapeString(tip))
	}
}

// drillBytesCeil rounds a byte count up so that a quarter of it, the grid
// step, is a power of two of the binary unit drillBytes labels it with
// (256 KiB, 2 KiB, 512 B), at least a quarter of that unit.
func drillBytesCeil(v float64) float64 {
	unit := 1.0
	for v >= 1024*unit && unit < 1<<50 {
		unit *= 1024
	}
	step, x := 1.0, v/unit/4
	for step < x {
		step *= 2
	}
	for unit > 1 && step > 0.25 && step/2 >= x {
		step /= 2
	}
	return 4 * step * unit
}

// drillNiceCeil rounds v up to 1, 2 or 5 times a power of ten (at least
// 1), so that grid lines fall on round numbers.
func drillNiceCeil(v float64) float64 {
	if v <= 1 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}
