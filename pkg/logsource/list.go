package logsource

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/flink"
)

// FlinkStatus is the status List gives a Flink job's log: Flink deletes it
// when the job ends, so a log still there belongs to a running job or one
// whose JobMaster failed over.
const FlinkStatus = "flink"

// flinkListDepth bounds how deep List looks for Flink job-events
// directories below its argument: <storageDir>/<cluster-id>/<job id>/job-events.
const flinkListDepth = 6

// Listing is what List finds under a bucket.
type Listing struct {
	Bucket string          // the bucket's canonical URL
	Logs   []*blob.Summary // jobevent logs, then Flink job-events directories
}

// List finds the logs at or below arg, a bucket or directory: every
// jobevent log (blob.Log.Summaries) and every Flink job-events directory
// (summarized by reading it whole: Flink logs are small). What cannot be
// read is a summary's Problem.
func List(ctx context.Context, arg string) (*Listing, error) {
	if arg == "-" || IsJSONLPath(arg) {
		return nil, fmt.Errorf("%s: ls needs a bucket or directory, not a JSONL file", arg)
	}
	b, err := blob.OpenBucket(ctx, arg)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	logs, err := b.Log().Summaries(ctx)
	if err != nil {
		return nil, err
	}
	dirs, err := flinkDirs(ctx, b)
	if err != nil {
		return nil, err
	}
	for _, d := range dirs {
		sub := b.Sub(d)
		s := &blob.Summary{URL: sub.URL(), Prefix: b.Prefix() + d}
		summarizeFlink(ctx, s, &resolved{bucket: sub})
		logs = append(logs, s)
	}
	return &Listing{Bucket: b.URL(), Logs: logs}, nil
}

// flinkDirs returns the job-events directories holding an events.N file,
// at most flinkListDepth levels below b's prefix, relative to it and
// ending in "/".
func flinkDirs(ctx context.Context, b *blob.Bucket) ([]string, error) {
	var out []string
	level := []string{""}
	for depth := 0; depth < flinkListDepth && len(level) > 0; depth++ {
		var next []string
		for _, p := range level {
			_, dirs, err := listLevel(ctx, b, p)
			if err != nil {
				return nil, fmt.Errorf("list Flink logs under %s: %w", b.URL(), err)
			}
			for _, d := range dirs {
				if path.Base(strings.TrimSuffix(d, "/")) != jobEventsDir {
					next = append(next, d)
					continue
				}
				files, _, err := listLevel(ctx, b, d)
				if err != nil {
					return nil, fmt.Errorf("list Flink logs under %s: %w", b.URL(), err)
				}
				for _, f := range files {
					if flinkFileName.MatchString(path.Base(f)) {
						out = append(out, d)
						break
					}
				}
			}
		}
		level = next
	}
	return out, nil
}

// summarizeFlink fills s from the Flink log r: its job id, files, bytes,
// newest modification, and the events and epochs as jobevent reads them.
func summarizeFlink(ctx context.Context, s *blob.Summary, r *resolved) {
	s.Status = FlinkStatus
	s.Job = flink.JobOfDir(strings.TrimSuffix(s.Prefix, "/"))
	fsys := r.fsys(ctx)
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		s.Problem = err.Error()
		return
	}
	for _, e := range entries {
		if !flinkFileName.MatchString(e.Name()) {
			continue
		}
		s.Segments++
		if fi, err := e.Info(); err == nil {
			s.Bytes += fi.Size()
			if fi.ModTime().After(s.LastModified) {
				s.LastModified = fi.ModTime()
			}
		}
	}
	l, err := flink.Open(fsys, flink.Options{})
	if err != nil {
		s.Problem = err.Error()
		return
	}
	src, err := l.Events()
	if err != nil {
		s.Problem = err.Error()
		return
	}
	defer src.Close()
	for {
		e, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			s.Problem = err.Error()
			return
		}
		s.Events, s.LastSeq, s.Epochs = s.Events+1, e.Seq, int(e.Epoch)
	}
	for _, w := range l.Warnings() {
		if s.Problem == "" {
			s.Problem = w.String()
		}
	}
}
