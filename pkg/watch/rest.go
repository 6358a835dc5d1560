package watch

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/jobevent/jobevent/pkg/flink"
	"github.com/jobevent/jobevent/pkg/logsource"
)

// restTimeout bounds one REST request (the store's 20 s rule).
const restTimeout = 20 * time.Second

// restClient asks Flink's REST API, through package flink's client
// (flink.FetchJobs, flink.FetchREST), what the job-events do not say: the
// jobs and their states, a job's plan and its JobManager configuration.
type restClient struct {
	bases []string
	http  *http.Client
}

func newRESTClient(bases []string) *restClient {
	trimmed := make([]string, len(bases))
	for i, b := range bases {
		trimmed[i] = strings.TrimRight(b, "/")
	}
	return &restClient{bases: trimmed, http: &http.Client{Timeout: restTimeout}}
}

// restJob is one job a REST URL knows.
type restJob struct {
	flink.RESTJob
	base string
}

// jobs returns the jobs every REST URL knows.
func (c *restClient) jobs(ctx context.Context) ([]restJob, error) {
	var out []restJob
	for _, b := range c.bases {
		js, err := flink.FetchJobs(ctx, b, c.http)
		if err != nil {
			return out, err
		}
		for _, j := range js {
			out = append(out, restJob{j, b})
		}
	}
	return out, nil
}

// job returns what the REST URL base says of job id.
func (c *restClient) job(ctx context.Context, base, id string) (*flink.RESTInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, restTimeout)
	defer cancel()
	return flink.FetchREST(ctx, base, id, c.http)
}

// recoveryEnabled reports whether a JobManager config enables batch job
// recovery.
func recoveryEnabled(config map[string]string) bool {
	return strings.EqualFold(config["execution.batch.job-recovery.enabled"], "true")
}

// pollREST asks the REST URLs for the jobs' states, keeps each job's plan
// and config in its archive, and raises the REST alerts.
func (w *Watcher) pollREST(ctx context.Context) {
	if w.rest == nil {
		return
	}
	jobs, err := w.rest.jobs(ctx)
	if err != nil {
		w.m.errors.Inc()
		w.logf("REST: %v", err)
	}
	byID := map[string]*flinkJob{}
	for _, j := range w.jobs {
		if !j.ended {
			byID[j.id] = j
		}
	}
	running := map[string]bool{}
	for _, rj := range jobs {
		j := byID[rj.ID]
		if j == nil {
			if rj.State == "RUNNING" {
				running[rj.ID] = true
				w.checkInactive(ctx, rj)
			}
			continue
		}
		if j.name != rj.Name {
			w.m.forget(j.id, j.name)
			j.name = rj.Name
		}
		if j.restState != rj.State {
			j.restFresh = false
		}
		j.restState = rj.State
		w.keepREST(ctx, j, rj.base)
	}
	for id, name := range w.inactive {
		if !running[id] {
			w.m.inactive.DeleteLabelValues(id, name)
			delete(w.inactive, id)
		}
	}
	for id := range w.noRecovery {
		if !running[id] {
			delete(w.noRecovery, id)
		}
	}
}

// keepREST writes the job's REST plan (when it changed: adaptive
// parallelism is decided as the job runs) and its config (once), as Flink
// sent them. It asks only when the job's log grew or its state changed
// since it last did: an unchanged job costs no request.
func (w *Watcher) keepREST(ctx context.Context, j *flinkJob, base string) {
	if j.restFresh {
		return
	}
	info, err := w.rest.job(ctx, base, j.id)
	if err != nil {
		return
	}
	if !bytes.Equal(info.PlanJSON, j.restPlan) && w.checkClaim(ctx) == nil && j.arch.Put(ctx, logsource.ArchiveRESTPlan, info.PlanJSON) == nil {
		j.restPlan = info.PlanJSON
	}
	if !j.haveConfig && w.checkClaim(ctx) == nil && j.arch.Put(ctx, logsource.ArchiveRESTConfig, info.ConfigJSON) == nil {
		j.haveConfig = true
	}
	j.restFresh = bytes.Equal(info.PlanJSON, j.restPlan) && j.haveConfig
}

// checkInactive raises the recovery-inactive alert for a running job
// without job-events whose config enables recovery.
func (w *Watcher) checkInactive(ctx context.Context, rj restJob) {
	if _, ok := w.inactive[rj.ID]; ok || w.noRecovery[rj.ID] {
		return // asked once while it runs: a JobMaster's config does not change
	}
	info, err := w.rest.job(ctx, rj.base, rj.ID)
	if err != nil {
		return
	}
	if !recoveryEnabled(info.Config) {
		w.noRecovery[rj.ID] = true
		return
	}
	w.inactive[rj.ID] = rj.Name
	w.m.inactive.WithLabelValues(rj.ID, rj.Name).Set(1)
	w.logf("alert: job %s (%s) runs with execution.batch.job-recovery.enabled, yet no job-events appear: recovery is inactive (a hybrid memory/disk shuffle tier, a scheduler other than AdaptiveBatch, or TaskManagers whose own config lacks recovery)", rj.ID, rj.Name)
}
