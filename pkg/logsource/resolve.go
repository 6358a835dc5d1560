package logsource

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/flink"
)

// flinkFileName is the name of a Flink job-events file: events.N.
var flinkFileName = regexp.MustCompile(`^events\.[0-9]+$`)

// jobEventsDir is the name Flink gives a job's events directory.
const jobEventsDir = "job-events"

// maxHAProbe bounds how many directories the probe of a Flink HA storage
// directory lists before it gives up looking for job-events directories.
const maxHAProbe = 256

// resolved is a LOG argument after the probe: the bucket opened at the
// log's prefix, and what it holds.
type resolved struct {
	arg    string
	kind   Kind           // KindFlink, KindArchive or KindBucket
	bucket *blob.Bucket   // at the log's prefix (a Flink log: its job-events directory)
	root   *blob.Bucket   // the bucket as opened, to close; == bucket unless an HA dir was resolved
	ha     *blob.Bucket   // a Flink log's HA cluster directory, when the argument was one
	job    string         // a Flink log's job id, from its path
	extra  []*blob.Bucket // opened beside root (--flink-ha), closed with it
}

func (r *resolved) close() {
	if r.root != nil {
		r.root.Close()
	}
	for _, b := range r.extra {
		b.Close()
	}
}

// fsys returns the file system of a Flink log's job-events directory: a
// local directory directly, a bucket through its bounded requests.
func (r *resolved) fsys(ctx context.Context) fs.FS { return bucketFS(ctx, r.bucket) }

// resolve opens the bucket of arg and looks at its top level once: Flink
// job-events files make it a Flink log; job.yaml, events/ or epochs/ a
// jobevent log; otherwise it may be a Flink HA storage directory holding
// one job's job-events directory. Anything else is a jobevent log, to be
// found empty by its reader.
func resolve(ctx context.Context, arg string) (*resolved, error) {
	b, err := blob.OpenBucket(ctx, arg)
	if err != nil {
		return nil, err
	}
	r := &resolved{arg: arg, kind: KindBucket, bucket: b, root: b}
	files, dirs, err := listLevel(ctx, b, "")
	if err != nil {
		b.Close()
		return nil, err
	}
	for _, f := range files {
		if flinkFileName.MatchString(path.Base(f)) {
			r.kind, r.job = KindFlink, flink.JobOfDir(b.Prefix())
			if dir, ok := b.LocalDir(); ok {
				r.job = flink.JobOfDir(dir)
			}
			return r, nil
		}
		if f == blob.SpecKey {
			return r, nil
		}
		if f == ArchiveMarker {
			r.kind = KindArchive
			return r, nil
		}
	}
	for _, d := range dirs {
		if d == blob.EventsDir || d == blob.EpochsDir {
			return r, nil
		}
	}
	found, err := findJobEvents(ctx, b, dirs, 2)
	if err != nil {
		b.Close()
		return nil, err
	}
	switch len(found) {
	case 0:
		return r, nil
	case 1:
		jobDir := strings.TrimSuffix(found[0], jobEventsDir+"/")
		cluster := path.Dir(strings.TrimSuffix(jobDir, "/"))
		r.kind, r.bucket, r.job = KindFlink, b.Sub(found[0]), path.Base(strings.TrimSuffix(jobDir, "/"))
		if cluster == "." {
			r.ha = b
		} else {
			r.ha = b.Sub(cluster + "/")
		}
		return r, nil
	}
	b.Close()
	jobs := make([]string, len(found))
	for i, f := range found {
		jobs[i] = strings.TrimSuffix(f, "/")
	}
	return nil, fmt.Errorf("%s holds %d Flink jobs (%s): name one job's job-events directory (jobevent ls %s lists them)",
		arg, len(found), strings.Join(jobs, ", "), arg)
}

// listLevel lists one level of b: a local directory with os.ReadDir (a
// prefix that does not exist holds nothing), a bucket with its bounded
// listing. Directories end in "/".
func listLevel(ctx context.Context, b *blob.Bucket, prefix string) (files, dirs []string, err error) {
	if dir, ok := b.LocalDir(); ok {
		entries, err := os.ReadDir(dir + "/" + prefix)
		if err != nil {
			return nil, nil, nil
		}
		for _, e := range entries {
			if e.IsDir() {
				dirs = append(dirs, prefix+e.Name()+"/")
			} else {
				files = append(files, prefix+e.Name())
			}
		}
		return files, dirs, nil
	}
	return b.ListLevel(ctx, prefix)
}

// findJobEvents returns the job-events directories (ending in "/") that
// hold an events.N file, at most depth levels below dirs, the directories
// of b's top level: <cluster-id>/<job id>/job-events/ under a storage
// directory, <job id>/job-events/ under a cluster directory. It stops
// after two (one is the answer; two are too many) or maxHAProbe listings.
func findJobEvents(ctx context.Context, b *blob.Bucket, dirs []string, depth int) ([]string, error) {
	var found []string
	listed := 0
	level := dirs
	for d := 0; d < depth && len(level) > 0 && len(found) < 2; d++ {
		var next []string
		for _, dir := range level {
			if listed >= maxHAProbe || len(found) >= 2 {
				break
			}
			listed++
			_, sub, err := listLevel(ctx, b, dir)
			if err != nil {
				return nil, err
			}
			for _, s := range sub {
				if s != dir+jobEventsDir+"/" {
					next = append(next, s)
					continue
				}
				files, _, err := listLevel(ctx, b, s)
				if err != nil {
					return nil, err
				}
				for _, f := range files {
					if flinkFileName.MatchString(path.Base(f)) {
						found = append(found, s)
						break
					}
				}
			}
		}
		level = next
	}
	sort.Strings(found)
	return found, nil
}
