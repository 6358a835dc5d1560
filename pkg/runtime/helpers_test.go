package runtime

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jobevent/jobevent/internal/testenv"
	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/format"
)

// jobDir returns a fresh working directory holding a copy of
// testdata/text, so that the testdata jobs run there as from the
// repository root.
func jobDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("..", "..", "testdata", "text")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "testdata", "text")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// loadJob parses a spec of testdata/jobs, its inputs resolved against the
// spec's directory and its outputs left relative (to the run's Dir).
func loadJob(t testing.TB, name string) *Spec {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", "..", "testdata", "jobs", name))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := LoadSpec(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := spec.ResolveInputs(filepath.Dir(path)); err != nil {
		t.Fatal(err)
	}
	return spec
}

// readOutput returns the committed output files of dir/jobevents-out/<job>,
// by name, and fails on leftover staging objects.
func readOutput(t testing.TB, dir, job string) map[string]string {
	t.Helper()
	root := filepath.Join(dir, "jobevents-out", job)
	out := map[string]string{}
	err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if strings.HasPrefix(rel, ".staging") {
			t.Errorf("staging object left behind: %s", rel)
		}
		if rel == OutputMarker {
			return nil // names the log, which differs from run to run
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[rel] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// readLog returns every event of the log at url.
func readLog(t testing.TB, url string) []format.Event {
	t.Helper()
	ctx := testenv.Context(t)
	l, err := blob.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	r, err := l.NewReader(ctx, blob.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var events []format.Event
	for {
		e, err := r.Next()
		if errors.Is(err, io.EOF) {
			return events
		}
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
	}
}

// readLogMaybe is readLog, except that a log without events yet reads
// as empty.
func readLogMaybe(t testing.TB, url string) []format.Event {
	t.Helper()
	ctx := testenv.Context(t)
	l, err := blob.Open(ctx, url)
	if errors.Is(err, blob.ErrNoLog) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	r, err := l.NewReader(ctx, blob.ReaderOptions{})
	if errors.Is(err, blob.ErrNoLog) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var events []format.Event
	for {
		e, err := r.Next()
		if errors.Is(err, io.EOF) || errors.Is(err, blob.ErrNoLog) {
			return events
		}
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
	}
}

// eventKey renders an event without its time, for comparing logs.
func eventKey(e format.Event) string {
	e.Time = time.Time{}
	line := format.AppendJSON(nil, &e)
	return string(bytes.TrimSpace(line))
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
