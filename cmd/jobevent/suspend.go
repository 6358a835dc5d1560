package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/pkg/runtime"
)

// endBySignal turns the end of a run or master that a signal stopped into
// its one line and exit code; other errors come back unchanged. A job the
// master suspended (the first SIGINT or SIGTERM) exits 130 or 143 with the
// commands that resume or cancel it; a second SIGINT that came after the
// master had suspended cancels the job in the log (exit 1, as a canceled
// job). resume is the command that resumes the job.
func endBySignal(c *cli.Context, logURL string, resume []string, workDir string, err error) error {
	in := interruptsOf(c.Context)
	var susp *runtime.SuspendedError
	switch {
	case errors.As(err, &susp):
	case err != nil && errors.Is(err, context.Canceled) && in.signal() != nil:
		return &exitError{code: in.exitCode(), err: fmt.Errorf("stopped by %s: %v", in.signalName(), err)}
	default:
		return err
	}
	if in.canceled() {
		host, _ := os.Hostname()
		res, cerr := runtime.CancelInLog(context.Background(), logURL, runtime.CancelOptions{By: host, WorkDir: workDir, Stderr: c.App.ErrWriter})
		if cerr != nil {
			return fmt.Errorf("job %s suspended, and canceling it after the second SIGINT failed: %w", susp.Job, cerr)
		}
		return &runtime.JobError{Job: res.Job, Status: res.Status, Err: fmt.Sprintf("by a second SIGINT (job_finished in epoch %d)", res.Epoch)}
	}
	cmd := ""
	for _, a := range resume {
		if cmd != "" {
			cmd += " "
		}
		cmd += shellWord(a)
	}
	return &exitError{code: in.exitCode(), err: fmt.Errorf("job %s suspended by %s after event %d (nothing more written, partitions kept): resume it with `%s`, or cancel it with `jobevent cancel %s`",
		susp.Job, in.signalName(), susp.Seq, cmd, shellWord(logURL))}
}

var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./:=@,+-]+$`)

// shellWord quotes s for a shell unless it needs no quotes.
func shellWord(s string) string {
	if plainWord.MatchString(s) {
		return s
	}
	return shQuote(s)
}
