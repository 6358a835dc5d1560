package runtime

import (
	"context"
	"fmt"
	"io"

	"github.com/jobevent/jobevent/internal/human"
	"github.com/jobevent/jobevent/pkg/blob"
)

// compactOnFinish merges the segments of a finished job's log. The job has
// already succeeded and its log is closed, so a failure only costs read
// speed later: it is reported as a warning, never as the job's error.
func compactOnFinish(ctx context.Context, log *blob.Log, stderr io.Writer) {
	res, err := blob.Compact(ctx, log, blob.CompactOptions{})
	if err != nil {
		fmt.Fprintf(stderr, "jobevent: warning: compact on finish: %v (the log is intact; run `jobevent compact %s` later)\n", err, log.URL())
		return
	}
	fmt.Fprintf(stderr, "jobevent: compacted the log on finish: %s -> %d\n", human.Count(res.SegmentsBefore, "segment"), res.SegmentsAfter)
}
