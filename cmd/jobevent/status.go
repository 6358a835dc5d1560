package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/internal/answer"
	"github.com/jobevent/jobevent/internal/human"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/logsource"
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

// jobStatus is what status prints (answer.Status).
type jobStatus = answer.Status

// subtaskDone is the progress in a status (answer.SubtaskDone).
type subtaskDone = answer.SubtaskDone

func runStatus(c *cli.Context) error {
	if err := wantArgs(c, 1, 1); err != nil {
		return err
	}
	if d := c.Duration("heartbeat-timeout"); d <= 0 {
		return usagef(c, "bad --heartbeat-timeout %v: want a positive duration", d)
	}
	arg := c.Args().First()
	st, foldErr, err := answer.JobStatus(c.Context, arg, answer.StatusOptions{
		HeartbeatTimeout: c.Duration("heartbeat-timeout"),
		Open: func(arg string) (logsource.Source, error) {
			return openLog(c, arg, logsource.Options{})
		},
		Notices: func(n []format.Notice) { printNotices(c.App.ErrWriter, n) },
	})
	if err != nil {
		return err
	}
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

func recordingLine(r *answer.Recording) string {
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
