package report

import (
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"

	"github.com/jobevent/jobevent/internal/human"
	"github.com/jobevent/jobevent/pkg/runtime/drill"
)

// WriteDrillHTML writes the result of a drill as one self-contained HTML
// page: the verdict, the recovery cost curve drawn as inline SVG (bytes
// and subtasks redone per crash point, one line per fault, vertex
// boundaries marked), the failed cases with their reproduction scripts,
// and every case as a table. It loads nothing from the network and needs
// no script.
func WriteDrillHTML(w io.Writer, r *drill.Result) error {
	page := drillPage{R: r, Faults: drillFaultStyles(r.Faults)}
	page.BytesChart = template.HTML(drillChart(r, drillBytesAxis))
	page.SubtasksChart = template.HTML(drillChart(r, drillSubtasksAxis))
	events := map[int64]string{}
	for _, p := range r.Points {
		events[p.Seq] = p.Event
	}
	for i := range r.Cases {
		c := &r.Cases[i]
		row := drillRow{C: c, Event: events[c.Point], Bytes: HumanBytes(c.RedoneBytes)}
		page.Rows = append(page.Rows, row)
		if !c.OK() {
			page.Failed = append(page.Failed, row)
		}
	}
	for _, f := range r.Faults {
		if p, ok := r.MostExposed(f); ok && p.Redone[f].Subtasks > 0 {
			cost := p.Redone[f]
			page.Exposed = append(page.Exposed, fmt.Sprintf("%s: after seq %d (%s), %s and %s redone",
				f, p.Seq, p.Event, human.Count(cost.Subtasks, "subtask"), HumanBytes(cost.Bytes)))
		}
	}
	if err := drillTemplate.Execute(w, page); err != nil {
		return fmt.Errorf("report: drill page: %w", err)
	}
	return nil
}

// drillPage is what the page template renders.
type drillPage struct {
	R             *drill.Result
	Faults        []drillFaultStyle
	BytesChart    template.HTML
	SubtasksChart template.HTML
	Exposed       []string
	Rows          []drillRow
	Failed        []drillRow
}

// drillRow is one case of the table.
type drillRow struct {
	C     *drill.Case
	Event string
	Bytes string
}

// drillFaultStyle is the color a fault is drawn with.
type drillFaultStyle struct {
	Fault drill.Fault
	Color string
}

// drillColors are the line colors, by fault.
var drillColors = map[drill.Fault]string{
	drill.FaultMaster:      "#2563eb",
	drill.FaultWorker:      "#d97706",
	drill.FaultTornTail:    "#7c3aed",
	drill.FaultSlowWorkers: "#059669",
	drill.FaultDouble:      "#db2777",
}

func drillFaultStyles(faults []drill.Fault) []drillFaultStyle {
	out := make([]drillFaultStyle, len(faults))
	for i, f := range faults {
		out[i] = drillFaultStyle{Fault: f, Color: drillColor(f)}
	}
	return out
}

func drillColor(f drill.Fault) string {
	if c, ok := drillColors[f]; ok {
		return c
	}
	return "#4b5563"
}

var drillTemplate = template.Must(template.New("drill").Funcs(template.FuncMap{
	"join": strings.Join,
	"ms":   func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>jobevent drill: {{.R.Job}}</title>
<style>
:root{color-scheme:light}
body{margin:0;background:#f3f4f7;color:#1f2430;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}
main{max-width:1100px;margin:0 auto;padding:12px 10px 40px}
h1{font-size:20px;margin:6px 0 2px}
h2{font-size:15px;margin:22px 0 8px}
.muted{color:#6b7280}
.verdict{border-radius:8px;padding:10px 14px;margin:10px 0;font-weight:600}
.verdict.ok{background:#e7f6ec;border:1px solid #9fd8b3;color:#14532d}
.verdict.bad{background:#fdecec;border:1px solid #f1a7a7;color:#7f1d1d}
.cards{display:flex;gap:10px;flex-wrap:wrap;margin:8px 0 12px}
.card{background:#fff;border:1px solid #e1e4ea;border-radius:8px;padding:8px 14px;min-width:110px}
.card b{display:block;font-size:18px}
.card span{color:#6b7280;font-size:12px}
figure{margin:0 0 12px;background:#fff;border:1px solid #e1e4ea;border-radius:8px;overflow-x:auto}
figure svg{display:block}
.dc text{font-family:inherit;font-size:11px;fill:#2b2f36}
.dc .axis{stroke:#9aa1ad;stroke-width:1}
.dc .grid{stroke:#e5e8ee;stroke-width:1}
.dc .tick{fill:#6b7280;font-size:10px}
.dc .bound{stroke:#9aa1ad;stroke-width:1;stroke-dasharray:3 3}
.dc .bound-label{fill:#6b7280;font-size:10px}
.dc .line{fill:none;stroke-width:1.8}
.dc .fail{fill:none;stroke:#b91c1c;stroke-width:2}
.dc .title{font-size:13px;font-weight:600}
table{border-collapse:collapse;background:#fff;border:1px solid #e1e4ea;font-size:12.5px;width:100%}
th,td{padding:3px 8px;border-bottom:1px solid #edf0f4;text-align:right;white-space:nowrap}
th{background:#f7f8fa;font-weight:600;color:#3b414b;position:sticky;top:0}
td.l,th.l{text-align:left}
tr.bad td{background:#fdf2f2}
.no{color:#b91c1c;font-weight:600}
.failure{background:#fff;border:1px solid #f1a7a7;border-radius:8px;padding:8px 12px;margin:0 0 10px}
.failure ul{margin:4px 0 6px 18px;padding:0}
pre{background:#f7f8fa;border:1px solid #e1e4ea;border-radius:6px;padding:6px 8px;overflow-x:auto;font-size:12px}
.legend span{display:inline-block;margin-right:14px}
.legend i{display:inline-block;width:18px;height:3px;vertical-align:middle;margin-right:5px}
footer{color:#8a909c;font-size:12px;margin-top:24px}
</style>
</head>
<body>
<main>
<h1>Failover drill of job {{.R.Job}}</h1>
<p class="muted">{{.R.Spec}} · seed {{.R.Seed}} · the master crashed right after each crash point, a fault was injected, and the dry-run plan of the crashed log was compared with what the resumed master started, from the log.</p>
<div class="verdict {{if .R.Verdict.OK}}ok{{else}}bad{{end}}">{{.R.Verdict}}</div>
<div class="cards">
<div class="card"><b>{{.R.Events}}</b><span>events in the clean log</span></div>
<div class="card"><b>{{len .R.Points}}</b><span>crash points</span></div>
<div class="card"><b>{{len .R.Faults}}</b><span>faults</span></div>
<div class="card"><b>{{.R.Verdict.Cases}}</b><span>cases</span></div>
<div class="card"><b>{{.R.Verdict.Failed}}</b><span>failed</span></div>
</div>
<h2>Recovery cost curve</h2>
<p class="muted">The work a failover at each crash point made the job redo: the subtasks that had finished before the crash and ran again, and the bytes they had written. Dashed lines are vertex boundaries; ringed points are failed cases. Hover a point for its numbers.</p>
<p class="legend">{{range .Faults}}<span><i style="background:{{.Color}}"></i>{{.Fault}}</span>{{end}}</p>
<figure>{{.BytesChart}}</figure>
<figure>{{.SubtasksChart}}</figure>
{{if .Exposed}}<p><b>Most exposed</b></p><ul>{{range .Exposed}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .Failed}}<h2>Failed cases</h2>
{{range .Failed}}<div class="failure"><b>point {{.C.Point}} ({{.Event}}), fault {{.C.Fault}}</b>
<ul>{{range .C.Problems}}<li>{{.}}</li>{{end}}</ul>
{{if .C.Kept}}<div class="muted">kept in {{.C.Kept}}</div>{{end}}
{{if .C.Repro}}<pre>{{join .C.Repro "\n"}}</pre>{{end}}
</div>
{{end}}{{end}}
<h2>Cases</h2>
<table>
<tr><th>point</th><th class="l">event</th><th class="l">fault</th><th>predicted</th><th>actual</th><th>match</th><th>output</th><th>log errors</th><th>redone</th><th>redone bytes</th><th>recovery ms</th></tr>
{{range .Rows}}<tr{{if not .C.OK}} class="bad"{{end}}><td>{{.C.Point}}</td><td class="l">{{.Event}}</td><td class="l">{{.C.Fault}}</td><td title="{{join .C.Predicted " "}}">{{len .C.Predicted}}</td><td title="{{join .C.Actual " "}}">{{len .C.Actual}}</td><td>{{if .C.Match}}yes{{else}}<span class="no">NO</span>{{end}}</td><td>{{if .C.OutputIdentical}}identical{{else}}<span class="no">DIFFERS</span>{{end}}</td><td>{{if .C.LogErrors}}<span class="no">{{.C.LogErrors}}</span>{{else}}0{{end}}</td><td>{{.C.RedoneSubtasks}}</td><td>{{.Bytes}}</td><td>{{if .C.RecoveryMs}}{{ms .C.RecoveryMs}}{{else}}-{{end}}</td></tr>
{{end}}</table>
<footer>Written by jobevent drill. Predicted: the subtasks the dry-run plan reruns or runs; actual: those the resumed master wrote subtask_started for.</footer>
</main>
</body>
</html>
`))
