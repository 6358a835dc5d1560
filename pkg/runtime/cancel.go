package runtime

import (
	"context"

	"github.com/jobevent/jobevent/pkg/blob"
)

// watchingHeartbeat returns the master's heartbeat for epoch: it rewrites
// the epoch's heartbeat object and, once `jobevent cancel` has asked for it
// (the log's blob.CancelKey object), calls cancel, which ends the job as
// SIGTERM does: status canceled.
func watchingHeartbeat(log *blob.Log, epoch int32, cancel context.CancelFunc) func(context.Context) error {
	return func(ctx context.Context) error {
		if ok, err := log.CancelRequested(ctx); err == nil && ok {
			cancel()
		}
		return log.Heartbeat(ctx, epoch)
	}
}
