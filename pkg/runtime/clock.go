package runtime

import "time"

// Clock is the runtime's time source: event times, restart delays,
// snapshot pauses, heartbeats and recovery timeouts. It has the method set
// of blob.Clock, so one fake drives both in tests. Implementations must
// be safe for concurrent use.
type Clock interface {
	Now() time.Time
	// After returns a channel that receives once, when d has passed.
	After(d time.Duration) <-chan time.Time
}

type wallClock struct{}

func (wallClock) Now() time.Time                         { return time.Now() }
func (wallClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
