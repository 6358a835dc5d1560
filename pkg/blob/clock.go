package blob

import "time"

// Clock is the time source of a Writer: the time stamped on events appended
// without one, the flush-interval timer and the retry backoff. Tests inject a
// fake (internal/blobtest.Clock) so that nothing waits on the wall clock.
// Implementations must be safe for concurrent use.
type Clock interface {
	Now() time.Time
	// After returns a channel that receives once, when d has passed.
	After(d time.Duration) <-chan time.Time
}

// realClock is the wall clock.
type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
