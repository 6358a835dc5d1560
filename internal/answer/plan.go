package answer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/logsource"
	"github.com/jobevent/jobevent/pkg/replay"
)

// PlanQuery is the question of replay --dry-run: the plan as if the
// master died after event At (0: the last), with the what-if options.
type PlanQuery struct {
	At        int64
	Available replay.AvailabilityOptions
}

// PlanAnswer is the answer of replay --dry-run and what the caller may
// warn about.
type PlanAnswer struct {
	// DryRun is the plan decided, laid out as rows by Plan or written
	// row by row by WriteJSON; nil when replay.DecideDryRun failed.
	DryRun *replay.DryRun
	State  *replay.State
	// Note is the log's note on its settings (logsource.WithSettings),
	// printed unless the log is Flink's; "" for none.
	Note string
	// Unreadable is the fold's error when the log could not be read whole
	// and the plan is the one a resumed master makes of it
	// (log_unreadable); nil otherwise.
	Unreadable error
}

// Plan answers replay --dry-run for src, opened with Until: q.At: it reads
// the columns the plan depends on (logsource.WithProjection), folds the
// log to q.At and plans with the log's settings. An error of
// replay.DecideDryRun is returned as is (the caller names the flag at
// fault, AvailabilityError).
func Plan(ctx context.Context, src logsource.Source, q PlanQuery) (*PlanAnswer, error) {
	var po replay.PlanOptions
	a := &PlanAnswer{}
	if s, ok := src.(logsource.WithSettings); ok {
		var err error
		if po, a.Note, err = s.PlanOptions(ctx); err != nil {
			return nil, err
		}
	}
	if p, ok := src.(logsource.WithProjection); ok {
		p.Project(replay.PlanFields) // the columns the plan depends on
	}
	st, err := replay.Fold(src, q.At)
	if err != nil {
		if r, ok := src.(logsource.WithRecover); !ok || !r.Unreadable(err) {
			return nil, err
		}
		po.LogUnreadable, a.Unreadable = true, err
	}
	a.State = st
	if a.DryRun, err = replay.DecideDryRun(st, q.Available, po); err != nil {
		return a, err
	}
	return a, nil
}

// Plan returns the plan laid out as rows (replay.DryRun.Plan).
func (a *PlanAnswer) Plan() *replay.RecoveryPlan { return a.DryRun.Plan() }

// WriteJSON writes the plan's JSON with the vertices' names: the bytes
// replay.WritePlanJSON writes for Plan(), written row by row as they are
// decided, so that a plan printed once is never held whole.
func (a *PlanAnswer) WriteJSON(w io.Writer) error {
	return a.DryRun.WriteJSON(w, a.State.Names())
}

// AvailabilityError is the message of replay.DecideDryRun's err on the
// what-if options o: the flag and value at fault, then what is wrong.
func AvailabilityError(st *replay.State, o replay.AvailabilityOptions, err error) error {
	if !errors.Is(err, replay.ErrUnknownVertex) {
		return err
	}
	var ids []string
	for _, v := range st.Graph().Vertices {
		ids = append(ids, v.ID)
	}
	for _, r := range o.LostPartitions {
		if !slices.Contains(ids, r.Vertex) {
			return fmt.Errorf("--lost-partition %s: unknown vertex %q; the job's vertices are %s", r, r.Vertex, strings.Join(ids, ", "))
		}
	}
	return err
}

// ParseSubtaskRef parses "vertex/subtask", the value of --lost-partition.
func ParseSubtaskRef(s string) (format.SubtaskRef, error) {
	i := strings.LastIndexByte(s, '/')
	if i <= 0 {
		return format.SubtaskRef{}, fmt.Errorf("want VERTEX/SUBTASK")
	}
	n, err := strconv.ParseInt(s[i+1:], 10, 32)
	if err != nil || n < 0 {
		return format.SubtaskRef{}, fmt.Errorf("want VERTEX/SUBTASK with a subtask number >= 0")
	}
	return format.SubtaskRef{Vertex: s[:i], Subtask: int32(n)}, nil
}

// ParseCoordinator parses "VERTEX=KIND", the value of --coordinator (a
// Flink log's coordinator kind of a vertex, by 32-hex id or name): KIND
// is batch_snapshot, no_batch_snapshot or none. ok is false for anything
// else.
func ParseCoordinator(s string) (vertex, kind string, ok bool) {
	vertex, kind, ok = strings.Cut(s, "=")
	switch kind {
	case format.CoordinatorBatchSnapshot, format.CoordinatorNoBatchSnapshot, format.CoordinatorNone:
	default:
		ok = false
	}
	return vertex, kind, ok && vertex != ""
}
