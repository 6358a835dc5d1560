package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestFlinkReplay_REST: with --flink-rest pointing at a server on
// 127.0.0.1 that answers as Flink's REST API does (the job's plan, its
// JobManager configuration, the TaskManagers still registered), the dry run
// of a failover during which a TaskManager was stopped needs neither
// --flink-plan nor --lost-worker: it equals what Flink did.
func TestFlinkReplay_REST(t *testing.T) {
	dir := firstScenario(t, "lost-taskmanager")
	tr := readTruth(t, dir)
	var meta struct {
		Job string   `json:"job_id"`
		TMs []string `json:"taskmanagers"`
	}
	data, err := os.ReadFile(dir.Truth)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &meta); err != nil {
		t.Fatal(err)
	}
	if len(tr.LostTaskManagers) == 0 {
		t.Fatal("the scenario stops no TaskManager")
	}
	plan, err := os.ReadFile(dir.Plan)
	if err != nil {
		t.Fatal(err)
	}
	var tms []string
	for _, tm := range meta.TMs {
		if !slices.Contains(tr.LostTaskManagers, tm) {
			tms = append(tms, fmt.Sprintf(`{"id":%q,"path":"pekko.tcp://flink@127.0.0.1:6122/user/rpc/taskmanager_0","dataPort":1,"jmxPort":-1,"timeSinceLastHeartbeat":0,"slotsNumber":4,"freeSlots":4}`, tm))
		}
	}
	routes := map[string]string{
		"/jobs/" + meta.Job + "/plan":              string(plan),
		"/jobs/" + meta.Job + "/jobmanager/config": `[{"key":"execution.batch.job-recovery.enabled","value":"true"},{"key":"shuffle-service-factory.class","value":"org.apache.flink.runtime.io.network.NettyShuffleServiceFactory"}]`,
		"/taskmanagers":                            `{"taskmanagers":[` + strings.Join(tms, ",") + `]}`,
	}
	mux := http.NewServeMux()
	for path, body := range routes {
		mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, body)
		})
	}
	srv := httptest.NewServer(mux)
	defer srv.Close()

	// The job-events directory in Flink's layout, <job id>/job-events, so
	// that its path names the job.
	events := copyFlinkLog(t, dir)
	inLayout := filepath.Join(t.TempDir(), "default", meta.Job, "job-events")
	if err := os.MkdirAll(filepath.Dir(inLayout), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(events, inLayout); err != nil {
		t.Fatal(err)
	}
	side, _ := truthFlags(dir, tr)
	args := []string{"replay", inLayout, "--dry-run", "--format", "json", "--flink-rest", srv.URL}
	for i := 0; i < len(side); i += 2 {
		if side[i] == "--coordinator" {
			args = append(args, side[i], side[i+1])
		}
	}
	r := runCLI(t, args...).wantCode(t, 0)
	checkTruth(t, dir, r.stdout, tr)
	for _, tm := range tr.LostTaskManagers {
		if !strings.Contains(r.stderr, "TaskManager "+tm+" ran finished subtasks and is not registered") {
			t.Errorf("stderr does not say that %s is lost:\n%s", tm, r.stderr)
		}
	}
	// A REST API that does not answer for the job is one line, exit 2.
	runCLI(t, "replay", inLayout, "--dry-run", "--flink-rest", srv.URL+"/nothing").wantOneLineError(t, 2, "--flink-rest")
}
