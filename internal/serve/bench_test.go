package serve

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/jobevent/jobevent/internal/answer"
	"github.com/jobevent/jobevent/internal/loggen"
	"github.com/jobevent/jobevent/internal/report"
	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/logsource"
)

// The benchmarks of a job page time serve's handler against the CLI's
// code path for what the page shows, on the same log: status, the dry
// run, the timeline with a 200-point exposure curve, and the dry run at
// each failover. JOBEVENT_SERVE_BENCH_LOG names a log to use (bench/serve.sh
// passes its 1M-event one); without it a log of 100k events is generated.

func benchLog(b *testing.B) (root, id string) {
	if l := os.Getenv("JOBEVENT_SERVE_BENCH_LOG"); l != "" {
		return filepath.Dir(filepath.Dir(l)), "jobs%2F" + filepath.Base(l)
	}
	dir := b.TempDir()
	o := loggen.BenchOptions(1, 50_000, 100_000)
	o.FailureRate, o.SnapshotEvery, o.Failovers = 0.1, 8, 3
	l, err := blob.Create(context.Background(), "file://"+dir+"?prefix=jobs/big/")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	if _, err := blob.Import(context.Background(), l, loggen.Job(o), blob.ImportOptions{SegmentEvents: 100_000}); err != nil {
		b.Fatal(err)
	}
	return dir, "jobs%2Fbig"
}

func BenchmarkJobPage(b *testing.B) {
	root, id := benchLog(b)
	b.Run("serve", func(b *testing.B) {
		for b.Loop() {
			s, err := New(context.Background(), []string{root}, Options{})
			if err != nil {
				b.Fatal(err)
			}
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/jobs/"+id, nil))
			if rec.Code != http.StatusOK {
				b.Fatalf("status %d", rec.Code)
			}
			s.Close()
		}
	})
	b.Run("cli", func(b *testing.B) {
		s, err := New(context.Background(), []string{root}, Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		j, _ := s.resolveEncoded(id)
		for b.Loop() {
			if err := cliJobPage(context.Background(), j.arg); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// cliJobPage answers what a job page shows the way the CLI's commands
// do, each reading the log on its own: status, replay --dry-run,
// timeline --svg --points 200, replay --dry-run --at SEQ per failover.
func cliJobPage(ctx context.Context, arg string) error {
	open := func(o logsource.Options) (logsource.Source, error) { return logsource.Open(ctx, arg, o) }
	st, _, err := answer.JobStatus(ctx, arg, answer.StatusOptions{
		Open: func(string) (logsource.Source, error) { return open(logsource.Options{}) }})
	if err != nil {
		return err
	}
	if err := answer.WriteJSON(io.Discard, st); err != nil {
		return err
	}
	plan := func(at int64) error {
		src, err := open(logsource.Options{Until: at})
		if err != nil {
			return err
		}
		defer src.Close()
		a, err := answer.Plan(ctx, src, answer.PlanQuery{At: at})
		if err != nil {
			return err
		}
		return a.WriteJSON(io.Discard)
	}
	if err := plan(0); err != nil {
		return err
	}
	src, err := open(logsource.Options{})
	if err != nil {
		return err
	}
	defer src.Close()
	tl, err := report.BuildTimeline(src, report.TimelineOptions{Points: 200, BySeq: logsource.EventTimes(src) == logsource.TimesNone})
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := report.WriteTimelineSVG(&buf, tl); err != nil {
		return err
	}
	for _, f := range tl.Stats.Failovers {
		if err := plan(f.LastSeq); err != nil {
			return fmt.Errorf("failover after %d: %w", f.LastSeq, err)
		}
	}
	return nil
}
