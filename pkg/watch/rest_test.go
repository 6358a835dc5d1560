package watch

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jobevent/jobevent/internal/testenv"
	"github.com/jobevent/jobevent/pkg/logsource"
)

// copyDir copies the files of a fixture directory tree to dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755)
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestWatch_HAPlansOfOneCluster: two jobs of one HA cluster directory each
// get their own plan file (flink.ReadHA matches it by the id inside), in
// either order of the files; a poll of the unchanged tree reads none.
func TestWatch_HAPlansOfOneCluster(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "ha")
	cluster := filepath.Join(src, "default")
	jobs := map[string]string{} // job id -> its plan file
	for _, fix := range []string{"auto-parallelism", "rebalance-hash"} {
		copyDir(t, "../../testdata/flink/1.20.5/"+fix+"/ha/default", cluster)
	}
	ents, _ := os.ReadDir(cluster)
	for _, fix := range []string{"auto-parallelism", "rebalance-hash"} {
		fe, _ := os.ReadDir("../../testdata/flink/1.20.5/" + fix + "/ha/default")
		var id, plan string
		for _, e := range fe {
			if e.IsDir() {
				id = e.Name()
			} else {
				plan = e.Name()
			}
		}
		jobs[id] = plan
	}
	if len(jobs) != 2 || len(ents) != 4 {
		t.Fatalf("fixtures: %v, %d entries", jobs, len(ents))
	}
	root := filepath.Join(dir, "archive")
	os.MkdirAll(root, 0o755)
	w := newTestWatcher(t, src, root)
	if err := w.Poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	for id, plan := range jobs {
		want, _ := os.ReadFile(filepath.Join(cluster, plan))
		got, err := os.ReadFile(filepath.Join(root, "default", id, "flink", plan))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("job %s: archive's plan %s: %v (equal %v)", id, plan, err, bytes.Equal(got, want))
		}
		if j := w.jobs["default/"+id]; j == nil || j.haFile != plan {
			t.Fatalf("job %s: plan file %+v, want %s", id, j, plan)
		}
	}
	// A third job, and a plan file that is no one's (still being written):
	// searched once, and not again while the cluster's unclaimed plan
	// files stay as they are.
	third := "00000000000000000000000000000003"
	os.WriteFile(filepath.Join(cluster, "submittedJobGraph000000000000"), []byte("\xac\xed\x00\x05"), 0o644)
	copyDir(t, filepath.Join(cluster, "f0218e65a576d1f4165a43a4dfd7c81d", "job-events"), filepath.Join(cluster, third, "job-events"))
	for range 3 {
		if err := w.Poll(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if w.haSearches != 3 || w.jobs["default/"+third].haFile != "" {
		t.Fatalf("%d searches for plan files (want 3: one per job, none on polls of an unchanged tree); third job's %q",
			w.haSearches, w.jobs["default/"+third].haFile)
	}
}

// TestWatch_REST: with a REST URL (a fake Flink answering as its handlers
// do), the archive keeps the job's REST plan and config as Flink sent
// them, the job's series carry its name, and a running job with recovery
// enabled but no job-events raises the recovery-inactive alert.
func TestWatch_REST(t *testing.T) {
	const other = "fedcba9876543210fedcba9876543210"
	const plain = "0000000000000000fedcba9876543210" // runs without recovery: no alert
	plan := `{"plan":{"jid":"` + testJob + `","name":"wc","nodes":[{"id":"cbc357ccb763df2852fee8c4fc7d55f2","parallelism":2,"operator":"","description":"Source: numbers","optimizer_properties":{}}]}}`
	config := `[{"key":"execution.batch.job-recovery.enabled","value":"true"}]`
	routes := map[string]string{
		"/jobs/overview": `{"jobs":[{"jid":"` + testJob + `","name":"wc","state":"RUNNING"},{"jid":"` + other + `","name":"quiet","state":"RUNNING"},{"jid":"` + plain + `","name":"plain","state":"RUNNING"}]}`,
		"/taskmanagers":  `{"taskmanagers":[{"id":"tm-a"}]}`,
	}
	for _, id := range []string{testJob, other} {
		routes["/jobs/"+id+"/plan"] = strings.ReplaceAll(plan, testJob, id)
		routes["/jobs/"+id+"/jobmanager/config"] = config
	}
	routes["/jobs/"+plain+"/plan"] = strings.ReplaceAll(plan, testJob, plain)
	routes["/jobs/"+plain+"/jobmanager/config"] = `[{"key":"execution.batch.job-recovery.enabled","value":"false"}]`
	mux := http.NewServeMux()
	var mu sync.Mutex
	asked := map[string]int{}
	for p, body := range routes {
		mux.HandleFunc("GET "+p, func(rw http.ResponseWriter, _ *http.Request) {
			mu.Lock()
			asked[p]++
			mu.Unlock()
			rw.Write([]byte(body))
		})
	}
	base := testenv.Server(t, mux)

	dir := t.TempDir()
	src := filepath.Join(dir, "ha")
	fix := "../../testdata/flink/1.20.5/rebalance-hash/ha/default"
	ents, _ := os.ReadDir(fix)
	for _, e := range ents {
		if e.IsDir() {
			copyDir(t, filepath.Join(fix, e.Name(), "job-events"), filepath.Join(src, "default", testJob, "job-events"))
		}
	}
	root := filepath.Join(dir, "archive")
	os.MkdirAll(root, 0o755)
	var log bytes.Buffer
	w, err := New(context.Background(), Options{Sources: []string{src}, Archive: root, REST: []string{base + "/"}, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Claim(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := w.Poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	arch := filepath.Join(root, "default", testJob)
	for key, want := range map[string]string{logsource.ArchiveRESTPlan: routes["/jobs/"+testJob+"/plan"], logsource.ArchiveRESTConfig: config} {
		if got, err := os.ReadFile(filepath.Join(arch, key)); err != nil || string(got) != want {
			t.Fatalf("archive's %s = %q (%v), want Flink's answer %q", key, got, err, want)
		}
	}
	ms := scrape(t, w)
	if m := ms["jobevent_alert_recovery_inactive{job="+other+",job_name=quiet}"]; m == nil || m.v != 1 {
		t.Fatalf("recovery-inactive alert of %s = %v, want 1\n%s", other, m, log.String())
	}
	if !strings.Contains(log.String(), "alert: job "+other+" (quiet)") {
		t.Fatalf("no alert line for %s in\n%s", other, log.String())
	}
	w.updateGauges()
	if m := scrape(t, w)["jobevent_events{job="+testJob+",job_name=wc}"]; m == nil || m.v == 0 {
		t.Fatalf("the job's series do not carry its REST name: %v", m)
	}
	// Polls of an unchanged job ask REST for the job list only.
	for range 2 {
		if err := w.Poll(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if n, m := asked["/jobs/"+testJob+"/plan"], asked["/jobs/overview"]; n != 1 || m != 3 {
		t.Fatalf("3 polls of an unchanged job asked for its plan %d times (want 1) and for the jobs %d times (want 3)", n, m)
	}
	if n := asked["/jobs/"+plain+"/jobmanager/config"]; n != 1 {
		t.Fatalf("3 polls asked %d times for the config of a running job without recovery (want 1)", n)
	}
	if m := ms["jobevent_alert_recovery_inactive{job="+plain+",job_name=plain}"]; m != nil {
		t.Fatalf("recovery-inactive alert for a job without recovery: %v", m)
	}
}
