package drill

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/jobevent/jobevent/pkg/runtime"
)

// Names inside a run directory, as the embedded runtime lays them out by
// default (runtime.Options): the log and the workers' partitions.
const (
	logDirName  = "jobevents"
	workDirName = "jobevents-work"
)

// runDir is the directory of one run of the job (the clean run, or a
// case): its log, its workers' partitions and its outputs.
type runDir struct {
	path string
	job  string
}

// logURL is the log of the run: file://<dir>/jobevents?prefix=<job>/.
func (d runDir) logURL() string {
	return "file://" + filepath.ToSlash(filepath.Join(d.path, logDirName)) + "?prefix=" + d.job + "/"
}

// logPath returns the file of a log object key.
func (d runDir) logPath(key string) string {
	return filepath.Join(d.path, logDirName, d.job, filepath.FromSlash(key))
}

// workDir is the workers' directory of the run.
func (d runDir) workDir() string { return filepath.Join(d.path, workDirName) }

// partitionDirs returns the directories where worker w may keep the job's
// partitions: <work>/<job>/<w> (workers sharing a work dir) and
// <work>/<w>/<job> (a work dir per worker). The runtime exports no
// function naming them; both layouts are tried.
func (d runDir) partitionDirs(worker string) []string {
	return []string{
		filepath.Join(d.workDir(), d.job, worker),
		filepath.Join(d.workDir(), worker, d.job),
	}
}

// removePartitions deletes the partition directories of worker w that
// exist and returns them.
func (d runDir) removePartitions(worker string) ([]string, error) {
	var removed []string
	for _, dir := range d.partitionDirs(worker) {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			return removed, fmt.Errorf("drill: %w", err)
		}
		removed = append(removed, dir)
	}
	return removed, nil
}

// inputPaths lists the relative paths of the spec's inputs: every
// top-level string argument of a vertex (but "output") that is a relative
// local path existing under base. Shorter paths come first, so that a
// directory is copied before anything inside it.
func inputPaths(spec *runtime.Spec, base string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, v := range spec.Vertices {
		for name, val := range v.Args {
			s, ok := val.(string)
			if !ok || name == "output" || s == "" || strings.Contains(s, "://") || filepath.IsAbs(s) {
				continue
			}
			rel := filepath.Clean(filepath.FromSlash(s))
			if _, err := os.Stat(filepath.Join(base, rel)); err != nil {
				continue
			}
			if rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return nil, fmt.Errorf("%w: vertex %s: args.%s %q: a drill needs relative inputs under %s (or absolute ones)", ErrNotDrillable, v.ID, name, s, base)
			}
			if !seen[rel] {
				seen[rel] = true
				out = append(out, rel)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i]) != len(out[j]) {
			return len(out[i]) < len(out[j])
		}
		return out[i] < out[j]
	})
	return out, nil
}

// makeRunDir creates dir holding a copy of every input path of base: hard
// links where the filesystem allows, copies elsewhere. (Links to
// directories will not do: fileblob does not list through them.)
func makeRunDir(dir, job, base string, inputs []string) (runDir, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return runDir{}, fmt.Errorf("drill: %w", err)
	}
	for _, rel := range inputs {
		if _, err := os.Lstat(filepath.Join(dir, rel)); err == nil {
			continue // inside a directory copied already
		}
		if err := linkTree(filepath.Join(base, rel), filepath.Join(dir, rel)); err != nil {
			return runDir{}, fmt.Errorf("drill: input %s: %w", rel, err)
		}
	}
	return runDir{path: dir, job: job}, nil
}

// linkTree makes dst a copy of the file or directory src, hard-linking
// its regular files where it can.
func linkTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if e.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if os.Link(p, target) == nil {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// outputRoots turns the outputs a run reported (runtime.Summary.Outputs)
// into paths relative to its directory. Each must be a local directory
// inside it: otherwise the cases of a drill would write over each other.
func outputRoots(d runDir, outputs []string) ([]string, error) {
	real, err := filepath.EvalSymlinks(d.path)
	if err != nil {
		return nil, fmt.Errorf("drill: %w", err)
	}
	var rels []string
	for _, out := range outputs {
		if strings.Contains(out, "://") || !filepath.IsAbs(out) {
			return nil, fmt.Errorf("%w: sink output %s is not a relative local path: each case of a drill needs its own copy of the output", ErrNotDrillable, out)
		}
		resolved := out
		if r, err := filepath.EvalSymlinks(out); err == nil {
			resolved = r
		}
		rel, err := filepath.Rel(real, resolved)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, fmt.Errorf("%w: sink output %s is not under the run directory: give the spec a relative output path", ErrNotDrillable, out)
		}
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	return rels, nil
}

// readOutput returns every file under the output roots of d, by path
// relative to d. A root that does not exist has no files.
func readOutput(d runDir, roots []string) (map[string][]byte, error) {
	files := map[string][]byte{}
	for _, root := range roots {
		err := filepath.WalkDir(filepath.Join(d.path, root), func(p string, e fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil || e.IsDir() {
				return err
			}
			if e.Name() == runtime.OutputMarker {
				return nil // names the run's own log
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(d.path, p)
			files[filepath.ToSlash(rel)] = data
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("drill: read output %s: %w", root, err)
		}
	}
	return files, nil
}

// diffOutput describes how got differs from want; "" when it does not.
func diffOutput(want, got map[string][]byte) string {
	var missing, extra, differ []string
	for name, w := range want {
		g, ok := got[name]
		switch {
		case !ok:
			missing = append(missing, name)
		case !bytes.Equal(g, w):
			differ = append(differ, fmt.Sprintf("%s (%d bytes, want %d)", name, len(g), len(w)))
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			extra = append(extra, name)
		}
	}
	var parts []string
	for _, p := range []struct {
		what  string
		names []string
	}{{"differ", differ}, {"missing", missing}, {"extra", extra}} {
		if len(p.names) > 0 {
			sort.Strings(p.names)
			parts = append(parts, p.what+": "+list(p.names, 4))
		}
	}
	return strings.Join(parts, "; ")
}

// list joins up to n names and says how many more there are.
func list(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}
