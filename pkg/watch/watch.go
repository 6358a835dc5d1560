// Package watch is jobevent watch: the unattended keeper of Flink jobs'
// logs and the exposure monitor (docs/watch.md).
//
// A Watcher polls its sources, each a bucket holding Flink HA storage
// (every <cluster-id>/<job id>/job-events/ under it) or jobevent logs, with
// one bounded listing per source per poll. For every Flink job it keeps an
// archive under ROOT (logsource's archive layout): the bytes Flink
// appended since the last poll are copied, and only they are read from the
// source; the job's new events are written as a Parquet segment with the
// time watch first saw them. The archive is then read back as any LOG is
// (logsource.Open) and planned as replay --dry-run plans it, so the
// metrics are the dry run at the newest event. For a jobevent log it only
// plans. A poll of a tree that did not change lists it and reads nothing.
//
//	w, err := watch.New(ctx, watch.Options{Sources: srcs, Archive: root})
//	err = w.Claim(ctx)              // one writer per ROOT
//	go http.ListenAndServe(addr, w.Handler())
//	err = w.Run(ctx)                // until ctx is done; a poll is finished first
//
// Restarts: everything a poll decides is read back from ROOT (the copies'
// sizes, the archived seqs), and every write is a whole object, the
// events' segments created once by name; so a watch killed at any moment
// and started again copies what is missing and archives the events not
// yet archived, none twice. Two watches on one ROOT: the second waits
// until the first's claim (ROOT/.watch/epochs/, the master's epoch claim)
// goes stale, and a watch whose claim was taken stops writing.
package watch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/jobevent/jobevent/pkg/blob"
)

// Options configures a Watcher.
type Options struct {
	Sources  []string      // bucket URLs or paths
	Archive  string        // ROOT: the bucket of archives
	Interval time.Duration // between polls; 0 means 2 s
	REST     []string      // Flink REST base URLs
	// StaleAfter is how long a running job's log may not grow before the
	// recording-stopped alert; 0 means 5 minutes.
	StaleAfter time.Duration
	// ClaimStale is how old the claim's heartbeat of another watch must be
	// before this one takes ROOT over; 0 means 5 intervals, at least 10 s.
	ClaimStale time.Duration
	// Log receives one line per alert and notable change; nil discards.
	Log io.Writer
	// JSONLog writes each alert and notice as one JSON object a line,
	// {"time","message"}, instead of a line of text.
	JSONLog bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// ErrFenced reports that another watch claimed ROOT after this one.
var ErrFenced = errors.New("jobevent/watch: another watch took the archive over")

// Watcher polls the sources and keeps the archives. Poll and Run must not
// be called concurrently; Handler may be served concurrently with them.
type Watcher struct {
	opts    Options
	root    *blob.Bucket
	sources []*blob.Bucket
	claim   *blob.Log
	epoch   int32
	m       *metrics
	rest    *restClient

	mu       sync.Mutex // guards jobs, logs and lastPoll for Handler
	jobs     map[string]*flinkJob
	logs     map[string]*logJob
	lastPoll time.Time
	pollErr  error
	plans    map[string]string // HA plan file key -> the job ReadHA found it for
	// haSearches counts the flink.ReadHA searches for plan files.
	haSearches int
	inactive   map[string]string // job id -> name of the recovery-inactive alerts raised
	noRecovery map[string]bool   // running jobs without job-events whose config disables recovery
	loaded     bool              // the archives ROOT held were found
}

// New opens the sources and ROOT. It writes nothing.
func New(ctx context.Context, o Options) (*Watcher, error) {
	if len(o.Sources) == 0 || o.Archive == "" {
		return nil, errors.New("watch needs at least one SOURCE and --archive ROOT")
	}
	if o.Interval <= 0 {
		o.Interval = 2 * time.Second
	}
	if o.StaleAfter <= 0 {
		o.StaleAfter = 5 * time.Minute
	}
	if o.ClaimStale <= 0 {
		o.ClaimStale = max(5*o.Interval, 10*time.Second)
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	root, err := blob.OpenBucket(ctx, o.Archive)
	if err != nil {
		return nil, fmt.Errorf("--archive %s: %w", o.Archive, err)
	}
	w := &Watcher{opts: o, root: root, m: newMetrics(), jobs: map[string]*flinkJob{}, logs: map[string]*logJob{}, plans: map[string]string{}, inactive: map[string]string{}, noRecovery: map[string]bool{}}
	w.claim = root.Sub(".watch/").Log()
	for _, s := range o.Sources {
		b, err := blob.OpenBucket(ctx, s)
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("SOURCE %s: %w", s, err)
		}
		w.sources = append(w.sources, b)
	}
	if len(o.REST) > 0 {
		w.rest = newRESTClient(o.REST)
	}
	return w, nil
}

// Close releases the buckets.
func (w *Watcher) Close() error {
	for _, b := range w.sources {
		b.Close()
	}
	return w.root.Close()
}

func (w *Watcher) logf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if w.opts.JSONLog {
		line, _ := json.Marshal(struct {
			Time    string `json:"time"`
			Message string `json:"message"`
		}{w.opts.Now().UTC().Format(time.RFC3339Nano), msg})
		fmt.Fprintf(w.opts.Log, "%s\n", line)
		return
	}
	fmt.Fprintf(w.opts.Log, "jobevent watch: %s\n", msg)
}

// Claim makes this watch the one writer of ROOT: it claims the next epoch
// of ROOT/.watch/ once the newest claim's heartbeat is older than
// ClaimStale (judged by the bucket's own times), waiting for that while
// another watch keeps it alive. It returns ctx's error if ctx ends first.
func (w *Watcher) Claim(ctx context.Context) error {
	waiting := false
	for {
		epochs, err := w.claim.Epochs(ctx)
		if err != nil {
			return fmt.Errorf("claim %s: %w", w.root.URL(), err)
		}
		next := int32(1)
		if n := len(epochs); n > 0 {
			last := epochs[n-1]
			next = last.Epoch + 1
			age, err := w.claim.HeartbeatAge(ctx, last.Epoch)
			if err == nil && age < w.opts.ClaimStale {
				if !waiting {
					w.logf("%s is kept by another watch (%s, heartbeat %s ago): waiting for it to stop", w.root.URL(), last.Master, age.Round(time.Millisecond))
					waiting = true
				}
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(min(w.opts.Interval, w.opts.ClaimStale/2)):
				}
				continue
			}
		}
		host, _ := os.Hostname()
		err = w.claim.ClaimEpoch(ctx, blob.EpochInfo{Epoch: next, Master: fmt.Sprintf("%s pid %d", host, os.Getpid()), StartSeq: 1})
		if errors.Is(err, blob.ErrEpochTaken) {
			continue
		}
		if err != nil {
			return err
		}
		w.epoch = next
		if err := w.claim.Heartbeat(ctx, next); err != nil {
			return err
		}
		w.logf("keeping %s (claim %d)", w.root.URL(), next)
		return nil
	}
}

// checkClaim heartbeats the claim and fails with ErrFenced when a newer
// one exists.
func (w *Watcher) checkClaim(ctx context.Context) error {
	if w.epoch == 0 {
		return errors.New("watch: Claim first")
	}
	n, err := w.claim.NewestEpoch(ctx)
	if err != nil {
		return err
	}
	if n != w.epoch {
		return ErrFenced
	}
	return w.claim.Heartbeat(ctx, w.epoch)
}

// Run polls every Interval until ctx is done, and returns nil then: the
// poll under way is finished first (with a context of its own, bounded by
// the store's request time-outs). A claim taken by another watch ends it
// with ErrFenced.
func (w *Watcher) Run(ctx context.Context) error {
	t := time.NewTicker(w.opts.Interval)
	defer t.Stop()
	for {
		err := w.Poll(context.WithoutCancel(ctx))
		if errors.Is(err, ErrFenced) {
			w.logf("%v: stopping", err)
			return err
		}
		if err != nil {
			w.logf("poll: %v", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Poll looks at every source once: copies and archives what is new,
// completes the archives of jobs whose directory went, and updates the
// metrics.
func (w *Watcher) Poll(ctx context.Context) error {
	start := w.opts.Now()
	err := w.poll(ctx)
	w.m.polls.Inc()
	if err != nil {
		w.m.errors.Inc()
	}
	w.m.pollSeconds.Set(w.opts.Now().Sub(start).Seconds())
	w.mu.Lock()
	w.lastPoll, w.pollErr = w.opts.Now(), err
	w.mu.Unlock()
	return err
}

func (w *Watcher) poll(ctx context.Context) error {
	if err := w.checkClaim(ctx); err != nil {
		return err
	}
	var errs []error
	if err := w.loadArchives(ctx); err != nil {
		return err
	}
	seen, listed := map[string]bool{}, map[string]bool{}
	for i, src := range w.sources {
		tree, err := listTree(ctx, src)
		if err != nil {
			errs = append(errs, fmt.Errorf("SOURCE %s: %w", w.opts.Sources[i], err))
			continue
		}
		listed[src.URL()] = true
		for _, key := range sortedKeys(tree.flink) {
			seen[key] = true
			if err := w.pollFlink(ctx, src, tree, key); err != nil {
				w.m.errors.Inc()
				errs = append(errs, fmt.Errorf("job %s: %w", key, err))
			}
		}
		for _, prefix := range sortedKeys(tree.logs) {
			seen["log:"+src.URL()+prefix] = true
			if err := w.pollLog(ctx, src, prefix, tree.logs[prefix]); err != nil {
				w.m.errors.Inc()
				errs = append(errs, fmt.Errorf("log %s: %w", prefix, err))
			}
		}
	}
	w.endGone(ctx, seen, listed)
	w.pollREST(ctx)
	w.updateGauges()
	return errors.Join(errs...)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
