package runtime

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jobevent/jobevent/internal/testenv"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// stepper pauses a master at chosen points (see pauseAt) so that a test can
// interleave two masters deterministically: the master blocks at each
// point its steps pick, in order, until the test lets it go on.
type stepper struct {
	steps   []func(point string) bool
	arrived chan string
	resume  chan struct{}
}

func newStepper(steps ...func(point string) bool) *stepper {
	return &stepper{steps: steps, arrived: make(chan string), resume: make(chan struct{})}
}

func (s *stepper) pause(point string) {
	if len(s.steps) == 0 || !s.steps[0](point) {
		return
	}
	s.steps = s.steps[1:]
	s.arrived <- point
	<-s.resume
}

// await waits for the master to arrive at its next pause, or for done.
func (s *stepper) await(t *testing.T, who string, done <-chan runResult) string {
	t.Helper()
	select {
	case p := <-s.arrived:
		return p
	case r := <-done:
		t.Fatalf("%s ended (%v) before its next pause", who, r.err)
	case <-time.After(time.Minute):
		t.Fatalf("%s did not reach its next pause within a minute", who)
	}
	return ""
}

// goOn lets the paused master go on.
func (s *stepper) goOn() { s.resume <- struct{}{} }

// at matches point exactly.
func at(point string) func(string) bool { return func(p string) bool { return p == point } }

// nthUpload matches the n-th segment upload it sees.
func nthUpload(n int) func(string) bool {
	seen := 0
	return func(p string) bool {
		if strings.HasPrefix(p, "upload ") {
			seen++
		}
		return seen == n && strings.HasPrefix(p, "upload ")
	}
}

// anyUpload matches the next segment upload.
func anyUpload(p string) bool { return strings.HasPrefix(p, "upload ") }

type runResult struct {
	sum *Summary
	err error
}

// startMaster runs an embedded master in the background, pausing at s's
// steps. The returned channel yields its result once.
func startMaster(ctx context.Context, t *testing.T, s *stepper, opts Options) <-chan runResult {
	done := make(chan runResult, 1)
	go func() {
		sum, err := Run(withPause(ctx, s.pause), loadJob(t, "shuffle.yaml"), opts)
		done <- runResult{sum, err}
	}()
	return done
}

func wait(t *testing.T, who string, done <-chan runResult) runResult {
	t.Helper()
	select {
	case r := <-done:
		return r
	case <-time.After(2 * time.Minute):
		t.Fatalf("%s did not end within two minutes", who)
	}
	return runResult{}
}

// epochEvents returns the kinds of the events epoch e wrote, as read.
func epochEvents(events []format.Event, e int32) []format.Kind {
	var kinds []format.Kind
	for _, ev := range events {
		if ev.Epoch == e {
			kinds = append(kinds, ev.Kind)
		}
	}
	return kinds
}

// checkEndedOnce checks that the log as read ends the job once, finished,
// by epoch, and that the output is the clean run's.
func checkEndedOnce(t *testing.T, dir, url string, epoch int32, want map[string]string) []format.Event {
	t.Helper()
	events := readLog(t, url)
	var ends []format.Event
	for _, e := range events {
		if e.Kind == format.KindJobFinished {
			ends = append(ends, e)
		}
	}
	if len(ends) != 1 || ends[0].Status != format.StatusFinished || ends[0].Epoch != epoch {
		t.Fatalf("job_finished events as read = %+v, want one, finished, by epoch %d", ends, epoch)
	}
	if got := readOutput(t, dir, "shuffle"); !reflect.DeepEqual(got, want) {
		t.Fatalf("output differs from the clean run")
	}
	return events
}

// TestFencing_NewMasterAdoptsAFencedEnd: master B reads the log mid-job
// and pauses before its claim; master A finishes the job, finds no newer
// epoch after job_finished, and pauses before deleting partitions and
// staging; B claims. B must see that A ended the job after B read the log
// and record that end, not recover a job whose partitions A is deleting
// (in process mode, A also tells the workers to stop: B would wait for
// workers that are gone).
func TestFencing_NewMasterAdoptsAFencedEnd(t *testing.T) {
	t.Parallel()
	want, _ := cleanRun(t, "shuffle.yaml", 5)
	dir := jobDir(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	opts := Options{Dir: dir, Seeded: true, Seed: 5}

	a := newStepper(nthUpload(2), at("cleanup"))
	aDone := startMaster(ctx, t, a, opts)
	a.await(t, "A", aDone)

	opts.Resume = true
	b := newStepper(at("claim"))
	bDone := startMaster(ctx, t, b, opts)
	b.await(t, "B", bDone)

	a.goOn() // A finishes the job and stops before its cleanup
	a.await(t, "A", aDone)
	b.goOn() // B claims epoch 2 after A's last check
	rb := wait(t, "B", bDone)
	if rb.err != nil || rb.sum.Status != format.StatusFinished {
		t.Fatalf("B: %+v, %v; want finished", rb.sum, rb.err)
	}
	a.goOn() // A cleans up
	if ra := wait(t, "A", aDone); ra.err != nil {
		t.Fatalf("A: %v", ra.err)
	}
	events := checkEndedOnce(t, dir, rb.sum.Log, 2, want)
	got := epochEvents(events, 2)
	if wantKinds := []format.Kind{format.KindMasterStarted, format.KindJobFinished}; !reflect.DeepEqual(got, wantKinds) {
		t.Fatalf("epoch 2 wrote %v, want %v: it must record the end A wrote, not recover the job", got, wantKinds)
	}
}

// TestFencing_OldMasterLeavesCleanupToTheNewOne: A passes the fencing check
// of its job_finished upload and pauses before the upload; B, which read
// the log mid-job, claims epoch 2, plans its recovery and pauses at its
// first upload. A's job_finished lands as a fenced row; A must then see
// epoch 2 and leave the partitions alone, so that B runs exactly what it
// planned from the log it read.
func TestFencing_OldMasterLeavesCleanupToTheNewOne(t *testing.T) {
	t.Parallel()
	want, _ := cleanRun(t, "shuffle.yaml", 5)
	dir := jobDir(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	opts := Options{Dir: dir, Seeded: true, Seed: 5}

	a := newStepper(nthUpload(2), at("commit"), anyUpload)
	aDone := startMaster(ctx, t, a, opts)
	a.await(t, "A", aDone)

	opts.Resume = true
	b := newStepper(at("claim"), anyUpload)
	bDone := startMaster(ctx, t, b, opts)
	b.await(t, "B", bDone)

	a.goOn()
	a.await(t, "A", aDone) // at its commit
	a.goOn()
	a.await(t, "A", aDone) // after the fencing check of its job_finished upload
	b.goOn()
	b.await(t, "B", bDone) // claimed epoch 2, planned, at its first upload
	a.goOn()
	ra := wait(t, "A", aDone)
	var fenced *FencedError
	if !errors.As(ra.err, &fenced) {
		t.Fatalf("A: %v, want a *FencedError", ra.err)
	}
	b.goOn()
	rb := wait(t, "B", bDone)
	if rb.err != nil || rb.sum.Status != format.StatusFinished {
		t.Fatalf("B: %+v, %v; want finished", rb.sum, rb.err)
	}
	events := checkEndedOnce(t, dir, rb.sum.Log, 2, want)
	start := int64(0)
	for _, e := range events {
		if e.Epoch == 2 {
			start = e.Seq
			break
		}
	}
	s, err := replay.Fold(&replay.SliceSource{Events: events[:start-1]}, 0)
	if err != nil {
		t.Fatal(err)
	}
	plan := replay.Plan(s, replay.AllRecorded(s))
	gotStarted := startedIn(events, 2)
	wantStarted := predicted(plan, loadJob(t, "shuffle.yaml"), events, 2)
	if !reflect.DeepEqual(gotStarted, wantStarted) {
		t.Fatalf("epoch 2 started\n  %s\nits plan said\n  %s", strings.Join(gotStarted, "\n  "), strings.Join(wantStarted, "\n  "))
	}
}

// TestFencing_CommitAfterANewerClaim: A passes its last fencing check and
// pauses before committing; B recovers the whole job, commits and cleans
// up. A's commit then finds the output committed, and A stops fenced at
// its job_finished: the job ends once, with the right output.
func TestFencing_CommitAfterANewerClaim(t *testing.T) {
	t.Parallel()
	want, _ := cleanRun(t, "shuffle.yaml", 5)
	dir := jobDir(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	opts := Options{Dir: dir, Seeded: true, Seed: 5}

	a := newStepper(at("commit"))
	aDone := startMaster(ctx, t, a, opts)
	a.await(t, "A", aDone)

	opts.Resume = true
	rb := wait(t, "B", startMaster(ctx, t, newStepper(), opts))
	if rb.err != nil || rb.sum.Status != format.StatusFinished {
		t.Fatalf("B: %+v, %v; want finished", rb.sum, rb.err)
	}
	a.goOn()
	ra := wait(t, "A", aDone)
	var fenced *FencedError
	if !errors.As(ra.err, &fenced) {
		t.Fatalf("A: %v, want a *FencedError", ra.err)
	}
	checkEndedOnce(t, dir, rb.sum.Log, 2, want)
}

// TestRecovery_CommittedJobWithTornEnd: a job finished, committed and
// cleaned up, and then its last segment (job_finished) was torn. The
// resumed master keeps every subtask and commits again: finding the output
// committed and the staging gone is success, not "staging object missing".
func TestRecovery_CommittedJobWithTornEnd(t *testing.T) {
	t.Parallel()
	dir := jobDir(t)
	want, _ := func() (map[string]string, error) {
		sum, err := Run(testenv.Context(t), loadJob(t, "shuffle.yaml"), Options{Dir: dir, Seeded: true, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		return readOutput(t, dir, sum.Job), nil
	}()
	segs, err := filepath.Glob(filepath.Join(dir, "jobevents", "shuffle", "events", "*.parquet"))
	if err != nil || len(segs) == 0 {
		t.Fatalf("segments: %v, %v", segs, err)
	}
	sort.Strings(segs)
	last := segs[len(segs)-1]
	fi, err := os.Stat(last)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(last, fi.Size()/2); err != nil {
		t.Fatal(err)
	}
	sum, err := Run(testenv.Context(t), loadJob(t, "shuffle.yaml"), Options{Dir: dir, Seeded: true, Seed: 5, Resume: true})
	if err != nil || sum.Status != format.StatusFinished {
		t.Fatalf("resume of the torn log: %+v, %v; want finished", sum, err)
	}
	if got := readOutput(t, dir, sum.Job); !reflect.DeepEqual(got, want) {
		t.Fatal("output differs from the first run's")
	}
}
