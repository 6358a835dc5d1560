package watch

import (
	"context"
	"path"
	"strings"

	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/flink"
	"github.com/jobevent/jobevent/pkg/logsource"
)

// tree is one listing of a source: its Flink jobs and jobevent logs.
type tree struct {
	// flink maps "<cluster>/<job id>" to the job's job-events files.
	flink map[string]*flinkDir
	// plans maps a cluster's prefix to its HA plan files.
	plans map[string][]blob.Object
	// logs maps a jobevent log's prefix to its newest segment key and
	// segment count, which change when it grows.
	logs map[string]logMark
}

// flinkDir is a job-events directory as listed.
type flinkDir struct {
	cluster, job string
	prefix       string // of the job-events directory, within the source
	files        map[string]int64
}

type logMark struct {
	newest   string
	segments int
}

// listTree lists src once, whole (one paginated listing: a poll of an
// unchanged tree costs this and nothing else), and sorts what it holds.
func listTree(ctx context.Context, src *blob.Bucket) (*tree, error) {
	t := &tree{flink: map[string]*flinkDir{}, plans: map[string][]blob.Object{}, logs: map[string]logMark{}}
	archives := map[string]bool{}
	err := src.List(ctx, "", func(o blob.Object) error {
		dir, name := path.Split(o.Key)
		switch {
		case strings.HasPrefix(name, flink.FilePrefix) && strings.HasSuffix(dir, "/job-events/"):
			jobDir := strings.TrimSuffix(dir, "job-events/")
			job := path.Base(jobDir)
			cluster := path.Base(path.Dir(strings.TrimSuffix(jobDir, "/")))
			if cluster == "." || cluster == "/" {
				cluster = "default"
			}
			if cluster == "flink" { // a watch archive's copy, under a ROOT inside SOURCE
				return nil
			}
			key := cluster + "/" + job
			d := t.flink[key]
			if d == nil {
				d = &flinkDir{cluster: cluster, job: job, prefix: dir, files: map[string]int64{}}
				t.flink[key] = d
			}
			d.files[name] = o.Size
		case isHAPlan(name):
			t.plans[dir] = append(t.plans[dir], o)
		case name == logsource.ArchiveMarker:
			archives[dir] = true
		case strings.HasSuffix(dir, blob.EventsDir) && strings.HasSuffix(name, ".parquet"):
			p := strings.TrimSuffix(dir, blob.EventsDir)
			m := t.logs[p]
			m.segments++
			if o.Key > m.newest {
				m.newest = o.Key
			}
			t.logs[p] = m
		}
		return nil
	})
	for p := range archives {
		delete(t.logs, p)
	}
	return t, err
}

// HA plan file name prefixes (Flink's FileSystemStateStorageHelper), part
// of Flink's HA storage layout: 1.20's JobGraph, 2.x's ExecutionPlan.
var haPlanPrefixes = []string{flink.PrefixJobGraph, flink.PrefixExecutionPlan}

func isHAPlan(name string) bool {
	for _, p := range haPlanPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
