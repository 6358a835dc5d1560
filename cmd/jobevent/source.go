package main

import (
	"errors"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/pkg/logsource"
)

// openLog opens the LOG argument of the command running in c with
// package logsource, which resolves every kind of log once. The errors
// that are the user's to fix (Flink flags on another log, --follow on a
// log that cannot grow) are usage errors.
func openLog(c *cli.Context, arg string, o logsource.Options) (logsource.Source, error) {
	if o.Stdin == nil && arg == "-" {
		o.Stdin = c.App.Reader
	}
	src, err := logsource.Open(c.Context, arg, o)
	var fe *logsource.FlinkOptionsError
	var we *logsource.FollowError
	var ce *logsource.CoordinatorError
	if errors.As(err, &fe) || errors.As(err, &we) || errors.As(err, &ce) {
		return nil, &usageError{msg: err.Error()}
	}
	return src, err
}
