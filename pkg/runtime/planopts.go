package runtime

import (
	"context"
	"errors"
	"fmt"

	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/replay"
)

// PlanOptions returns the options of replay.PlanRecovery that these
// settings select: RecoveryDisabled when KeyRecoveryEnabled is false.
func (s *Settings) PlanOptions() replay.PlanOptions {
	return replay.PlanOptions{RecoveryDisabled: !s.RecoveryEnabled}
}

// LogPlanOptions reads the job.yaml stored in log and returns the options
// of replay.PlanRecovery that its settings select, as a recovering master
// applies them. found is false, with the default options (recovery
// enabled), when the log holds no job.yaml (an imported log); a job.yaml
// that cannot be read or parsed is an error.
func LogPlanOptions(ctx context.Context, log *blob.Log) (opts replay.PlanOptions, found bool, err error) {
	raw, err := log.ReadSpec(ctx)
	if errors.Is(err, blob.ErrNotFound) {
		return replay.PlanOptions{}, false, nil
	}
	if err != nil {
		return replay.PlanOptions{}, false, err
	}
	spec, err := ParseSpec("job.yaml", raw)
	if err != nil {
		return replay.PlanOptions{}, true, fmt.Errorf("%s: %w", log.URL(), err)
	}
	return spec.Settings.PlanOptions(), true, nil
}
