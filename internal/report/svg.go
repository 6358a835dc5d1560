package report

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
	"strings"
	"time"

	"github.com/jobevent/jobevent/internal/human"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// Geometry of the chart, in pixels.
const (
	chartWidth  = 1360
	plotX0      = 168 // left edge of the plot; lane labels sit before it
	plotX1      = chartWidth - 56
	epochRowY   = 62 // baseline of the first row of epoch labels
	tickRowY    = 96 // baseline of the time labels above the lanes
	lanesTop    = 106
	groupHeight = 22
	laneHeight  = 18
	barHeight   = 12
	exposureGap = 34
	exposureH   = 120
)

// svgStyle is the stylesheet of the chart, inline in the SVG.
const svgStyle = `
.jt text{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;font-size:11px;fill:#2b2f36}
.jt .title{font-size:16px;font-weight:600}
.jt .subtitle{fill:#5b6270;paint-order:stroke;stroke:#fff;stroke-width:4px;stroke-linejoin:round}
.jt .group{font-weight:600;font-size:12px;paint-order:stroke;stroke:#fff;stroke-width:4px;stroke-linejoin:round}
.jt .group-meta{fill:#6b7280;font-weight:400}
.jt .lane{fill:#f7f8fa}
.jt .lane.odd{fill:#eef0f4}
.jt .lane.reran{fill:#fff3d6}
.jt .lane-label{fill:#3b414b;font-size:11px}
.jt .lane-label.reran{font-weight:600;fill:#8a5300}
.jt .grid{stroke:#dfe3ea;stroke-width:1}
.jt .tick{fill:#6b7280;font-size:10px}
.jt .a{stroke:none}
.jt .a-finished{fill:#2e9d5b}
.jt .a-failed{fill:#d64541}
.jt .a-reset{fill:#f0a030}
.jt .a-interrupted{fill:url(#jt-hatch)}
.jt .a-running{fill:#3b7dd8}
.jt .critical{stroke:#111827;stroke-width:1.6}
.jt .epoch{stroke:#b42318;stroke-width:1.5;stroke-dasharray:5 3}
.jt .epoch.first{stroke:#6b7280;stroke-dasharray:2 3}
.jt .epoch-label{fill:#b42318;font-weight:600}
.jt .epoch-label.first{fill:#4b5563}
.jt .gap{fill:url(#jt-gap);fill-opacity:.9}
.jt .gap-label{fill:#6b7280;font-size:10px;text-anchor:middle}
.jt .exp-frame{fill:#fbfbfd;stroke:#dfe3ea}
.jt .exp-area{fill:#f0a030;fill-opacity:.35;stroke:#c77800;stroke-width:1.2}
.jt .exp-line{fill:none;stroke:#7a1f5c;stroke-width:1.4}
.jt .exp-dot{fill:#b42318;stroke:#fff;stroke-width:1.5}
.jt .axis-left{fill:#c77800;font-size:10px}
.jt .axis-right{fill:#7a1f5c;font-size:10px}
.jt .legend-text{fill:#3b414b}
`

// outcomeLabels names each outcome in the legend, in legend order.
var outcomeLabels = []struct {
	outcome replay.Outcome
	label   string
}{
	{replay.OutcomeFinished, "finished"},
	{replay.OutcomeFailed, "failed"},
	{replay.OutcomeReset, "reset: finished, result thrown away"},
	{replay.OutcomeInterrupted, "interrupted: master died or reset while running"},
	{replay.OutcomeRunning, "running at the end of the log"},
}

// svgWriter writes formatted text and keeps the first error.
type svgWriter struct {
	w   *bufio.Writer
	err error
}

func (s *svgWriter) printf(format string, args ...any) {
	if s.err == nil {
		_, s.err = fmt.Fprintf(s.w, format, args...)
	}
}

// esc escapes text for XML content and attribute values.
func esc(s string) string { return html.EscapeString(s) }

// layout is the vertical placement of the lanes.
type layout struct {
	laneY    map[format.SubtaskRef]float64 // top of each lane
	lanesEnd float64
	height   float64
	expTop   float64
}

func newLayout(t *Timeline) *layout {
	l := &layout{laneY: make(map[format.SubtaskRef]float64)}
	y := float64(lanesTop)
	for _, v := range t.Vertices {
		y += groupHeight
		for i := int32(0); i < v.Parallelism; i++ {
			l.laneY[format.SubtaskRef{Vertex: v.ID, Subtask: i}] = y
			y += laneHeight
		}
	}
	l.lanesEnd = y + 4
	l.expTop = l.lanesEnd + exposureGap
	l.height = l.expTop + exposureH + 34
	return l
}

// WriteTimelineSVG writes the timeline chart as a standalone SVG image.
func WriteTimelineSVG(w io.Writer, t *Timeline) error {
	bw := bufio.NewWriter(w)
	s := &svgWriter{w: bw}
	s.printf("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	writeSVG(s, t)
	if s.err != nil {
		return s.err
	}
	return bw.Flush()
}

// writeSVG writes the <svg> element of the chart.
func writeSVG(s *svgWriter, t *Timeline) {
	l := newLayout(t)
	sc := newTimeScale(t.Start, t.End, plotX0, plotX1, gapsOf(t))
	s.printf(`<svg xmlns="http://www.w3.org/2000/svg" class="jt" width="%d" height="%.0f" viewBox="0 0 %d %.0f" role="img" aria-label="%s">`+"\n",
		chartWidth, l.height, chartWidth, l.height, esc("timeline of job "+t.jobName()))
	s.printf("<style>%s</style>\n", svgStyle)
	s.printf(`<defs><pattern id="jt-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">` +
		`<rect width="6" height="6" fill="#f6c177"/><rect width="2.5" height="6" fill="#e07b00"/></pattern>` +
		`<pattern id="jt-gap" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">` +
		`<rect width="8" height="8" fill="#eceef2"/><rect width="1.5" height="8" fill="#d5d9e0"/></pattern></defs>` + "\n")
	s.printf(`<rect x="0" y="0" width="%d" height="%.0f" fill="#ffffff"/>`+"\n", chartWidth, l.height)
	writeHeader(s, t)
	writeLanes(s, t, l)
	writeGrid(s, sc, t, l)
	writeGaps(s, t, sc, l)
	writeBars(s, t, sc, l)
	writeExposure(s, t, sc, l)
	writeEpochs(s, t, sc, l)
	s.printf("</svg>\n")
}

// gapsOf returns the times without a master: from the last event of each
// epoch to the master_started of the next.
func gapsOf(t *Timeline) [][2]time.Time {
	var gaps [][2]time.Time
	for k := 1; k < len(t.Epochs); k++ {
		if a, b := t.Epochs[k-1].End, t.Epochs[k].Start; b.After(a) {
			gaps = append(gaps, [2]time.Time{a, b})
		}
	}
	return gaps
}

func writeHeader(s *svgWriter, t *Timeline) {
	wall := "wall " + durationLabel(t.End.Sub(t.Start))
	if t.BySeq {
		wall = "no times in the log: laid out by seq"
	}
	s.printf(`<text class="title" x="16" y="24">%s</text>`+"\n", esc("Job "+t.jobName()))
	sub := fmt.Sprintf("%s · %s · %s · %s", t.Status, wall, human.Count(len(t.Attempts), "attempt"),
		human.Count(len(t.Epochs), "epoch"))
	if t.Stats != nil && len(t.Stats.Failovers) > 0 && !t.BySeq {
		sub += fmt.Sprintf(" · lost to failovers %s (downtime %s + redone %s)",
			durationLabel(secs(t.Stats.Lost.TotalSeconds)), durationLabel(secs(t.Stats.Lost.DowntimeSeconds)),
			durationLabel(secs(t.Stats.Lost.RedoneSeconds)))
	}
	s.printf(`<text class="subtitle" x="16" y="42">%s</text>`+"\n", esc(sub))
	writeLegend(s)
}

// legendItem is one entry of the legend: a swatch drawn at (x, y), the
// top left corner of a 14x10 box, and its label.
type legendItem struct {
	swatch func(x, y float64) string
	label  string
}

// writeLegend writes two rows of legend entries along the top right
// edge, laid out right to left so that they never run into the title.
func writeLegend(s *svgWriter) {
	var outcomes []legendItem
	for _, o := range outcomeLabels {
		class := "a a-" + string(o.outcome)
		outcomes = append(outcomes, legendItem{func(x, y float64) string {
			return fmt.Sprintf(`<rect class="%s" x="%.1f" y="%.1f" width="14" height="10" rx="2"/>`, class, x, y)
		}, o.label})
	}
	marks := []legendItem{
		{func(x, y float64) string {
			return fmt.Sprintf(`<rect class="a a-finished critical" x="%.1f" y="%.1f" width="14" height="10" rx="2"/>`, x, y)
		}, "critical path"},
		{func(x, y float64) string {
			return fmt.Sprintf(`<rect class="lane reran" x="%.1f" y="%.1f" width="14" height="10" stroke="#e0b35a"/>`, x, y)
		}, "subtask rerun by a failover"},
		{func(x, y float64) string {
			return fmt.Sprintf(`<line class="epoch" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, x+7, y-1, x+7, y+11)
		}, "master epoch (failover)"},
		{func(x, y float64) string {
			return fmt.Sprintf(`<rect class="gap" x="%.1f" y="%.1f" width="14" height="10"/>`, x, y)
		}, "no master"},
	}
	for row, items := range [][]legendItem{outcomes, marks} {
		y := 20 + 18*float64(row)
		x := float64(chartWidth) - 16
		for i := len(items) - 1; i >= 0; i-- {
			x -= 6.4*float64(len([]rune(items[i].label))) + 34
			s.printf("%s", items[i].swatch(x, y-9))
			s.printf(`<text class="legend-text" x="%.1f" y="%.1f">%s</text>`+"\n", x+19, y, esc(items[i].label))
		}
	}
}

func writeGaps(s *svgWriter, t *Timeline, sc *timeScale, l *layout) {
	for k := 1; k < len(t.Epochs); k++ {
		a, b := t.Epochs[k-1].End, t.Epochs[k].Start
		if !b.After(a) {
			continue
		}
		x0, x1 := sc.x(a), sc.x(b)
		s.printf(`<rect class="gap" x="%.1f" y="%d" width="%.1f" height="%.1f"><title>%s</title></rect>`+"\n",
			x0, lanesTop, math.Max(x1-x0, 1), l.expTop+exposureH-lanesTop,
			esc(fmt.Sprintf("no master for %s: epoch %d's last event (seq %d) to epoch %d's master_started (seq %d)",
				durationLabel(b.Sub(a)), t.Epochs[k-1].Epoch, t.Epochs[k-1].LastSeq, t.Epochs[k].Epoch, t.Epochs[k].StartSeq)))
		if x1-x0 >= 40 {
			s.printf(`<text class="gap-label" x="%.1f" y="%d">%s</text>`+"\n",
				(x0+x1)/2, tickRowY, esc("no master "+durationLabel(b.Sub(a))))
		}
	}
}

func writeLanes(s *svgWriter, t *Timeline, l *layout) {
	reran := t.reranBy()
	y := float64(lanesTop)
	for _, v := range t.Vertices {
		label, op := v.ID, v.Operator
		if n := t.Names[v.ID]; n != "" {
			label, op = n, v.ID // named: the id goes where the operator went
		}
		meta := fmt.Sprintf("  %s", op)
		if v.Parallelism > 0 {
			meta = fmt.Sprintf("  ×%d %s", v.Parallelism, op)
		} else {
			meta += " · not initialized"
		}
		if v.Coordinator != "" && v.Coordinator != format.CoordinatorNone {
			meta += " · " + v.Coordinator
		}
		s.printf(`<text class="group" x="12" y="%.1f" data-vertex="%s">%s<tspan class="group-meta">%s</tspan></text>`+"\n",
			y+15, esc(v.ID), esc(label), esc(meta))
		y += groupHeight
		for i := int32(0); i < v.Parallelism; i++ {
			ref := format.SubtaskRef{Vertex: v.ID, Subtask: i}
			class, label, tip := "lane", ref.String(), ""
			if t.Names[v.ID] != "" {
				label = fmt.Sprintf("subtask %d", i) // under the vertex's name
			}
			if i%2 == 1 {
				class += " odd"
			}
			if ep, ok := reran[ref]; ok {
				class += " reran"
				label = "↻ " + label
				tip = fmt.Sprintf("<title>rerun by the failover to epoch %d</title>", ep)
			}
			s.printf(`<rect class="%s" x="%d" y="%.1f" width="%d" height="%d" data-lane="%s"/>`,
				class, 8, y, chartWidth-16, laneHeight-2, esc(ref.String()))
			labelClass := "lane-label"
			if tip != "" {
				labelClass += " reran"
			}
			s.printf(`<text class="%s" x="%d" y="%.1f" text-anchor="end">%s%s</text>`+"\n",
				labelClass, plotX0-10, y+12, esc(label), tip)
			y += laneHeight
		}
	}
}

func writeGrid(s *svgWriter, sc *timeScale, t *Timeline, l *layout) {
	for _, tk := range sc.ticks(t.Start, 12, t.offsetLabel) {
		s.printf(`<line class="grid" x1="%.1f" y1="%d" x2="%.1f" y2="%.1f"/>`, tk.x, lanesTop, tk.x, l.expTop+exposureH)
		s.printf(`<text class="tick" x="%.1f" y="%d" text-anchor="middle">%s</text>`, tk.x, tickRowY, esc(tk.label))
		s.printf(`<text class="tick" x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", tk.x, l.expTop+exposureH+14, esc(tk.label))
	}
}

func writeBars(s *svgWriter, t *Timeline, sc *timeScale, l *layout) {
	critical := t.onPath()
	for _, a := range t.Attempts {
		y, ok := l.laneY[a.SubtaskRef]
		if !ok {
			continue
		}
		x0, x1 := sc.x(a.Start), sc.x(a.End)
		class := "a a-" + string(a.Outcome)
		if critical[attemptKey{a.SubtaskRef, a.Attempt, a.Start.UnixNano()}] {
			class += " critical"
		}
		s.printf(`<rect class="%s" x="%.1f" y="%.1f" width="%.1f" height="%d" rx="2" data-subtask="%s" data-attempt="%d" data-outcome="%s"><title>%s</title></rect>`+"\n",
			class, x0, y+(laneHeight-2-barHeight)/2, math.Max(x1-x0, 2), barHeight,
			esc(a.SubtaskRef.String()), a.Attempt, a.Outcome, esc(attemptTip(t, &a)))
	}
}

// attemptTip is the tooltip of an attempt's bar.
func attemptTip(t *Timeline, a *replay.AttemptSpan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s attempt %d", a.SubtaskRef, a.Attempt)
	if a.Worker != "" {
		fmt.Fprintf(&b, " on %s", a.Worker)
	}
	fmt.Fprintf(&b, " (epoch %d)\n%s", a.Epoch, a.Outcome)
	if a.Cause != "" {
		fmt.Fprintf(&b, " by %s", a.Cause)
	}
	if !t.BySeq {
		fmt.Fprintf(&b, " · %s · %s → %s", durationLabel(a.Duration()), offsetLabel(a.Start.Sub(t.Start)), offsetLabel(a.End.Sub(t.Start)))
	}
	if a.EndSeq > 0 {
		fmt.Fprintf(&b, " · seq %d–%d", a.StartSeq, a.EndSeq)
	} else {
		fmt.Fprintf(&b, " · from seq %d", a.StartSeq)
	}
	if a.Finished {
		fmt.Fprintf(&b, "\nrecords %d → %d · bytes %d → %d", a.RecordsIn, a.RecordsOut, a.BytesIn, a.BytesOut)
	}
	if a.Error != "" {
		fmt.Fprintf(&b, "\nerror: %s", a.Error)
	}
	return b.String()
}

func writeEpochs(s *svgWriter, t *Timeline, sc *timeScale, l *layout) {
	var rowEnd [2]float64 // right edge of the labels of each row
	for k, ep := range t.Epochs {
		x := sc.x(ep.Start)
		class := "epoch"
		if k == 0 {
			class += " first"
		}
		label := fmt.Sprintf("epoch %d · %s", ep.Epoch, ep.Master)
		if ep.Recovering {
			label += fmt.Sprintf(" · recovering, reran %d", len(ep.Reran))
		}
		row := 0
		if x < rowEnd[0]+8 {
			row = 1
		}
		rowEnd[row] = x + 6.2*float64(len([]rune(label))) + 8
		top := float64(epochRowY+row*16) + 4
		s.printf(`<line class="%s" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" data-epoch="%d"/>`, class, x, top, x, l.expTop+exposureH, ep.Epoch)
		s.printf(`<text class="epoch-label%s" x="%.1f" y="%d">%s<title>%s</title></text>`+"\n",
			strings.TrimPrefix(class, "epoch"), x+4, epochRowY+row*16, esc(label),
			esc(fmt.Sprintf("epoch %d: master %s from seq %d to %d", ep.Epoch, ep.Master, ep.StartSeq, ep.LastSeq)))
	}
}

// writeExposure draws the exposure curve: the subtasks a failover at each
// moment would rerun (area, left axis) and the work it would redo in
// task-seconds (line, right axis).
func writeExposure(s *svgWriter, t *Timeline, sc *timeScale, l *layout) {
	top, bottom := l.expTop, l.expTop+exposureH
	s.printf(`<rect class="exp-frame" x="%d" y="%.1f" width="%d" height="%d"/>`+"\n", plotX0, top, plotX1-plotX0, exposureH)
	s.printf(`<text class="group" x="12" y="%.1f">exposure</text>`, top-10)
	what := "subtasks that would rerun (area, left) and task time redone (line, right)"
	if t.BySeq {
		what = "subtasks that would rerun (the log has no times: no task time)"
	}
	s.printf(`<text class="subtitle" x="%d" y="%.1f">if the master died here: %s</text>`+"\n", plotX0+8, top-10, esc(what))
	pts := t.Exposure
	if len(pts) == 0 {
		return
	}
	maxRerun, maxSecs := 1, 0.0
	for _, p := range pts {
		maxRerun = max(maxRerun, p.Rerun)
		maxSecs = math.Max(maxSecs, p.RerunSeconds)
	}
	yOf := func(v, vmax float64) float64 { return bottom - 4 - (exposureH-12)*v/vmax }
	area := stepPath(pts, sc, t.End, func(p replay.SweepPoint) float64 { return yOf(float64(p.Rerun), float64(maxRerun)) })
	s.printf(`<path class="exp-area" d="M%.1f,%.1f %s L%.1f,%.1f Z"/>`+"\n", sc.x(pts[0].Time), bottom, area, sc.x(t.End), bottom)
	if maxSecs > 0 {
		line := stepPath(pts, sc, t.End, func(p replay.SweepPoint) float64 { return yOf(p.RerunSeconds, maxSecs) })
		s.printf(`<path class="exp-line" d="M%s"/>`+"\n", strings.TrimPrefix(line, "L"))
	}
	s.printf(`<text class="axis-left" x="%d" y="%.1f" text-anchor="end">%d</text>`, plotX0-6, yOf(float64(maxRerun), float64(maxRerun))+4, maxRerun)
	s.printf(`<text class="axis-left" x="%d" y="%.1f" text-anchor="end">0</text>`, plotX0-6, bottom-1)
	if !t.BySeq {
		s.printf(`<text class="axis-right" x="%d" y="%.1f">%s</text>`, plotX1+6, yOf(maxSecs, math.Max(maxSecs, 1e-9))+4, esc(durationLabel(secs(maxSecs))))
	}
	s.printf(`<text class="axis-right" x="%d" y="%.1f">0s</text>`+"\n", plotX1+6, bottom-1)
	writePredictions(s, t, sc, func(p replay.SweepPoint) float64 { return yOf(float64(p.Rerun), float64(maxRerun)) })
}

// stepPath returns the "L x,y" segments of a step curve through the
// points: each value holds until the next point, the last until end.
func stepPath(pts []replay.SweepPoint, sc *timeScale, end time.Time, y func(replay.SweepPoint) float64) string {
	var b strings.Builder
	for i, p := range pts {
		x0 := sc.x(p.Time)
		x1 := sc.x(end)
		if i+1 < len(pts) {
			x1 = sc.x(pts[i+1].Time)
		}
		fmt.Fprintf(&b, "L%.1f,%.1f L%.1f,%.1f ", x0, y(p), x1, y(p))
	}
	return strings.TrimSpace(b.String())
}

// writePredictions marks, before each failover, the point of the curve at
// the old master's last event: what the plan predicted the failover would
// rerun.
func writePredictions(s *svgWriter, t *Timeline, sc *timeScale, y func(replay.SweepPoint) float64) {
	for k := 1; k < len(t.Epochs); k++ {
		last := t.Epochs[k-1].LastSeq
		i := len(t.Exposure) - 1
		for i >= 0 && t.Exposure[i].Seq > last {
			i--
		}
		if i < 0 {
			continue
		}
		p := t.Exposure[i]
		x := sc.x(t.Epochs[k-1].End)
		s.printf(`<circle class="exp-dot" cx="%.1f" cy="%.1f" r="4"><title>%s</title></circle>`+"\n", x, y(p),
			esc(fmt.Sprintf("predicted at seq %d: rerun %d (%d finished thrown away, %s redone); epoch %d reran %d",
				p.Seq, p.Rerun, p.Discarded, durationLabel(secs(p.RerunSeconds)), t.Epochs[k].Epoch, len(t.Epochs[k].Reran))))
	}
}

func secs(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }
