package logsource

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/flink"
	"github.com/jobevent/jobevent/pkg/format"
)

// haFS returns the file system of a Flink log's HA cluster directory: the
// one the argument named, or <cluster-id>/ two levels above
// <job id>/job-events/. ok is false when the log is not in Flink's layout.
func (r *resolved) haFS(ctx context.Context) (fsys fs.FS, where string, ok bool) {
	if r.ha != nil {
		return bucketFS(ctx, r.ha), r.ha.URL(), true
	}
	if dir, local := r.bucket.LocalDir(); local {
		dir = filepath.Clean(dir)
		if filepath.Base(dir) != jobEventsDir {
			return nil, "", false
		}
		cluster := filepath.Dir(filepath.Dir(dir))
		return os.DirFS(cluster), cluster, true
	}
	if path.Base(strings.TrimSuffix(r.bucket.Prefix(), "/")) != jobEventsDir {
		return nil, "", false
	}
	up, ok := r.bucket.Up(2)
	if !ok {
		return nil, "", false
	}
	return up.FS(ctx), up.URL(), true
}

// bucketFS is b's file system: a local directory directly.
func bucketFS(ctx context.Context, b *blob.Bucket) fs.FS {
	if dir, ok := b.LocalDir(); ok {
		return os.DirFS(dir)
	}
	return b.FS(ctx)
}

// withHA fills in what Flink's HA storage directory knows of the job and
// the flags did not give: the plan (names, inputs, datasets) and the
// coordinator kinds from the Source classes; the flags' kinds, matched to
// vertex ids (matchCoordinators), override. It returns the options and
// the notices of what it still assumes (not about a vertex the flags
// set). A directory without the job's plan file changes nothing; one
// that cannot be read is a notice, never an error: the log is still read.
func withHA(ctx context.Context, r *resolved, opts flink.Options) (flink.Options, []format.Notice, error) {
	var info *flink.HAInfo
	var notices []format.Notice
	if fsys, where, ok := r.haFS(ctx); ok {
		var err error
		if info, err = flink.ReadHA(ctx, fsys, r.job); err != nil {
			notices = append(notices, format.Notice{Kind: NoticeFlinkNote, Message: fmt.Sprintf("Flink log: the HA directory %s could not be read (%v): the plan is what the log and the flags say", where, err)})
			info = nil
		}
	}
	if info != nil && info.AssumesSourceKind() {
		settle(ctx, r, info)
	}
	if info != nil && opts.Plan == nil {
		opts.Plan = info.Plan
	}
	opts, err := matchCoordinators(opts)
	if err != nil || info == nil {
		return opts, notices, err
	}
	given := opts.Coordinators // by id now: what the flags settle
	if len(info.Coordinators) > 0 {
		kinds := map[string]string{}
		for id, k := range info.Coordinators {
			kinds[id] = k
		}
		for id, k := range given { // the flags override
			kinds[id] = k
		}
		opts.Coordinators = kinds
	}
	return opts, append(notices, assumptionNotices(info.Assumptions, given)...), nil
}

// assumptionNotices returns a notice for each assumption but the
// source-kind ones of the vertices whose kind the flags give (by id).
func assumptionNotices(as []flink.Assumption, given map[string]string) []format.Notice {
	var out []format.Notice
	for _, a := range as {
		if _, ok := given[a.Vertex]; ok && a.Kind == flink.AssumedSourceKind {
			continue // the flags settled it
		}
		out = append(out, format.Notice{Kind: NoticeFlinkNote, Message: "Flink log: " + a.Text})
	}
	return out
}

// settle settles the coordinator kinds the Source class tables do not
// know with what the log's snapshot points say (flink.CoordinatorEvidence).
// A log that cannot be read settles what it read up to there: opening it
// reports the damage.
func settle(ctx context.Context, r *resolved, info *flink.HAInfo) {
	rd, err := flink.NewReader(r.fsys(ctx))
	if err != nil {
		return
	}
	defer rd.Close()
	ev, _ := flink.ReadCoordinatorEvidence(rd)
	info.Settle(ev)
}

// planNames maps the plan's vertex ids to their names.
func planNames(p *flink.JobPlan) map[string]string {
	m := map[string]string{}
	if p == nil {
		return m
	}
	for _, n := range p.Nodes {
		m[n.ID] = n.Name()
	}
	return m
}

// CoordinatorError is a --coordinator VERTEX that names several
// vertices.
type CoordinatorError struct{ Err error }

func (e *CoordinatorError) Error() string { return "--coordinator: " + e.Err.Error() }
func (e *CoordinatorError) Unwrap() error { return e.Err }

// matchCoordinators keys the --coordinator kinds by vertex id: a VERTEX
// may be a 32-hex id, a full name, or any operator of a chain's name
// ("src" for "Source: numbers -> src"), matched against the plan's names.
// One that names no vertex is kept as given (the log reports it); one
// that names several is an error.
func matchCoordinators(opts flink.Options) (flink.Options, error) {
	if len(opts.Coordinators) == 0 || opts.Plan == nil {
		return opts, nil
	}
	names := planNames(opts.Plan)
	kinds := map[string]string{}
	for key, k := range opts.Coordinators {
		id, err := flink.MatchVertex(names, key)
		switch {
		case err == nil:
			kinds[id] = k
		case errors.Is(err, flink.ErrAmbiguousVertex):
			return opts, &CoordinatorError{Err: err}
		default:
			kinds[key] = k
		}
	}
	opts.Coordinators = kinds
	return opts, nil
}

// restTimeout bounds each request to Flink's REST API, as a bucket's are.
const restTimeout = 20 * time.Second

// withREST reads the job's plan and the live TaskManagers from the Flink
// REST API that fo names (--flink-rest), when it names one. The plan
// stands in for the log's unless --flink-plan gave one; an API that
// cannot be read is an error: the user asked for it.
func withREST(ctx context.Context, r *resolved, fo *FlinkOptions, opts *flink.Options) (*flink.RESTInfo, error) {
	if fo == nil || fo.REST == "" {
		return nil, nil
	}
	if r.job == "" {
		return nil, fmt.Errorf("--flink-rest %s: the job id is unknown (the log's path is not <job id>/job-events): give the job-events directory in Flink's layout", fo.REST)
	}
	info, err := flink.FetchREST(ctx, fo.REST, r.job, &http.Client{Timeout: restTimeout})
	if err != nil {
		return nil, fmt.Errorf("--flink-rest: %w", err)
	}
	if opts.Plan == nil {
		opts.Plan = info.Plan
	}
	return info, nil
}

// withHADir opens the HA cluster directory fo names (--flink-ha) as the
// log's, closed with it.
func withHADir(ctx context.Context, r *resolved, fo *FlinkOptions) error {
	if fo == nil || fo.HA == "" {
		return nil
	}
	b, err := blob.OpenBucket(ctx, fo.HA)
	if err != nil {
		return fmt.Errorf("--flink-ha: %w", err)
	}
	r.ha, r.extra = b, append(r.extra, b)
	return nil
}

// LostWorkers returns the TaskManagers that ran finished subtasks and
// that the REST API no longer lists (--flink-rest), with why, for the
// default availability to drop: none when the shuffle keeps partitions
// off the TaskManagers, or without --flink-rest.
func (s *flinkSource) LostWorkers() (lost []string, why string) {
	if s.rest == nil || s.rest.Shuffle.SurvivesLostTaskManager() {
		return nil, ""
	}
	src, err := s.log.Events()
	if err != nil {
		return nil, ""
	}
	defer src.Close()
	var events []format.Event
	for {
		e, err := src.Next()
		if err != nil {
			break
		}
		if e.Kind == format.KindSubtaskFinished {
			events = append(events, e)
		}
	}
	return flink.LostTaskManagers(events, s.rest.LiveTaskManagers), "ran finished subtasks and is not registered with the cluster any more (--flink-rest): its partitions are lost"
}
