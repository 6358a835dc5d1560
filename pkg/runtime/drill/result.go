package drill

import (
	"fmt"
	"strings"

	"github.com/jobevent/jobevent/internal/human"
)

// Result is what a drill found. It marshals to the JSON of `jobevent drill
// --format json`. Apart from the timing fields (CleanMs, Case.RecoveryMs)
// and the kept directories, the same spec and seed give the same Result.
type Result struct {
	Job  string `json:"job"`
	Spec string `json:"spec"`
	Seed int64  `json:"seed"`
	// Events is the length of the clean log.
	Events int64   `json:"events"`
	Faults []Fault `json:"faults"`
	// Points are the crash points, in seq order.
	Points []Point `json:"points"`
	// Cases has one entry per point and fault, by point, then in Faults
	// order.
	Cases []Case `json:"cases"`
	// Curve is the recovery cost curve: the work each fault made the
	// resumed master redo, per crash point.
	Curve   []CurvePoint `json:"curve"`
	Verdict Verdict      `json:"verdict"`
	// Kept is the directory holding the failing cases, if any.
	Kept string `json:"kept,omitempty"`
	// CleanMs is the wall time of the clean run.
	CleanMs float64 `json:"clean_ms,omitempty"`
}

// Point is one crash point: the master dies right after event Seq of the
// clean log is durable.
type Point struct {
	Seq int64 `json:"seq"`
	// Event describes that event: "subtask_finished count/1".
	Event string `json:"event"`
	// Boundary reports whether the point is a vertex boundary (a
	// vertex_initialized, or the last subtask_finished of a vertex).
	Boundary bool `json:"boundary"`
}

// Case is the outcome of one crash point and fault.
type Case struct {
	Point int64 `json:"point"`
	Fault Fault `json:"fault"`
	// SecondPoint is where the master died again during recovery
	// (FaultDouble), 0 when the recovery ended first.
	SecondPoint int64 `json:"second_point,omitempty"`
	// LostWorker is the worker whose partitions were lost (FaultWorker).
	LostWorker string `json:"lost_worker,omitempty"`
	// TornSegment is the segment that was truncated (FaultTornTail), and
	// TornSize the size it was cut to.
	TornSegment string `json:"torn_segment,omitempty"`
	TornSize    int64  `json:"torn_size,omitempty"`
	// Predicted lists the subtasks the dry-run plan of the crashed log
	// says the resumed master starts (rerun and run, plus every subtask of
	// the vertices not initialized yet), as "vertex/subtask" in graph
	// order; Actual the subtasks for which the resumed master wrote
	// subtask_started in its epoch (once each, even when an attempt failed
	// and was retried). For FaultDouble both are those of the last
	// recovery.
	Predicted []string `json:"predicted"`
	Actual    []string `json:"actual"`
	// Match reports whether the prediction held: the same subtasks, each
	// started first with the attempt the plan names (and, for FaultDouble,
	// the interrupted recovery started nothing the first plan did not
	// predict).
	Match bool `json:"match"`
	// OutputIdentical reports whether the output bytes equal the clean
	// run's, file by file.
	OutputIdentical bool `json:"output_identical"`
	// LogErrors counts the error findings of replay.Validate on the
	// recovered log.
	LogErrors int `json:"log_errors"`
	// RedoneSubtasks counts the subtasks that had finished before a crash
	// and ran again; RedoneBytes sums the bytes_out of those finished
	// events: the work the failover threw away.
	RedoneSubtasks int   `json:"redone_subtasks"`
	RedoneBytes    int64 `json:"redone_bytes"`
	// RecoveryMs is the wall time of the resumed run(s), from the start
	// of the recovering master to job_finished.
	RecoveryMs float64 `json:"recovery_ms,omitempty"`
	// Error is set when a run of the case did not go as a drill needs
	// (the crash did not happen, the resumed job failed, the log could not
	// be read).
	Error string `json:"error,omitempty"`
	// Problems says what went wrong, one line each; empty when the case
	// passed.
	Problems []string `json:"problems"`
	// Kept is where the failing case was kept, Repro the commands that
	// replay it (also in Kept/repro.sh).
	Kept  string   `json:"kept,omitempty"`
	Repro []string `json:"repro,omitempty"`
}

// OK reports whether the case passed: prediction matched, output
// identical, recovered log valid, nothing else went wrong.
func (c *Case) OK() bool { return len(c.Problems) == 0 }

// Name returns "point 12 worker", for messages.
func (c *Case) Name() string { return fmt.Sprintf("point %d %s", c.Point, c.Fault) }

// CurvePoint is one point of the recovery cost curve.
type CurvePoint struct {
	Seq      int64          `json:"seq"`
	Event    string         `json:"event"`
	Boundary bool           `json:"boundary"`
	Redone   map[Fault]Cost `json:"redone"`
}

// Cost is the work a failover made the job redo.
type Cost struct {
	Subtasks int   `json:"subtasks"`
	Bytes    int64 `json:"bytes"`
}

// Verdict sums a drill up.
type Verdict struct {
	Points int `json:"points"`
	Faults int `json:"faults"`
	Cases  int `json:"cases"`
	// Errors counts the cases whose runs did not go as a drill needs
	// (they were not judged); of the others, Mismatched counts those whose
	// prediction did not hold, OutputDiffers those whose output differed,
	// InvalidLog those whose recovered log has validate errors (a case can
	// count in several). Failed counts every case with a problem.
	Mismatched    int `json:"mismatched"`
	OutputDiffers int `json:"output_differs"`
	InvalidLog    int `json:"invalid_log"`
	Errors        int `json:"errors"`
	Failed        int `json:"failed"`
	// OK reports whether every case passed.
	OK bool `json:"ok"`
}

// String is the verdict line: "35 points, 5 faults: all predictions
// matched, output identical", or what failed.
func (v Verdict) String() string {
	head := human.Count(v.Points, "point") + ", " + human.Count(v.Faults, "fault")
	if v.OK {
		return head + ": all predictions matched, output identical"
	}
	var parts []string
	if v.Mismatched > 0 {
		parts = append(parts, human.Count(v.Mismatched, "prediction")+" mismatched")
	}
	if v.OutputDiffers > 0 {
		parts = append(parts, human.Count(v.OutputDiffers, "output")+" differ")
	}
	if v.InvalidLog > 0 {
		parts = append(parts, human.Count(v.InvalidLog, "recovered log")+" invalid")
	}
	if v.Errors > 0 {
		parts = append(parts, fmt.Sprintf("%d with run errors", v.Errors))
	}
	return fmt.Sprintf("%s: %d of %d cases FAILED (%s)", head, v.Failed, v.Cases, strings.Join(parts, ", "))
}

// StripTiming zeroes the timing fields, so that two results of the same
// drill compare equal (`jobevent drill --no-timing`).
func (r *Result) StripTiming() {
	r.CleanMs = 0
	for i := range r.Cases {
		r.Cases[i].RecoveryMs = 0
	}
}

// MostExposed returns the crash point where fault f made the job redo the
// most bytes (of equals, the one with the most subtasks, then the
// earliest), and false when the drill did not run f.
func (r *Result) MostExposed(f Fault) (CurvePoint, bool) {
	var best CurvePoint
	found := false
	for _, p := range r.Curve {
		c, ok := p.Redone[f]
		if !ok {
			continue
		}
		if !found || c.Bytes > best.Redone[f].Bytes || c.Bytes == best.Redone[f].Bytes && c.Subtasks > best.Redone[f].Subtasks {
			best, found = p, true
		}
	}
	return best, found
}

func (r *Result) verdict() Verdict {
	v := Verdict{Points: len(r.Points), Faults: len(r.Faults), Cases: len(r.Cases)}
	for i := range r.Cases {
		c := &r.Cases[i]
		if !c.OK() {
			v.Failed++
		}
		if c.Error != "" {
			v.Errors++ // never judged: neither matched nor differed
			continue
		}
		if !c.Match {
			v.Mismatched++
		}
		if !c.OutputIdentical {
			v.OutputDiffers++
		}
		if c.LogErrors > 0 {
			v.InvalidLog++
		}
	}
	v.OK = v.Failed == 0
	return v
}

func (r *Result) curve() []CurvePoint {
	byPoint := map[int64]int{}
	out := make([]CurvePoint, len(r.Points))
	for i, p := range r.Points {
		out[i] = CurvePoint{Seq: p.Seq, Event: p.Event, Boundary: p.Boundary, Redone: map[Fault]Cost{}}
		byPoint[p.Seq] = i
	}
	for _, c := range r.Cases {
		if i, ok := byPoint[c.Point]; ok {
			out[i].Redone[c.Fault] = Cost{Subtasks: c.RedoneSubtasks, Bytes: c.RedoneBytes}
		}
	}
	return out
}
