package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/internal/answer"
	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/logsource"
	"github.com/jobevent/jobevent/pkg/replay"
	"github.com/jobevent/jobevent/pkg/runtime"
)

func newCancelCommand() *cli.Command {
	return &cli.Command{
		Name:  "cancel",
		Usage: "cancel a job: ask its master, or, when no master holds it, cancel it in the log",
		UsageText: "jobevent cancel LOG [--work-dir DIR] [--format table|json]\n\n" +
			"EXAMPLE:\n" +
			"   jobevent cancel 'file:///var/lib/jobevent?prefix=jobs/wordcount/'",
		Description: "When a master holds the job (its heartbeat is fresh, judged as `jobevent status` does,\n" +
			"against the job's heartbeat.timeout), cancel writes the log's cancel object: the master\n" +
			"(embedded, a `jobevent master` process, or one that recovers the job later) sees it at\n" +
			"its next heartbeat and ends the job with job_finished canceled (`run` exits 1).\n" +
			"When no master holds it (its heartbeat is stale: the master died or was suspended by a\n" +
			"signal), cancel ends it in the log itself: it claims the next epoch (which fences any\n" +
			"older master), writes master_started and job_finished canceled there, and deletes the\n" +
			"job's staging objects and, with --work-dir, the partitions of its embedded workers\n" +
			"(worker processes delete theirs when they see the end in the log). A job that has\n" +
			"already ended is left alone.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "work-dir", Usage: "the embedded workers' `DIR` (run --work-dir) whose partitions of the job to delete"},
			formatFlag("table", "json"),
		},
		Action: runCancel,
	}
}

// cancelResult is what cancel prints.
type cancelResult struct {
	Log       string `json:"log"`
	Job       string `json:"job"`
	Requested bool   `json:"requested"` // asked the master holding the job
	// Direct is true when no master held the job and cancel ended it in
	// the log, in Epoch.
	Direct    bool   `json:"direct"`
	Epoch     int32  `json:"epoch,omitempty"`
	Status    string `json:"status"`    // the job's status as the log has it ("" while running)
	Heartbeat string `json:"heartbeat"` // alive, stale, none (as status says), or ended
}

func runCancel(c *cli.Context) error {
	if err := wantArgs(c, 1, 1); err != nil {
		return err
	}
	arg := c.Args().First()
	if logsource.IsJSONLPath(arg) {
		return fmt.Errorf("%s: cancel needs a bucket log, not a JSONL file", arg)
	}
	src, err := openLog(c, arg, logsource.Options{})
	if err != nil {
		return err
	}
	state, err := replay.Fold(src, 0)
	src.Close()
	if err != nil {
		return err
	}
	res := cancelResult{Log: arg, Job: state.Job(), Status: state.Status(), Heartbeat: "ended"}
	var st jobStatus
	if res.Status == "" {
		job, timeout := jobOfLog(c.Context, arg)
		if res.Job == "" {
			res.Job = job // no events yet: the name in job.yaml
		}
		if err := waitForEpoch(c, arg, timeout, &st); err != nil {
			return err
		}
		res.Log, res.Heartbeat = st.Log, st.Heartbeat
		if err := cancelJob(c, &res); err != nil {
			return err
		}
	}
	if c.String("format") == "json" {
		return writeJSON(c.App.Writer, res)
	}
	switch {
	case res.Direct && res.Epoch == 0:
		_, err = fmt.Fprintf(c.App.Writer, "job %s ended (%s) while cancel looked: nothing to cancel\n", res.Job, res.Status)
	case res.Direct:
		why := fmt.Sprintf("the heartbeat of epoch %d is stale", st.Epoch)
		if res.Heartbeat == "none" {
			why = "no master claimed an epoch within the heartbeat timeout"
		}
		_, err = fmt.Fprintf(c.App.Writer, "no master holds job %s (%s): canceled it in the log (job_finished canceled in epoch %d)\n",
			res.Job, why, res.Epoch)
	case res.Requested:
		_, err = fmt.Fprintf(c.App.Writer, "asked the master of job %s (epoch %d, heartbeat alive) to cancel it: it stops at its next heartbeat; "+
			"if that master is gone, run cancel again once its heartbeat is stale and the job is canceled in the log\n", res.Job, st.Epoch)
	default:
		_, err = fmt.Fprintf(c.App.Writer, "job %s has already ended (%s): nothing to cancel\n", res.Job, res.Status)
	}
	return err
}

// waitForEpoch fills st with the holder of the log, as status does. A log
// whose job.yaml is written but whose first epoch is not claimed yet may
// be a master starting the job right now: as a standby does, it waits a
// whole heartbeat timeout for an epoch before it takes the job for
// abandoned.
func waitForEpoch(c *cli.Context, url string, timeout time.Duration, st *jobStatus) error {
	deadline := time.Now().Add(timeout)
	for {
		if err := answer.FillEpoch(c.Context, url, timeout, st); err != nil {
			return err
		}
		if st.Heartbeat != "none" || time.Now().After(deadline) {
			return nil
		}
		select {
		case <-c.Context.Done():
			return c.Context.Err()
		case <-time.After(min(timeout/10, time.Second)):
		}
	}
}

// cancelJob asks the master holding the job to cancel it, or, when none
// does, cancels it in the log.
func cancelJob(c *cli.Context, res *cancelResult) error {
	host, _ := os.Hostname()
	if res.Heartbeat == "alive" {
		log, err := blob.Open(c.Context, res.Log)
		if err != nil {
			return err
		}
		defer log.Close()
		if err := log.RequestCancel(c.Context, host); err != nil {
			return err
		}
		res.Requested = true
		return nil
	}
	done, err := runtime.CancelInLog(c.Context, res.Log, runtime.CancelOptions{By: host, WorkDir: c.String("work-dir"), Stderr: c.App.ErrWriter})
	if err != nil {
		return err
	}
	res.Direct, res.Epoch, res.Status = true, done.Epoch, done.Status
	return nil
}

// jobOfLog returns the job name and heartbeat.timeout of the job.yaml in
// the log at url: "" and the default timeout when it cannot be read.
func jobOfLog(ctx context.Context, url string) (string, time.Duration) {
	timeout := runtime.DefaultSettings().HeartbeatTimeout
	log, err := blob.Open(ctx, url)
	if err != nil {
		return "", timeout
	}
	defer log.Close()
	raw, err := log.ReadSpec(ctx)
	if err != nil {
		return "", timeout
	}
	spec, err := runtime.ParseSpec("job.yaml", raw)
	if err != nil {
		return "", timeout
	}
	return spec.Job, spec.Settings.HeartbeatTimeout
}
