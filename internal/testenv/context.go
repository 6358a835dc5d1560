package testenv

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// Deadline bounds each test context: the slowest test of the suite takes
// about 15 s, so a test still running after Deadline hangs.
const Deadline = 2 * time.Minute

// Context returns a context that ends when t ends or after Deadline,
// whichever is first, so that a test that hangs fails with a message
// naming it instead of holding the run until go test's own timeout.
// context.Cause of the expired context says which test and how long.
func Context(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeoutCause(t.Context(), Deadline,
		fmt.Errorf("%s: still running after %v", t.Name(), Deadline))
	t.Cleanup(cancel)
	return ctx
}
