package flink

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/internal/testenv"
	"github.com/jobevent/jobevent/pkg/format"
)

// The bodies are shaped as Flink's REST handlers answer: JobPlanHandler
// (JobPlanInfo: {"plan": JsonPlanGenerator's plan}),
// JobManagerJobConfigurationHandler (ConfigurationInfo: a list of
// ConfigurationInfoEntry {key, value}) and TaskManagersHandler
// (TaskManagersInfo: {"taskmanagers": [TaskManagerInfo]}).
const (
	restJob  = "39bb010ee317bb42d5a864e85bceeda4"
	restPlan = `{"plan":{"jid":"39bb010ee317bb42d5a864e85bceeda4","name":"job","type":"BATCH","nodes":[
{"id":"90bea66de1c231edf33913ecd54406c1","parallelism":4,"operator":"","operator_strategy":"","description":"map<br/>+- Map<br/>","inputs":[{"num":0,"id":"cbc357ccb763df2852fee8c4fc7d55f2","ship_strategy":"REBALANCE","exchange":"blocking"}],"optimizer_properties":{}},
{"id":"cbc357ccb763df2852fee8c4fc7d55f2","parallelism":4,"operator":"","operator_strategy":"","description":"Source: numbers<br/>+- src<br/>","optimizer_properties":{}}]}}`
	restConfig = `[{"key":"execution.batch.job-recovery.enabled","value":"true"},{"key":"execution.batch.job-recovery.snapshot.min-pause","value":"0 ms"},{"key":"shuffle-service-factory.class","value":"org.apache.flink.runtime.io.network.NettyShuffleServiceFactory"}]`
	restTMs    = `{"taskmanagers":[{"id":"tm-b","path":"pekko.tcp://flink@127.0.0.1:6122/user/rpc/taskmanager_0","dataPort":36421,"jmxPort":-1,"timeSinceLastHeartbeat":1700000000000,"slotsNumber":4,"freeSlots":0,"totalResource":{},"freeResource":{},"hardware":{},"memoryConfiguration":{},"allocatedSlots":[]},{"id":"tm-a","path":"x","dataPort":1,"jmxPort":-1,"timeSinceLastHeartbeat":0,"slotsNumber":4,"freeSlots":4}]}`
)

func restServer(t *testing.T, routes map[string]string) string {
	t.Helper()
	mux := http.NewServeMux()
	for path, body := range routes {
		mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(body))
		})
	}
	return testenv.Server(t, mux)
}

func TestFetchREST(t *testing.T) {
	base := restServer(t, map[string]string{
		"/jobs/" + restJob + "/plan":              restPlan,
		"/jobs/" + restJob + "/jobmanager/config": restConfig,
		"/taskmanagers":                           restTMs,
	})
	info, err := FetchREST(context.Background(), base+"/", restJob, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Plan.Nodes) != 2 || info.Plan.Nodes[1].Name() != "Source: numbers -> src" {
		t.Errorf("plan = %+v", info.Plan)
	}
	if info.Config["execution.batch.job-recovery.enabled"] != "true" || len(info.Config) != 3 {
		t.Errorf("config = %v", info.Config)
	}
	if want := []string{"tm-a", "tm-b"}; !reflect.DeepEqual(info.LiveTaskManagers, want) {
		t.Errorf("live = %v, want %v", info.LiveTaskManagers, want)
	}
	if got := ShuffleOf(info.Config, ""); got != ShuffleNetty {
		t.Errorf("shuffle = %s, want netty", got)
	}
}

func TestFetchREST_Errors(t *testing.T) {
	base := restServer(t, map[string]string{"/jobs/" + restJob + "/plan": restPlan})
	ctx := context.Background()
	if _, err := FetchREST(ctx, base, restJob, nil); err == nil || !strings.Contains(err.Error(), "/jobmanager/config: 404") {
		t.Errorf("missing config: err = %v", err)
	}
	if _, err := FetchREST(ctx, base, "nope", nil); err == nil {
		t.Error("bad job id: no error")
	}
	bad := restServer(t, map[string]string{"/jobs/" + restJob + "/plan": `{"plan":{"nodes":[]}}`})
	if _, err := FetchREST(ctx, bad, restJob, nil); err == nil || !strings.Contains(err.Error(), "no nodes") {
		t.Errorf("empty plan: err = %v", err)
	}
}

func TestLostTaskManagers(t *testing.T) {
	events := []format.Event{
		{Kind: format.KindSubtaskFinished, Worker: "tm-a"},
		{Kind: format.KindSubtaskFinished, Worker: "tm-gone"},
		{Kind: format.KindSubtaskFinished, Worker: "tm-gone"},
		{Kind: format.KindSubtaskFailed, Worker: "tm-failed-only"},
		{Kind: format.KindSubtaskFinished, Worker: "tm-b"},
	}
	got := LostTaskManagers(events, []string{"tm-a", "tm-b"})
	if want := []string{"tm-gone"}; !reflect.DeepEqual(got, want) {
		t.Errorf("lost = %v, want %v", got, want)
	}
	if got := LostTaskManagers(events, nil); len(got) != 3 {
		t.Errorf("no live TaskManager: lost = %v, want 3", got)
	}
}

// TestFetchJobs: /jobs/overview as JobsOverviewHandler answers it, and a
// non-2xx answer as an error naming the path.
func TestFetchJobs(t *testing.T) {
	base := restServer(t, map[string]string{"/jobs/overview": `{"jobs":[{"jid":"` + restJob + `","name":"job","start-time":1,"end-time":-1,"duration":5,"state":"RUNNING","last-modification":2,"tasks":{"total":8}}]}`})
	jobs, err := FetchJobs(context.Background(), base+"/", nil)
	if err != nil || !reflect.DeepEqual(jobs, []RESTJob{{ID: restJob, Name: "job", State: "RUNNING"}}) {
		t.Fatalf("FetchJobs = %+v, %v", jobs, err)
	}
	if _, err := FetchJobs(context.Background(), restServer(t, nil), nil); err == nil || !strings.Contains(err.Error(), "/jobs/overview: 404") {
		t.Fatalf("FetchJobs on a server without the route: %v", err)
	}
}
