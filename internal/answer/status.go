package answer

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/logsource"
	"github.com/jobevent/jobevent/pkg/replay"
)

// Status is the answer of status: which master and epoch hold a job, its
// heartbeat, progress and Recording health.
type Status struct {
	Log   string `json:"log"`
	Job   string `json:"job"`
	State string `json:"state"` // finished, failed, canceled, running, stale, not started
	// Status is State again, under the key ls gives it: JSON keys are
	// added, never renamed.
	Status   string `json:"status"`
	Epoch    int32  `json:"epoch"`
	Master   string `json:"master"`
	StartSeq int64  `json:"start_seq"`
	// Heartbeat is "alive", "stale", "ended" (the job has ended; the age is
	// that of the last heartbeat), "none" (no heartbeat or epoch object) or
	// "n/a" (a JSONL file); HeartbeatAgeSeconds is null when unknown.
	Heartbeat           string      `json:"heartbeat"`
	HeartbeatAgeSeconds *float64    `json:"heartbeat_age_seconds"`
	Events              int64       `json:"events"`
	LastSeq             int64       `json:"last_seq"`
	Subtasks            SubtaskDone `json:"subtasks"`
	Vertices            []VertexRun `json:"vertices"`
	Recording           Recording   `json:"recording"`
}

// SubtaskDone counts finished subtasks out of those known: vertices of
// auto parallelism that are not yet initialized have an unknown count, and
// TotalKnown is false while there are any.
type SubtaskDone struct {
	Finished   int  `json:"finished"`
	Total      int  `json:"total"`
	TotalKnown bool `json:"total_known"`
}

type VertexRun struct {
	Vertex      string `json:"vertex"`
	Parallelism *int32 `json:"parallelism"` // null: not decided yet
	Finished    int    `json:"finished"`
}

// Recording is the health of the log as written.
type Recording struct {
	Health         string   `json:"health"` // ok, warning, corrupt
	TornTail       []string `json:"torn_tail"`
	FencedRows     int64    `json:"fenced_rows"`
	UnknownObjects []string `json:"unknown_objects"`
	Error          string   `json:"error,omitempty"`
}

// StatusOptions configures JobStatus.
type StatusOptions struct {
	// HeartbeatTimeout is the age past which a heartbeat is stale.
	HeartbeatTimeout time.Duration
	// Open opens the log (the CLI's openLog, the server's resolver).
	Open func(arg string) (logsource.Source, error)
	// Notices, when set, gets the reader's notices after the fold.
	Notices func([]format.Notice)
	// Fold, when set, folds the opened log in place of replay.Fold(src,
	// 0): a caller that reads the log for more than the status (the job
	// page of serve) folds it once. It must return the fold of every
	// event of src.
	Fold func(src logsource.Source) (*replay.State, error)
}

// JobStatus answers status for the log arg: the holder of the log and its
// heartbeat from its epoch objects (not for a JSONL file), then the
// progress and health from a fold of the log. A log that cannot be
// folded is an answer with health "corrupt", and foldErr is that error;
// err is an error that leaves no answer.
func JobStatus(ctx context.Context, arg string, o StatusOptions) (st *Status, foldErr, err error) {
	st = &Status{Log: arg, Heartbeat: "n/a", Vertices: []VertexRun{},
		Recording: Recording{Health: "ok", TornTail: []string{}, UnknownObjects: []string{}}}
	if !logsource.IsJSONLPath(arg) {
		if err := FillEpoch(ctx, arg, o.HeartbeatTimeout, st); err != nil {
			return nil, nil, err
		}
	}
	src, err := o.Open(arg)
	if err != nil {
		return nil, nil, err
	}
	defer src.Close()
	fold := o.Fold
	if fold == nil {
		fold = func(src logsource.Source) (*replay.State, error) { return replay.Fold(src, 0) }
	}
	state, foldErr := fold(src)
	notices := src.Notices()
	if o.Notices != nil {
		o.Notices(notices)
	}
	fillProgress(state, st)
	fillHealth(notices, foldErr, st)
	return st, foldErr, nil
}

// FillEpoch fills in the holder of the log at arg and its heartbeat, from
// its epoch objects and the heartbeat object (status, cancel).
func FillEpoch(ctx context.Context, arg string, timeout time.Duration, st *Status) error {
	log, err := blob.Open(ctx, arg)
	if err != nil {
		return err
	}
	defer log.Close()
	st.Log = log.URL()
	epochs, err := log.Epochs(ctx)
	if err != nil && !blob.IsCorrupt(err) {
		return err
	}
	st.Heartbeat = "none"
	if len(epochs) == 0 {
		return nil
	}
	e := epochs[len(epochs)-1]
	st.Epoch, st.Master, st.StartSeq = e.Epoch, e.Master, e.StartSeq
	// Read-only: the heartbeat's time as the bucket reports it, aged by
	// this machine's clock (a master judging a stale peer uses the
	// bucket's clock alone, which takes a write).
	last, err := log.HeartbeatTime(ctx, e.Epoch)
	if errors.Is(err, blob.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	age := max(time.Since(last), 0)
	secs := age.Seconds()
	st.HeartbeatAgeSeconds = &secs
	st.Heartbeat = "alive"
	if age > timeout {
		st.Heartbeat = "stale"
	}
	return nil
}

// fillProgress fills in what the fold of the log says.
func fillProgress(s *replay.State, st *Status) {
	st.Job, st.Events, st.LastSeq = s.Job(), s.Events(), s.LastSeq()
	if st.Epoch == 0 {
		st.Epoch, st.Master = s.Epoch(), s.Master()
	}
	finished := make(map[string]int)
	for _, f := range s.Finished() {
		finished[f.Vertex]++
		st.Subtasks.Finished++
	}
	st.Subtasks.TotalKnown = true
	if g := s.Graph(); g != nil {
		for _, v := range g.Vertices {
			run := VertexRun{Vertex: v.ID, Finished: finished[v.ID]}
			p, ok := s.Parallelism(v.ID)
			if !ok && v.Parallelism > 0 {
				p, ok = v.Parallelism, true
			}
			if ok {
				run.Parallelism = &p
				st.Subtasks.Total += int(p)
			} else {
				st.Subtasks.TotalKnown = false
			}
			st.Vertices = append(st.Vertices, run)
		}
	}
	switch {
	case s.Status() != "":
		st.State = s.Status()
		// The master of an ended job stops its heartbeat: its age says
		// when the job ended, not that a master died.
		if st.Heartbeat == "alive" || st.Heartbeat == "stale" {
			st.Heartbeat = "ended"
		}
	case st.Events == 0:
		st.State = "not started"
	case st.Heartbeat == "stale":
		st.State = "stale"
	default:
		st.State = "running"
	}
	st.Status = st.State
}

// fillHealth fills in the recording health from the reader's notices and the
// fold's error.
func fillHealth(notices []format.Notice, err error, st *Status) {
	r := &st.Recording
	for _, n := range notices {
		switch n.Kind {
		case format.NoticeTornTail:
			r.TornTail = append(r.TornTail, n.Key)
		case format.NoticeFenced:
			r.FencedRows += n.Count
		case format.NoticeUnknownObject:
			r.UnknownObjects = append(r.UnknownObjects, n.Key)
		}
	}
	if len(r.TornTail) > 0 || r.FencedRows > 0 || len(r.UnknownObjects) > 0 {
		r.Health = "warning"
	}
	if err != nil {
		r.Health, r.Error = "corrupt", strings.TrimPrefix(ErrorLine(err, ""), "jobevent: ")
	}
}
