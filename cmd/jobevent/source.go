package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/format"
)

// eventSource is an opened LOG argument: its events in log order, with
// fenced rows of superseded masters already filtered out. It satisfies
// replay.Source and its optional Key and Notices extras.
type eventSource interface {
	// Next returns the next event, or io.EOF after the last one.
	Next() (format.Event, error)
	// Key names where the last event came from: an object key, or the
	// path of a JSONL file.
	Key() string
	// Notices drains what the source passed over so far: torn tails,
	// fenced rows, unknown objects.
	Notices() []format.Notice
	// Close releases the source.
	Close() error
}

var (
	_ eventSource = (*blobSource)(nil)
	_ eventSource = (*blob.JSONLReader)(nil)
)

// sourceOptions selects what openSource reads.
type sourceOptions struct {
	since, until int64 // seq bounds, inclusive; 0 = unbounded
	follow       bool  // keep reading new segments until ctx is done
	poll         time.Duration
	// anySeq lets a JSONL file hold seqs below 1, and seqs that skip or
	// repeat, for validate, which reports them as findings; other commands
	// refuse such a file (a gap as the bucket reader does).
	anySeq bool
	// flink is the side information of --flink-plan and --coordinator;
	// nil when not given (and an error for any log but a Flink log).
	flink *flinkOptions
}

// noLogError is a LOG argument that names no log.
type noLogError struct{ url string }

func (e *noLogError) Error() string { return "no event log at " + e.url }

// openSource opens a LOG argument: a Flink job-events directory (local or
// on a bucket, recognised by its events.N objects) is read with package
// flink, read-only; a JSONL file (a path ending in .jsonl, or any existing
// regular file) is read with blob.OpenJSONL, read-only; anything else is a
// bucket URL or directory opened with blob.Open. A missing or empty log is
// an error reading "no event log at URL".
func openSource(ctx context.Context, arg string, o sourceOptions) (eventSource, error) {
	if fsrc, err := openFlinkSource(ctx, arg, o.flink); err != nil {
		return nil, err
	} else if fsrc != nil {
		return checkFlinkFollow(fsrc, o)
	}
	if err := o.flink.refuse(arg); err != nil {
		return nil, err
	}
	if isJSONLPath(arg) {
		if o.follow {
			return nil, fmt.Errorf("%s: --follow needs a bucket log, not a JSONL file", arg)
		}
		src, err := blob.OpenJSONL(arg, blob.JSONLOptions{AnySeq: o.anySeq})
		if err != nil {
			return nil, err // a missing or empty file is a *blob.NoLogError
		}
		return src, nil
	}
	log, err := blob.Open(ctx, arg)
	if err != nil {
		return nil, err // a missing bucket or directory is a *blob.NoLogError
	}
	ok, err := log.Exists(ctx)
	if err == nil && !ok {
		err = &noLogError{url: arg}
	}
	if err != nil {
		log.Close()
		return nil, err
	}
	r, err := log.NewReader(ctx, blob.ReaderOptions{Since: o.since, Until: o.until, Follow: o.follow, PollInterval: o.poll})
	if err != nil {
		log.Close()
		return nil, err
	}
	return &blobSource{Reader: r, log: log}, nil
}

// isJSONLPath reports whether a LOG argument names a JSONL file rather
// than a bucket: no URL scheme, and a .jsonl name or an existing regular
// file.
func isJSONLPath(arg string) bool {
	if strings.Contains(arg, "://") {
		return false
	}
	if strings.HasSuffix(arg, ".jsonl") {
		return true
	}
	fi, err := os.Stat(arg)
	return err == nil && fi.Mode().IsRegular()
}

// blobSource is a blob.Reader that also closes its Log.
type blobSource struct {
	*blob.Reader
	log *blob.Log
}

func (s *blobSource) Close() error {
	err := s.Reader.Close()
	if cerr := s.log.Close(); err == nil {
		err = cerr
	}
	return err
}
