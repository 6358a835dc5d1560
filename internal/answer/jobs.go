package answer

import (
	"context"

	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/logsource"
)

// Jobs is the answer of ls: the job logs under a bucket.
type Jobs struct {
	Bucket string          `json:"bucket"`
	Logs   []*blob.Summary `json:"logs"`
}

// ListJobs answers ls for root, a bucket or directory (logsource.List).
func ListJobs(ctx context.Context, root string) (*Jobs, error) {
	l, err := logsource.List(ctx, root)
	if err != nil {
		return nil, err
	}
	if l.Logs == nil {
		l.Logs = []*blob.Summary{}
	}
	return &Jobs{Bucket: l.Bucket, Logs: l.Logs}, nil
}
