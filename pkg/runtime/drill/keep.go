package drill

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// keep keeps a failing case for people to look at: in place in the scratch
// directory, or copied to <Keep>/<job>-<point>-<fault>/. Next to the run's
// log, partitions and output it writes repro.sh (the commands that replay
// the case), case.json (the Case) and stderr.txt (what the runs said).
func (d *driller) keep(r *caseRun) error {
	c := r.c
	c.Repro = d.repro(c, r.removedRel())
	dst := r.dir.path
	if d.opts.Keep != "" {
		dst = filepath.Join(d.opts.Keep, fmt.Sprintf("%s-%d-%s", d.job, c.Point, c.Fault))
		if err := os.RemoveAll(dst); err != nil {
			return fmt.Errorf("drill: keep %s: %w", c.Name(), err)
		}
		if err := copyTree(r.dir.path, dst); err != nil {
			return fmt.Errorf("drill: keep %s: %w", c.Name(), err)
		}
		if err := os.RemoveAll(r.dir.path); err != nil {
			return fmt.Errorf("drill: %w", err)
		}
	}
	c.Kept = dst
	script := "#!/bin/sh\n" + strings.Join(c.Repro, "\n") + "\n"
	caseJSON, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("drill: keep %s: %w", c.Name(), err)
	}
	for _, f := range []struct {
		name string
		data []byte
		mode os.FileMode
	}{
		{"repro.sh", []byte(script), 0o755},
		{"case.json", append(caseJSON, '\n'), 0o644},
		{"stderr.txt", r.stderr.Bytes(), 0o644},
	} {
		if err := os.WriteFile(filepath.Join(dst, f.name), f.data, f.mode); err != nil {
			return fmt.Errorf("drill: keep %s: %w", c.Name(), err)
		}
	}
	return nil
}

// repro returns a shell script, line by line, that replays a case with
// the jobevent command in a fresh directory: the same runs, seed, crash
// points and fault, and the dry run with the flags that describe the
// fault.
func (d *driller) repro(c *Case, removed []string) []string {
	spec := shellQuote(d.specPath())
	run := "jobevent run " + spec + " --seed " + strconv.FormatInt(d.opts.Seed, 10)
	if d.opts.Workers > 0 {
		run += " --workers " + strconv.Itoa(d.opts.Workers)
	}
	log := shellQuote(logDirName + "?prefix=" + d.job + "/")
	lines := []string{
		fmt.Sprintf("# Replays drill case %s of job %s (seed %d).", c.Name(), d.job, d.opts.Seed),
		"# The drill set job-event.store.write-buffer.flush-interval to 1h; jobevent run keeps the",
		"# spec's, so a run longer than that may end its segments, and lose to a torn tail, elsewhere.",
		"set -e",
		`dir=$(mktemp -d) && cd "$dir" && echo "reproducing in $dir"`,
	}
	for _, rel := range d.inputs {
		if parent := filepath.Dir(rel); parent != "." {
			lines = append(lines, "mkdir -p "+shellQuote(filepath.ToSlash(parent)))
		}
		lines = append(lines, "cp -R "+shellQuote(filepath.Join(d.base, rel))+" "+shellQuote(filepath.ToSlash(rel)))
	}
	lines = append(lines, fmt.Sprintf("%s --crash-after-seq %d || test $? -eq 3", run, c.Point))
	dry := "jobevent replay " + log + " --dry-run"
	for _, dir := range removed {
		lines = append(lines, "rm -rf "+shellQuote(dir))
	}
	switch c.Fault {
	case FaultWorker:
		dry += " --lost-worker " + shellQuote(c.LostWorker)
	case FaultTornTail:
		lines = append(lines, fmt.Sprintf("truncate -s %d %s", c.TornSize, shellQuote(logDirName+"/"+d.job+"/"+c.TornSegment)))
	case FaultSlowWorkers:
		dry += " --no-workers"
	}
	lines = append(lines, dry)
	if c.SecondPoint > 0 {
		lines = append(lines,
			fmt.Sprintf("%s --resume --crash-after-seq %d || test $? -eq 3", run, c.SecondPoint),
			"jobevent replay "+log+" --dry-run")
	}
	return append(lines, run+" --resume", "jobevent dump "+log)
}

// removedRel returns the partition directories the fault deleted,
// relative to the run directory, with slashes.
func (r *caseRun) removedRel() []string {
	var out []string
	for _, dir := range r.removed {
		if rel, err := filepath.Rel(r.dir.path, dir); err == nil {
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return out
}

// shellQuote quotes s for sh when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// copyTree copies the directory src to dst: regular files by content,
// links as links.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case e.IsDir():
			return os.MkdirAll(target, 0o755)
		case e.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case e.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(target, data, 0o644)
		}
		return nil
	})
}
