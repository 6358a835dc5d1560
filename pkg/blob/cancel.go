package blob

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// RequestCancel asks the master holding the job to cancel it, by writing
// the CancelKey object; the master sees it at its next heartbeat and ends
// the job with status canceled. Asking twice is not an error. Safe for
// concurrent use.
func (l *Log) RequestCancel(ctx context.Context, by string) error {
	body := fmt.Sprintf("{\"requested_by\":%q,\"requested_at\":%q}\n", by, time.Now().UTC().Format(time.RFC3339Nano))
	err := l.store.create(ctx, CancelKey, []byte(body), contentTypeJSON)
	if errors.Is(err, errKeyTaken) {
		return nil
	}
	return err
}

// CancelRequested reports whether RequestCancel was called on the log. Safe
// for concurrent use.
func (l *Log) CancelRequested(ctx context.Context) (bool, error) {
	_, err := l.store.stat(ctx, CancelKey)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}
