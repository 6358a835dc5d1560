package answer

import (
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// SweepAnswer is the answer of replay --dry-run --sweep: the exposure of
// the job at each sampled seq.
type SweepAnswer struct {
	Job    string              `json:"job"`
	Points []replay.SweepPoint `json:"points"`
	// MostExposed is the point a failover would cost the most at
	// (replay.MostExposed: the most task-seconds redone, then bytes, then
	// reruns), the one the table and the timeline name; null without
	// points.
	MostExposed *replay.SweepPoint `json:"most_exposed"`
}

// jobOf is a source that remembers the job id of the events it returns.
type jobOf struct {
	replay.Source
	job string
}

func (s *jobOf) Next() (format.Event, error) {
	e, err := s.Source.Next()
	if err == nil && s.job == "" {
		s.job = e.Job
	}
	return e, err
}

// Sweep answers replay --dry-run --sweep for src (replay.Sweep, the same
// replay.Plan at each point). Points is never nil.
func Sweep(src replay.Source, o replay.SweepOptions) (*SweepAnswer, error) {
	js := &jobOf{Source: src}
	points, err := replay.Sweep(js, o)
	if err != nil {
		return nil, err
	}
	if points == nil {
		points = []replay.SweepPoint{}
	}
	a := &SweepAnswer{Job: js.job, Points: points}
	if worst, ok := replay.MostExposed(points); ok {
		a.MostExposed = &points[worst]
	}
	return a, nil
}
