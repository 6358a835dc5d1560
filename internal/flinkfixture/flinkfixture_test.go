package flinkfixture

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func touch(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, nil, 0o666); err != nil {
		t.Fatal(err)
	}
}

const job = "0123456789abcdef0123456789abcdef"

// TestAll_BothLayouts: the HA layout (with an earlier failover and a
// two-level cluster id) and the old one are found, and a scenario with two
// jobs under ha/ is an error.
func TestAll_BothLayouts(t *testing.T) {
	root := t.TempDir()
	neu := filepath.Join(root, "2.3.0", "two-failovers")
	touch(t, filepath.Join(neu, "truth.json"))
	touch(t, filepath.Join(neu, "ha", "a", "b", "submittedExecutionPlan0a"))
	touch(t, filepath.Join(neu, "ha", "a", "b", job, "job-events", "events.0"))
	touch(t, filepath.Join(neu, "ha.failover-1", "a", "b", job, "job-events", "events.0"))
	old := filepath.Join(root, "1.20.5", "rebalance-hash")
	touch(t, filepath.Join(old, "truth.json"))
	touch(t, filepath.Join(old, "job-events", "events.0"))

	all, err := All(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 {
		t.Fatalf("found %d scenarios, want 2: %+v", len(all), all)
	}
	o, n := all[0], all[1]
	if o.Key() != "1.20.5/rebalance-hash" || o.JobEvents != filepath.Join(old, "job-events") || o.HACluster != "" || len(o.Earlier) != 0 {
		t.Errorf("old layout: %+v", o)
	}
	wantCluster := filepath.Join(neu, "ha", "a", "b")
	if n.Key() != "2.3.0/two-failovers" || n.HACluster != wantCluster || n.JobID != job ||
		n.JobEvents != filepath.Join(wantCluster, job, "job-events") || n.Plan != filepath.Join(neu, "plan.json") {
		t.Errorf("HA layout: %+v", n)
	}
	if want := []string{filepath.Join(neu, "ha.failover-1", "a", "b", job, "job-events"), n.JobEvents}; !reflect.DeepEqual(n.Dirs(), want) {
		t.Errorf("Dirs() = %v, want %v", n.Dirs(), want)
	}

	touch(t, filepath.Join(neu, "ha", "a", "b", "fedcba9876543210fedcba9876543210", "job-events", "events.0"))
	if _, err := All(root); err == nil {
		t.Error("two jobs under ha/: no error")
	}
}

// TestAll_Empty: a root without runs gives none, and a scenario with
// neither layout is an error.
func TestAll_Empty(t *testing.T) {
	root := t.TempDir()
	if all, err := All(root); err != nil || len(all) != 0 {
		t.Fatalf("All(empty) = %v, %v", all, err)
	}
	touch(t, filepath.Join(root, "1.20.5", "x", "truth.json"))
	if _, err := All(root); err == nil {
		t.Error("a scenario without job-events: no error")
	}
}

// TestRoot: $JOBEVENT_FLINK_ROOT wins; otherwise the repository's
// testdata/flink, found from any working directory.
func TestRoot(t *testing.T) {
	t.Setenv(EnvRoot, "/x/y")
	if Root() != "/x/y" {
		t.Errorf("Root() = %s", Root())
	}
	t.Setenv(EnvRoot, "")
	if fi, err := os.Stat(filepath.Join(Root(), "README.md")); err != nil || fi.IsDir() {
		t.Errorf("Root() = %s has no README.md: %v", Root(), err)
	}
}

// TestKnownWrong: an entry matches its scenario on the versions it names
// ("1.20" is the fixtures' 1.20.5 and a fresh run's 1.20), or on all.
func TestKnownWrong(t *testing.T) {
	saved := knownWrong
	defer func() { knownWrong = saved }()
	knownWrong = []knownWrongRun{{"1.20", "a", "why a", false}, {"", "b", "why b", true}}
	for _, c := range []struct {
		version, name, want string
	}{
		{"1.20.5", "a", "why a"}, {"1.20", "a", "why a"}, {"1.2", "a", ""}, {"2.3.0", "a", ""},
		{"2", "b", "why b"}, {"1.20.5", "b", "why b"}, {"1.20.5", "c", ""},
	} {
		if got, unstable := (Scenario{Version: c.version, Name: c.name}).KnownWrong(); got != c.want || unstable != (c.name == "b") {
			t.Errorf("%s/%s: KnownWrong() = %q, want %q", c.version, c.name, got, c.want)
		}
	}
}

// TestGet: a committed run is found by version and name, whatever
// $JOBEVENT_FLINK_ROOT says.
func TestGet(t *testing.T) {
	t.Setenv(EnvRoot, t.TempDir())
	s := Get(t, "1.20.5", "rebalance-hash")
	if s.HACluster == "" || s.JobID == "" {
		t.Fatalf("Get: %+v", s)
	}
	if _, err := os.Stat(filepath.Join(s.JobEvents, "events.0")); err != nil {
		t.Error(err)
	}
}
