package main

import (
	"context"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	gcblob "gocloud.dev/blob"

	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/flink"
)

// flinkStatus is the status ls gives a Flink job's log: Flink deletes it
// when the job ends, so a log still there belongs to a running job or one
// whose JobMaster failed over.
const flinkStatus = "flink"

// flinkLsDepth bounds how deep ls looks for Flink job-events directories
// below its argument: <storageDir>/<cluster-id>/<job id>/job-events.
const flinkLsDepth = 4

// flinkSummaries finds the Flink job-events directories at or below arg
// (an HA storage directory, locally or on a bucket) and summarizes each.
// What cannot be read is the summary's Problem.
func flinkSummaries(ctx context.Context, arg string) []*blob.Summary {
	var out []*blob.Summary
	if dir, ok := localDir(arg); ok {
		for _, rel := range localJobEventDirs(dir) {
			root, err := filepath.Abs(dir)
			if err != nil {
				root = dir
			}
			// The form of ls's other URLs, which every command reads back.
			s := &blob.Summary{URL: "file://" + filepath.ToSlash(root) + "?prefix=" + rel + "/", Prefix: rel + "/"}
			summarizeFlink(s, os.DirFS(filepath.Join(dir, filepath.FromSlash(rel))))
			out = append(out, s)
		}
		return out
	}
	u, err := url.Parse(arg)
	if err != nil || (u.Scheme != "s3" && u.Scheme != "gs" && u.Scheme != "azblob") {
		return nil
	}
	b, err := gcblob.OpenBucket(ctx, arg)
	if err != nil {
		return nil
	}
	defer b.Close()
	b.SetIOFSCallback(func() (context.Context, *gcblob.ReaderOptions) { return ctx, nil })
	dirs := map[string]bool{}
	it := b.List(nil)
	for {
		obj, err := it.Next(ctx)
		if err != nil {
			break
		}
		d, name := path.Split(obj.Key)
		if flinkFileName.MatchString(name) && path.Base(d) == "job-events" {
			dirs[strings.TrimSuffix(d, "/")] = true
		}
	}
	for _, d := range sortedKeys(dirs) {
		q := u.Query()
		q.Set("prefix", u.Query().Get("prefix")+d+"/")
		v := *u
		v.RawQuery = q.Encode()
		s := &blob.Summary{URL: v.String(), Prefix: d + "/"}
		if sub, err := b.Sub(d); err == nil {
			summarizeFlink(s, sub)
		}
		out = append(out, s)
	}
	return out
}

// localJobEventDirs returns the directories named job-events, holding an
// events.N file, at most flinkLsDepth levels below root, relative to it.
func localJobEventDirs(root string) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if rel != "." && strings.Count(filepath.ToSlash(rel), "/") >= flinkLsDepth {
			return fs.SkipDir
		}
		if d.Name() == "job-events" {
			entries, _ := os.ReadDir(p)
			for _, e := range entries {
				if flinkFileName.MatchString(e.Name()) {
					out = append(out, filepath.ToSlash(rel))
					break
				}
			}
			return fs.SkipDir
		}
		return nil
	})
	return out
}

// summarizeFlink fills s from the Flink log in fsys: its job id, files,
// bytes, newest modification, and the events and epochs as jobevent reads
// them (the whole log is read: Flink logs are small).
func summarizeFlink(s *blob.Summary, fsys fs.FS) {
	s.Status = flinkStatus
	s.Job = flink.JobOfDir(s.Prefix)
	entries, _ := fs.ReadDir(fsys, ".")
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
		if err == io.EOF {
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

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
