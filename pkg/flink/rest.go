package flink

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/jobevent/jobevent/pkg/format"
)

// maxREST bounds the size of one REST response FetchREST reads.
const maxREST = 64 << 20

// RESTInfo is what a running Flink cluster's REST API says about a job.
type RESTInfo struct {
	// Plan is GET /jobs/:jobid/plan (JobPlanHandler's JobPlanInfo).
	Plan *JobPlan
	// Config is GET /jobs/:jobid/jobmanager/config
	// (JobManagerJobConfigurationHandler: a list of {key, value}), the
	// cluster configuration the job's JobMaster runs with:
	// execution.batch.job-recovery.*, shuffle-service-factory.class, the
	// hybrid shuffle tiers.
	Config map[string]string
	// LiveTaskManagers are the resource ids of GET /taskmanagers
	// (TaskManagersHandler's TaskManagersInfo, each TaskManagerInfo's id),
	// sorted.
	LiveTaskManagers []string
	// Shuffle is ShuffleOf(Config, "").
	Shuffle Shuffle
	// PlanJSON and ConfigJSON are the two answers as Flink sent them, for
	// a caller that keeps them (jobevent watch's archive).
	PlanJSON, ConfigJSON []byte
}

// RESTJob is one job of GET /jobs/overview (JobsOverviewHandler's
// MultipleJobsDetails, each JobDetails): its id, name and state
// (RUNNING, FINISHED, ...).
type RESTJob struct {
	ID    string `json:"jid"`
	Name  string `json:"name"`
	State string `json:"state"`
}

// FetchJobs lists the jobs the Flink REST API at base knows, as FetchREST
// asks it (client nil means http.DefaultClient; ctx bounds the request).
func FetchJobs(ctx context.Context, base string, client *http.Client) ([]RESTJob, error) {
	if client == nil {
		client = http.DefaultClient
	}
	data, err := getREST(ctx, client, strings.TrimRight(base, "/"), "/jobs/overview")
	if err != nil {
		return nil, err
	}
	var ov struct {
		Jobs []RESTJob `json:"jobs"`
	}
	if err := json.Unmarshal(data, &ov); err != nil {
		return nil, fmt.Errorf("flink rest /jobs/overview: %w", err)
	}
	return ov.Jobs, nil
}

// FetchREST reads a job's plan, its JobManager configuration and the live
// TaskManagers from the Flink REST API at base (e.g.
// "http://127.0.0.1:8081"). client nil means http.DefaultClient; ctx
// bounds every request. A non-2xx answer is an error naming the path and
// status. It is safe for concurrent use.
func FetchREST(ctx context.Context, base, jobID string, client *http.Client) (*RESTInfo, error) {
	if client == nil {
		client = http.DefaultClient
	}
	if !hexID32(jobID) {
		return nil, fmt.Errorf("flink rest: job id %q is not 32 hex digits", jobID)
	}
	base = strings.TrimRight(base, "/")
	if _, err := url.Parse(base); err != nil {
		return nil, fmt.Errorf("flink rest: %w", err)
	}
	info := &RESTInfo{}
	data, err := getREST(ctx, client, base, "/jobs/"+jobID+"/plan")
	if err != nil {
		return nil, err
	}
	info.PlanJSON = data
	if info.Plan, err = ParsePlan(data); err != nil {
		return nil, fmt.Errorf("flink rest /jobs/%s/plan: %w", jobID, err)
	}
	if data, err = getREST(ctx, client, base, "/jobs/"+jobID+"/jobmanager/config"); err != nil {
		return nil, err
	}
	info.ConfigJSON = data
	var entries []struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	}
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, fmt.Errorf("flink rest /jobs/%s/jobmanager/config: %w", jobID, err)
	}
	info.Config = make(map[string]string, len(entries))
	for _, e := range entries {
		info.Config[e.Key] = e.Value
	}
	if data, err = getREST(ctx, client, base, "/taskmanagers"); err != nil {
		return nil, err
	}
	var tms struct {
		TaskManagers []struct {
			ID string `json:"id"`
		} `json:"taskmanagers"`
	}
	if err := json.Unmarshal(data, &tms); err != nil {
		return nil, fmt.Errorf("flink rest /taskmanagers: %w", err)
	}
	for _, tm := range tms.TaskManagers {
		info.LiveTaskManagers = append(info.LiveTaskManagers, tm.ID)
	}
	sort.Strings(info.LiveTaskManagers)
	info.Shuffle = ShuffleOf(info.Config, "")
	return info, nil
}

func getREST(ctx context.Context, client *http.Client, base, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
	if err != nil {
		return nil, fmt.Errorf("flink rest %s: %w", path, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("flink rest %s: %w", path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxREST+1))
	if err != nil {
		return nil, fmt.Errorf("flink rest %s: %w", path, err)
	}
	if len(data) > maxREST {
		return nil, fmt.Errorf("flink rest %s: answer over %d bytes", path, maxREST)
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("flink rest %s: %s: %s", path, resp.Status, strings.TrimSpace(string(data[:min(len(data), 200)])))
	}
	return data, nil
}

// LostTaskManagers returns the TaskManagers (resource ids) that ran a
// subtask the events record as finished and that are not among live,
// sorted: their partitions are gone unless the shuffle keeps them off the
// TaskManagers (Shuffle.SurvivesLostTaskManager).
func LostTaskManagers(events []format.Event, live []string) []string {
	alive := map[string]bool{}
	for _, id := range live {
		alive[id] = true
	}
	lost := map[string]bool{}
	for _, e := range events {
		if e.Kind == format.KindSubtaskFinished && e.Worker != "" && !alive[e.Worker] {
			lost[e.Worker] = true
		}
	}
	out := make([]string, 0, len(lost))
	for id := range lost {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}
