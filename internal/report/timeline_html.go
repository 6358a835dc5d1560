package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/jobevent/jobevent/pkg/replay"
)

// pageStyle is the stylesheet of the HTML page around the chart.
const pageStyle = `
:root{color-scheme:light}
body{margin:0;background:#f3f4f7;color:#1f2430;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}
main{max-width:1380px;margin:0 auto;padding:12px 10px 40px}
h1{font-size:20px;margin:6px 0 2px}
h2{font-size:15px;margin:22px 0 8px}
.summary{color:#5b6270;margin:0 0 10px}
.cards{display:flex;gap:10px;flex-wrap:wrap;margin:8px 0 12px}
.card{background:#fff;border:1px solid #e1e4ea;border-radius:8px;padding:8px 14px;min-width:120px}
.card b{display:block;font-size:18px}
.card span{color:#6b7280;font-size:12px}
figure{margin:0;background:#fff;border:1px solid #e1e4ea;border-radius:8px;overflow-x:auto}
figure svg{display:block}
table{border-collapse:collapse;background:#fff;border:1px solid #e1e4ea;font-size:13px}
th,td{padding:4px 10px;border-bottom:1px solid #edf0f4;text-align:right;white-space:nowrap}
th{background:#f7f8fa;font-weight:600;color:#3b414b}
td:first-child,th:first-child{text-align:left}
.muted{color:#6b7280}
footer{color:#8a909c;font-size:12px;margin-top:24px}
`

// WriteTimelineHTML writes the timeline as one self-contained HTML page:
// the chart inline as SVG, then the statistics of the job, the failovers
// and the critical path as tables. It loads nothing from the network.
func WriteTimelineHTML(w io.Writer, t *Timeline) error {
	bw := bufio.NewWriter(w)
	s := &svgWriter{w: bw}
	s.printf("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n")
	s.printf("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n")
	s.printf("<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n<main>\n", esc("jobevent timeline: "+t.jobName()), pageStyle)
	s.printf("<h1>Timeline of job %s</h1>\n", esc(t.jobName()))
	if t.BySeq {
		s.printf("<p class=\"summary\">seq %d to %d, %d events (the log records no times: laid out by seq)</p>\n",
			t.Start.Unix(), t.End.Unix(), eventsOf(t))
	} else {
		s.printf("<p class=\"summary\">%s to %s (UTC), %d events</p>\n",
			esc(t.Start.UTC().Format("2006-01-02 15:04:05.000")), esc(t.End.UTC().Format("15:04:05.000")), eventsOf(t))
	}
	writeCards(s, t)
	s.printf("<figure>\n")
	writeSVG(s, t)
	s.printf("</figure>\n")
	if t.Stats != nil {
		writeVertexTable(s, t)
		writeFailoverTable(s, t)
		writePathTable(s, t)
	}
	s.printf("<footer>Written by jobevent timeline. Hover a bar for its attempt; the exposure curve is " +
		"replay.Plan after each sampled event, the function a recovering master calls.</footer>\n")
	s.printf("</main>\n</body>\n</html>\n")
	if s.err != nil {
		return s.err
	}
	return bw.Flush()
}

func eventsOf(t *Timeline) int64 {
	if t.Stats == nil {
		return 0
	}
	return t.Stats.Events
}

func writeCards(s *svgWriter, t *Timeline) {
	card := func(value, label string) {
		s.printf("<div class=\"card\"><b>%s</b><span>%s</span></div>", esc(value), esc(label))
	}
	s.printf("<div class=\"cards\">")
	card(t.Status, "status")
	if t.BySeq {
		card(fmt.Sprintf("seq %d–%d", t.Start.Unix(), t.End.Unix()), "no times: laid out by seq")
	} else {
		card(durationLabel(t.End.Sub(t.Start)), "wall time")
	}
	card(strconv.Itoa(len(t.Attempts)), "attempts")
	card(strconv.Itoa(len(t.Epochs)), "master epochs")
	card(strconv.Itoa(t.Reran()), "subtasks rerun by failovers")
	if t.Stats != nil && !t.BySeq {
		card(durationLabel(secs(t.Stats.Lost.TotalSeconds)), "lost to failovers")
	}
	// The point "replay --dry-run --sweep" reports too: the most work redone.
	if worst, ok := replay.MostExposed(t.Exposure); ok {
		card(strconv.Itoa(t.Exposure[worst].Rerun), fmt.Sprintf("most exposed: reruns after seq %d", t.Exposure[worst].Seq))
	}
	s.printf("</div>\n")
}

func writeVertexTable(s *svgWriter, t *Timeline) {
	st, durationLabel := t.Stats, t.durationLabel
	s.printf("<h2>Vertices</h2>\n<table>\n<tr><th>vertex</th><th>parallelism</th><th>attempts</th><th>reruns</th>" +
		"<th>failed</th><th>p50</th><th>max</th><th>records in</th><th>records out</th><th>bytes in</th><th>bytes out</th></tr>\n")
	for _, v := range st.Vertices {
		par := "<span class=\"muted\">not initialized</span>"
		if v.Initialized {
			par = strconv.Itoa(int(v.Parallelism))
		}
		s.printf("<tr><td>%s</td><td>%s</td><td>%d</td><td>%d</td><td>%d</td><td>%s</td><td>%s</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td></tr>\n",
			esc(nameOf(t.Names, v.Vertex)), par, v.Attempts, v.Reruns, v.Failed, durationLabel(secs(v.P50Seconds)), durationLabel(secs(v.MaxSeconds)),
			v.RecordsIn, v.RecordsOut, v.BytesIn, v.BytesOut)
	}
	s.printf("</table>\n")
}

func writeFailoverTable(s *svgWriter, t *Timeline) {
	st, durationLabel := t.Stats, t.durationLabel
	s.printf("<h2>Failovers</h2>\n")
	if len(st.Failovers) == 0 {
		s.printf("<p class=\"muted\">No master failover.</p>\n")
		return
	}
	s.printf("<table>\n<tr><th>epoch</th><th>after seq</th><th>downtime</th><th>work redone</th><th>subtasks rerun</th></tr>\n")
	for _, f := range st.Failovers {
		s.printf("<tr><td>%d</td><td>%d</td><td>%s</td><td>%s</td><td>%d</td></tr>\n", f.Epoch, f.LastSeq,
			durationLabel(secs(f.DowntimeSeconds)), durationLabel(secs(f.RedoneSeconds)), f.Reran)
	}
	s.printf("<tr><th>total</th><th></th><th>%s</th><th>%s</th><th>%s lost</th></tr>\n</table>\n",
		durationLabel(secs(st.Lost.DowntimeSeconds)), durationLabel(secs(st.Lost.RedoneSeconds)), durationLabel(secs(st.Lost.TotalSeconds)))
}

func writePathTable(s *svgWriter, t *Timeline) {
	st, durationLabel, offsetLabel := t.Stats, t.durationLabel, t.offsetLabel
	s.printf("<h2>Critical path</h2>\n")
	if len(st.CriticalPath) == 0 {
		s.printf("<p class=\"muted\">Nothing has finished.</p>\n")
		return
	}
	s.printf("<table>\n<tr><th>subtask</th><th>attempt</th><th>worker</th><th>waited for</th><th>wait</th><th>start</th><th>duration</th></tr>\n")
	for _, p := range st.CriticalPath {
		s.printf("<tr><td>%s</td><td>%d</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			esc(p.SubtaskRef.String()), p.Attempt, esc(p.Worker), esc(p.Wait), durationLabel(secs(p.WaitSeconds)),
			esc(offsetLabel(p.Start.Sub(st.Start))), durationLabel(time.Duration(p.Seconds*float64(time.Second))))
	}
	s.printf("</table>\n")
}
