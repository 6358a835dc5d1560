package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/internal/human"
	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/logsource"
	"github.com/jobevent/jobevent/pkg/replay"
	"github.com/jobevent/jobevent/pkg/runtime"
)

func newStatusCommand() *cli.Command {
	return &cli.Command{
		Name:  "status",
		Usage: "which master holds a job, its heartbeat, progress and recording health",
		UsageText: "jobevent status LOG [--heartbeat-timeout DURATION] [--format table|json]\n\n" +
			"EXAMPLES:\n" +
			"   jobevent status 'file:///var/lib/jobevent?prefix=jobs/wordcount/'\n" +
			"   jobevent status 'gs://ops-logs?prefix=jobs/wordcount/' --format json | jq .heartbeat",
		Description: "Prints which master and epoch hold the job (the newest epoch object), how long ago that\n" +
			"master last wrote its heartbeat (the heartbeat object's modification time as the bucket\n" +
			"reports it, aged by this machine's clock) and whether that is past --heartbeat-timeout\n" +
			"(the runtime's heartbeat.timeout, after which a standby takes over; a standby judges by\n" +
			"the bucket's clock alone); the progress from a replay of the log (events, last seq,\n" +
			"finished subtasks out of those known); and the recording health: a torn tail, rows of\n" +
			"fenced masters, unknown objects, corruption. Status only reads: read-only credentials\n" +
			"are enough. Corruption is printed and ends the command with exit code 2.",
		Flags: []cli.Flag{
			&cli.DurationFlag{Name: "heartbeat-timeout", Usage: "a heartbeat older than `DURATION` is stale",
				Value: runtime.DefaultSettings().HeartbeatTimeout},
			formatFlag("table", "json"),
		},
		Action: runStatus,
	}
}

// jobStatus is what status prints.
type jobStatus struct {
	Log      string `json:"log"`
	Job      string `json:"job"`
	State    string `json:"state"` // finished, failed, canceled, running, stale, not started
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
	Subtasks            subtaskDone `json:"subtasks"`
	Vertices            []vertexRun `json:"vertices"`
	Recording           recording   `json:"recording"`
}

// subtaskDone counts finished subtasks out of those known: vertices of
// auto parallelism that are not yet initialized have an unknown count, and
// TotalKnown is false while there are any.
type subtaskDone struct {
	Finished   int  `json:"finished"`
	Total      int  `json:"total"`
	TotalKnown bool `json:"total_known"`
}

type vertexRun struct {
	Vertex      string `json:"vertex"`
	Parallelism *int32 `json:"parallelism"` // null: not decided yet
	Finished    int    `json:"finished"`
}

// recording is the health of the log as written.
type recording struct {
	Health         string   `json:"health"` // ok, warning, corrupt
	TornTail       []string `json:"torn_tail"`
	FencedRows     int64    `json:"fenced_rows"`
	UnknownObjects []string `json:"unknown_objects"`
	Error          string   `json:"error,omitempty"`
}

func runStatus(c *cli.Context) error {
	if err := wantArgs(c, 1, 1); err != nil {
		return err
	}
	if d := c.Duration("heartbeat-timeout"); d <= 0 {
		return usagef(c, "bad --heartbeat-timeout %v: want a positive duration", d)
	}
	arg := c.Args().First()
	st := &jobStatus{Log: arg, Heartbeat: "n/a", Vertices: []vertexRun{},
		Recording: recording{Health: "ok", TornTail: []string{}, UnknownObjects: []string{}}}
	if !logsource.IsJSONLPath(arg) {
		if err := fillEpoch(c.Context, arg, c.Duration("heartbeat-timeout"), st); err != nil {
			return err
		}
	}
	src, err := openLog(c, arg, logsource.Options{})
	if err != nil {
		return err
	}
	defer src.Close()
	state, foldErr := replay.Fold(src, 0)
	notices := src.Notices()
	printNotices(c.App.ErrWriter, notices)
	fillProgress(state, st)
	fillHealth(notices, foldErr, st)
	if c.String("format") == "json" {
		err = writeJSON(c.App.Writer, st)
	} else {
		err = printStatus(c.App.Writer, st)
	}
	if err != nil {
		return err
	}
	if foldErr != nil {
		return &exitError{code: exitFailure, err: foldErr}
	}
	return nil
}

// fillEpoch fills in the holder of the log and its heartbeat.
func fillEpoch(ctx context.Context, arg string, timeout time.Duration, st *jobStatus) error {
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
func fillProgress(s *replay.State, st *jobStatus) {
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
			run := vertexRun{Vertex: v.ID, Finished: finished[v.ID]}
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
}

// fillHealth fills in the recording health from the reader's notices and the
// fold's error.
func fillHealth(notices []format.Notice, err error, st *jobStatus) {
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
		r.Health, r.Error = "corrupt", strings.TrimPrefix(errorLine(err), "jobevent: ")
	}
}

// printStatus writes the table form of st.
func printStatus(w io.Writer, st *jobStatus) error {
	fmt.Fprintf(w, "log:        %s\n", st.Log)
	fmt.Fprintf(w, "job:        %s (%s)\n", orDash(st.Job), st.State)
	holder := "-"
	if st.Epoch > 0 {
		holder = fmt.Sprintf("epoch %d, master %s", st.Epoch, orDash(st.Master))
		if st.StartSeq > 0 {
			holder += fmt.Sprintf(", from seq %d", st.StartSeq)
		}
	}
	fmt.Fprintf(w, "held by:    %s\n", holder)
	hb := st.Heartbeat
	if st.HeartbeatAgeSeconds != nil {
		hb = fmt.Sprintf("%s ago (%s)", seconds(*st.HeartbeatAgeSeconds), st.Heartbeat)
		if st.Heartbeat == "ended" {
			hb = fmt.Sprintf("last %s ago (the job has ended)", seconds(*st.HeartbeatAgeSeconds))
		}
	}
	fmt.Fprintf(w, "heartbeat:  %s\n", hb)
	total := strconv.Itoa(st.Subtasks.Total)
	if !st.Subtasks.TotalKnown {
		total = "at least " + total
	}
	fmt.Fprintf(w, "progress:   %s, last seq %d, %d of %s subtasks finished\n",
		human.Count(st.Events, "event"), st.LastSeq, st.Subtasks.Finished, total)
	fmt.Fprintf(w, "recording:  %s\n", recordingLine(&st.Recording))
	if len(st.Vertices) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	t := newTable(w, "vertex", "parallelism", "finished")
	for _, v := range st.Vertices {
		par := "auto (not decided)"
		if v.Parallelism != nil {
			par = strconv.Itoa(int(*v.Parallelism))
		}
		if err := t.Append(v.Vertex, par, strconv.Itoa(v.Finished)); err != nil {
			return fmt.Errorf("status: table: %w", err)
		}
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("status: table: %w", err)
	}
	return nil
}

func recordingLine(r *recording) string {
	if r.Health == "corrupt" {
		return "corrupt: " + r.Error
	}
	var parts []string
	for _, k := range r.TornTail {
		parts = append(parts, "torn tail "+k)
	}
	if r.FencedRows > 0 {
		parts = append(parts, human.Count(r.FencedRows, "row")+" of fenced masters filtered")
	}
	if n := len(r.UnknownObjects); n > 0 {
		parts = append(parts, human.Count(n, "unknown object")+" under events/")
	}
	if len(parts) == 0 {
		return "ok"
	}
	line := r.Health + ": " + parts[0]
	for _, p := range parts[1:] {
		line += "; " + p
	}
	return line
}
