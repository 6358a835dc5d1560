package runtime

import (
	"time"

	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// Summary is what a run did, for `jobevent run` to print (as a table, or
// JSON with these keys).
type Summary struct {
	Job    string `json:"job"`
	Status string `json:"status"` // finished, failed, canceled, crashed, fenced, suspended
	Epoch  int32  `json:"epoch"`
	// AlreadyEnded reports that the log already held job_finished: there
	// was nothing to run.
	AlreadyEnded bool `json:"already_ended"`
	// Recovered reports that this run recovered the job in a new epoch.
	Recovered bool `json:"recovered"`
	// FullRestart reports that recovery reran everything, and why.
	FullRestart       bool   `json:"full_restart"`
	FullRestartReason string `json:"full_restart_reason,omitempty"`
	Vertices          int    `json:"vertices"`
	Subtasks          int    `json:"subtasks"`
	// Deployed counts the attempts this run started; Kept the finished
	// subtasks it took over from the log; Reruns the subtasks run again
	// after having started before (recovery plus failovers).
	Deployed int `json:"deployed"`
	// Plan counts the decisions of the recovery plan (nil for a run that
	// did not recover).
	Plan   *replay.Summary `json:"plan,omitempty"`
	Kept   int             `json:"kept"`
	Reruns int             `json:"reruns"`
	Wall   float64         `json:"wall_seconds"`
	// Recording is the time the master spent waiting on the event log
	// (appends, blocking flushes, opening the epoch), in seconds.
	Recording float64 `json:"recording_seconds"`
	LastSeq   int64   `json:"last_seq"`
	Log       string  `json:"log"`
	// Outputs lists where the sinks commit their output.
	Outputs []string `json:"outputs"`
}

func (m *master) summary() *Summary {
	s := &Summary{
		Job: m.job, Epoch: m.epoch, Recovered: m.cfg.recovering,
		FullRestart: m.cfg.fullRestart, Vertices: len(m.vertices),
		Deployed: m.stats.deployed, Kept: m.stats.kept, Reruns: m.stats.reruns,
		Wall: m.clock.Now().Sub(m.started).Seconds(), Recording: m.stats.recording.Seconds(), LastSeq: m.state.LastSeq(),
		Status: m.state.Status(), Outputs: []string{},
	}
	if m.stats.plan != nil {
		p := m.stats.plan.Summary
		s.Plan = &p
	}
	for _, v := range m.vertices {
		s.Subtasks += int(v.p)
		if c, ok := v.spec.op.(Committer); ok {
			s.Outputs = append(s.Outputs, c.Output(v.vc))
		}
	}
	return s
}

// endedSummary describes a job the log already shows ended.
func endedSummary(st *epochStart, logURL string, vc func(v *VertexSpec) *VertexContext, start time.Time) *Summary {
	s := &Summary{Job: st.spec.Job, Status: st.finished, Epoch: st.state.Epoch(), AlreadyEnded: true,
		Vertices: len(st.spec.Vertices), LastSeq: st.lastSeq, Log: logURL, Outputs: []string{},
		Wall: time.Since(start).Seconds()}
	for i := range st.spec.Vertices {
		v := &st.spec.Vertices[i]
		if p, ok := st.state.Parallelism(v.ID); ok {
			s.Subtasks += int(p)
		}
		if c, ok := v.op.(Committer); ok && st.finished == format.StatusFinished {
			s.Outputs = append(s.Outputs, c.Output(vc(v)))
		}
	}
	return s
}
