package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/flink"
	"github.com/jobevent/jobevent/pkg/logsource"
)

// flinkJob is one Flink job watched, with its archive.
type flinkJob struct {
	key, cluster, id string
	name             string // from REST, "" until known
	arch             *blob.Bucket
	info             logsource.ArchiveInfo
	restored         bool // the archive's state was read back
	copied           map[string]int64
	tails            map[string]*flink.Tail
	haFile           string
	haTried          string // the unclaimed plan files ReadHA last searched
	ended            bool
	exp              exposure
	lagBytes         int64
	restState        string // REST's job state, "" when unknown
	alertStopped     bool
	restPlan         []byte // the REST plan last kept
	haveConfig       bool
	restFresh        bool // the REST answers kept are as new as the job's log and state
}

// job returns the watched job key, making its archive on first sight.
func (w *Watcher) job(ctx context.Context, src *blob.Bucket, d *flinkDir, key string) (*flinkJob, error) {
	w.mu.Lock()
	j := w.jobs[key]
	w.mu.Unlock()
	if j == nil {
		j = &flinkJob{key: key, cluster: d.cluster, id: d.job, arch: w.root.Sub(key + "/")}
		w.mu.Lock()
		w.jobs[key] = j
		w.mu.Unlock()
	}
	if j.restored {
		return j, nil
	}
	info := logsource.ArchiveInfo{Format: logsource.ArchiveFormat, Version: 1, Job: d.job, Cluster: d.cluster,
		Source: src.Sub(d.prefix).URL(), Watched: src.URL(), Times: "observed", Created: w.opts.Now().UTC()}
	data, _ := json.Marshal(info)
	err := j.arch.CreateOnce(ctx, logsource.ArchiveMarker, append(data, '\n'))
	if err != nil && !errors.Is(err, blob.ErrExists) {
		return nil, err
	}
	if err == nil {
		w.logf("job %s: archiving into %s", key, j.arch.URL())
	}
	if err := w.restore(ctx, j); err != nil {
		return nil, err
	}
	return j, nil
}

// restore reads back what the archive of j holds: the marker, the copies'
// sizes and whole records, the HA plan file, whether it ended.
func (w *Watcher) restore(ctx context.Context, j *flinkJob) error {
	info, err := logsource.ReadArchiveInfo(ctx, j.arch)
	if err != nil {
		return err
	}
	j.info, j.id, j.cluster = info, info.Job, info.Cluster
	j.copied, j.tails = map[string]int64{}, map[string]*flink.Tail{}
	prefix := logsource.JobEventsKey(j.id)
	err = j.arch.List(ctx, "", func(o blob.Object) error {
		switch {
		case strings.HasPrefix(o.Key, prefix):
			j.copied[strings.TrimPrefix(o.Key, prefix)] = o.Size
		case path.Dir(o.Key)+"/" == logsource.ArchiveFlinkDir && isHAPlan(path.Base(o.Key)):
			j.haFile = path.Base(o.Key)
		case o.Key == logsource.ArchiveEnded:
			j.ended = true
		}
		return nil
	})
	if err != nil {
		return err
	}
	for name := range j.copied {
		data, err := j.arch.ReadAll(ctx, prefix+name)
		if err != nil {
			return err
		}
		t, _, err := flink.ScanFile(name, bytes.NewReader(data))
		if err != nil && !flink.IsCorrupt(err) {
			return err
		}
		j.tails[name] = t
	}
	segs, err := j.arch.Log().Segments(ctx)
	if err != nil {
		return err
	}
	for _, s := range segs {
		j.exp.archived = max(j.exp.archived, s.Last)
	}
	j.restored = true
	return nil
}

// eventFiles returns the events.N names of files in numeric order.
func eventFiles(files map[string]int64) []string {
	var names []string
	for n := range files {
		if _, err := strconv.Atoi(strings.TrimPrefix(n, flink.FilePrefix)); err == nil {
			names = append(names, n)
		}
	}
	sort.Slice(names, func(a, b int) bool {
		x, _ := strconv.Atoi(strings.TrimPrefix(names[a], flink.FilePrefix))
		y, _ := strconv.Atoi(strings.TrimPrefix(names[b], flink.FilePrefix))
		return x < y
	})
	return names
}

// pollFlink copies what is new of one job's job-events and HA plan, and
// archives and plans its events when they changed.
func (w *Watcher) pollFlink(ctx context.Context, src *blob.Bucket, t *tree, key string) error {
	d := t.flink[key]
	j, err := w.job(ctx, src, d, key)
	if err != nil {
		return err
	}
	changed := false
	j.lagBytes = 0
	for _, name := range eventFiles(d.files) {
		size, have := d.files[name], j.copied[name]
		if size <= have {
			continue
		}
		if err := w.copyTail(ctx, src, d, j, name, have, size); err != nil {
			j.lagBytes += size - have
			return err
		}
		changed = true
		j.restFresh = false
	}
	if err := w.copyHAPlan(ctx, src, d, j, t); err != nil {
		return err
	}
	if len(j.copied) == 0 {
		return nil // Flink created events.0 and wrote nothing yet: nothing to plan
	}
	if changed || !j.exp.planned {
		return w.archiveEvents(ctx, j)
	}
	return nil
}

// copyTail copies bytes [have, size) of file name: only they are read
// from the source; the archive's copy is rewritten whole, so it is the
// source's file at that size, byte for byte.
func (w *Watcher) copyTail(ctx context.Context, src *blob.Bucket, d *flinkDir, j *flinkJob, name string, have, size int64) error {
	data, err := src.ReadRange(ctx, d.prefix+name, have, size-have)
	if err != nil {
		return err
	}
	key := logsource.JobEventsKey(j.id) + name
	whole := data
	if have > 0 {
		old, err := j.arch.ReadAll(ctx, key)
		if err != nil {
			return err
		}
		if int64(len(old)) != have {
			return fmt.Errorf("archive copy %s holds %d bytes, want %d", key, len(old), have)
		}
		whole = append(old, data...)
	}
	if err := w.checkClaim(ctx); err != nil {
		return err
	}
	if err := j.arch.Put(ctx, key, whole); err != nil {
		return err
	}
	j.copied[name] = have + int64(len(data))
	w.m.copied.Add(float64(len(data)))
	tl := j.tails[name]
	if tl == nil {
		tl = flink.NewTail(name, 0)
		j.tails[name] = tl
	}
	recs, err := tl.Append(data)
	for _, r := range recs {
		if f, ok := r.Event.(*flink.VertexFinished); ok {
			j.exp.noteGraph(f.AttemptID.ExecutionGraphID.String())
		}
	}
	if err != nil {
		w.logf("job %s: %s: %v (Flink would fail to replay this log)", j.key, name, err)
	}
	return nil
}

// copyHAPlan copies the HA plan file of j, once: the file of the job's
// cluster directory that flink.ReadHA finds for the job's id (the finder
// replay uses on Flink's layout), byte for byte. Plan files already found
// for another job are hidden from the search, and the search runs again
// only when the cluster's unclaimed plan files (names and sizes) changed:
// a poll of an unchanged tree reads no plan file.
// The copy is what flink.ReadHA reads (flink/ is an HA cluster directory).
func (w *Watcher) copyHAPlan(ctx context.Context, src *blob.Bucket, d *flinkDir, j *flinkJob, t *tree) error {
	if j.haFile != "" {
		return nil
	}
	clusterDir := strings.TrimSuffix(d.prefix, j.id+"/job-events/")
	hide := map[string]bool{}
	var mark strings.Builder
	for _, o := range t.plans[clusterDir] {
		if owner, ok := w.plans[src.URL()+"\x00"+o.Key]; ok && owner != j.id {
			hide[path.Base(o.Key)] = true
			continue
		}
		fmt.Fprintf(&mark, "%s %d\n", o.Key, o.Size)
	}
	if mark.Len() == 0 || mark.String() == j.haTried {
		return nil
	}
	j.haTried = mark.String()
	w.haSearches++
	info, err := flink.ReadHA(ctx, hidingFS{src.Sub(clusterDir).FS(ctx), hide}, j.id)
	if err != nil || info == nil {
		return err
	}
	data, err := src.ReadAll(ctx, clusterDir+info.File)
	if err != nil {
		return err
	}
	w.plans[src.URL()+"\x00"+clusterDir+info.File] = j.id
	if err := j.arch.Put(ctx, logsource.ArchiveFlinkDir+info.File, data); err != nil {
		return err
	}
	j.haFile = info.File
	w.m.copied.Add(float64(len(data)))
	w.logf("job %s: copied its HA plan %s", j.key, info.File)
	return nil
}

// hidingFS is an HA cluster directory without the plan files of other
// jobs in its listing.
type hidingFS struct {
	fs.FS
	hide map[string]bool
}

func (h hidingFS) ReadDir(name string) ([]fs.DirEntry, error) {
	ents, err := fs.ReadDir(h.FS, name)
	if name != "." || len(h.hide) == 0 {
		return ents, err
	}
	kept := ents[:0]
	for _, e := range ents {
		if !h.hide[e.Name()] {
			kept = append(kept, e)
		}
	}
	return kept, err
}

// endGone completes the archives of jobs whose job-events directory went
// from a source that listed.
func (w *Watcher) endGone(ctx context.Context, seen map[string]bool, listed map[string]bool) {
	for _, key := range sortedKeys(w.jobs) {
		j := w.jobs[key]
		if seen[key] || !listed[j.info.Watched] {
			continue
		}
		if !j.restored {
			if err := w.restore(ctx, j); err != nil {
				w.logf("job %s: %v", key, err)
				continue
			}
		}
		if j.ended {
			continue
		}
		now := w.opts.Now().UTC()
		data, _ := json.Marshal(logsource.ArchiveEnd{Ended: now, Reason: "Flink deleted the job's job-events directory"})
		if err := w.checkClaim(ctx); err != nil {
			return
		}
		if err := j.arch.CreateOnce(ctx, logsource.ArchiveEnded, append(data, '\n')); err != nil && !errors.Is(err, blob.ErrExists) {
			w.m.errors.Inc()
			w.logf("job %s: complete archive: %v", key, err)
			continue
		}
		j.ended = true
		w.m.forget(j.id, j.name)
		w.logf("job %s ended: Flink deleted its job-events directory at %s; archive %s completed and kept (%d events)",
			key, now.Format(time.RFC3339), j.arch.URL(), j.exp.archived)
	}
}

// loadArchives finds, once, the archives ROOT already holds, so that a job
// whose directory went while no watch ran is completed.
func (w *Watcher) loadArchives(ctx context.Context) error {
	if w.loaded {
		return nil
	}
	files, clusters, err := w.root.ListLevel(ctx, "")
	_ = files
	if err != nil {
		return err
	}
	for _, c := range clusters {
		if c == ".watch/" {
			continue
		}
		_, jobs, err := w.root.ListLevel(ctx, c)
		if err != nil {
			return err
		}
		for _, jd := range jobs {
			b := w.root.Sub(jd)
			info, err := logsource.ReadArchiveInfo(ctx, b)
			if err != nil {
				continue
			}
			key := strings.TrimSuffix(jd, "/")
			w.mu.Lock()
			if w.jobs[key] == nil {
				w.jobs[key] = &flinkJob{key: key, cluster: info.Cluster, id: info.Job, arch: b, info: info}
			}
			w.mu.Unlock()
		}
	}
	w.loaded = true
	return nil
}
