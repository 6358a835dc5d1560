package watch

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// restClient asks Flink's REST API what the job-events do not say: the
// jobs and their states, a job's plan and its JobManager configuration.
// Every request is bounded (the store's 20 s rule). When package flink
// gains its REST client (flink.FetchREST), this file is what it replaces.
type restClient struct {
	bases []string
	http  *http.Client
}

// restTimeout bounds one REST request.
const restTimeout = 20 * time.Second

// maxREST bounds a REST answer.
const maxREST = 16 << 20

func newRESTClient(bases []string) *restClient {
	trimmed := make([]string, len(bases))
	for i, b := range bases {
		trimmed[i] = strings.TrimRight(b, "/")
	}
	return &restClient{bases: trimmed, http: &http.Client{Timeout: restTimeout}}
}

// restJob is one job of /jobs/overview.
type restJob struct {
	ID    string `json:"jid"`
	Name  string `json:"name"`
	State string `json:"state"`
	base  string
}

func (c *restClient) get(ctx context.Context, url string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, restTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxREST))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return data, nil
}

// jobs returns the jobs every REST URL knows.
func (c *restClient) jobs(ctx context.Context) ([]restJob, error) {
	var out []restJob
	for _, b := range c.bases {
		data, err := c.get(ctx, b+"/jobs/overview")
		if err != nil {
			return out, err
		}
		var ov struct {
			Jobs []restJob `json:"jobs"`
		}
		if err := json.Unmarshal(data, &ov); err != nil {
			return out, fmt.Errorf("%s/jobs/overview: %w", b, err)
		}
		for _, j := range ov.Jobs {
			j.base = b
			out = append(out, j)
		}
	}
	return out, nil
}

// recoveryEnabled reports whether a JobManager config (the JSON list of
// {"key","value"} that /jobs/:id/jobmanager/config returns) enables batch
// job recovery.
func recoveryEnabled(config []byte) bool {
	var kv []struct{ Key, Value string }
	if json.Unmarshal(config, &kv) != nil {
		return false
	}
	for _, e := range kv {
		if e.Key == "execution.batch.job-recovery.enabled" {
			return strings.EqualFold(e.Value, "true")
		}
	}
	return false
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
		j.restState = rj.State
		w.keepREST(ctx, j, rj.base)
	}
	for id, name := range w.inactive {
		if !running[id] {
			w.m.inactive.DeleteLabelValues(id, name)
			delete(w.inactive, id)
		}
	}
}

// keepREST writes the job's REST plan (when it changed: adaptive
// parallelism is decided as the job runs) and its config (once).
func (w *Watcher) keepREST(ctx context.Context, j *flinkJob, base string) {
	if plan, err := w.rest.get(ctx, base+"/jobs/"+j.id+"/plan"); err == nil {
		if string(plan) != j.restPlan && w.checkClaim(ctx) == nil && j.arch.Put(ctx, "flink/rest/plan.json", plan) == nil {
			j.restPlan = string(plan)
		}
	}
	if !j.haveConfig {
		if cfg, err := w.rest.get(ctx, base+"/jobs/"+j.id+"/jobmanager/config"); err == nil {
			if w.checkClaim(ctx) == nil && j.arch.Put(ctx, "flink/rest/config.json", cfg) == nil {
				j.haveConfig = true
			}
		}
	}
}

// checkInactive raises the recovery-inactive alert for a running job
// without job-events whose config enables recovery.
func (w *Watcher) checkInactive(ctx context.Context, rj restJob) {
	if _, ok := w.inactive[rj.ID]; ok {
		return
	}
	cfg, err := w.rest.get(ctx, rj.base+"/jobs/"+rj.ID+"/jobmanager/config")
	if err != nil || !recoveryEnabled(cfg) {
		return
	}
	w.inactive[rj.ID] = rj.Name
	w.m.inactive.WithLabelValues(rj.ID, rj.Name).Set(1)
	w.logf("alert: job %s (%s) runs with execution.batch.job-recovery.enabled, yet no job-events appear: recovery is inactive (a hybrid memory/disk shuffle tier, a scheduler other than AdaptiveBatch, or TaskManagers whose own config lacks recovery)", rj.ID, rj.Name)
}
