package logsource

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/internal/flinkfixture"
	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

var testdata = filepath.Join("..", "..", "testdata")

// flinkEvents returns the job-events directory of a committed real Flink
// run (found by internal/flinkfixture).
func flinkEvents(t *testing.T, version, scenario string) string {
	t.Helper()
	return flinkfixture.Get(t, version, scenario).JobEvents
}

// copyDir copies the files of src into dst (created).
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o777); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o666); err != nil {
			t.Fatal(err)
		}
	}
}

// importLog imports a JSONL file of testdata/logs into a new bucket log.
func importLog(t *testing.T, name string) string {
	t.Helper()
	return importLogAt(t, name, filepath.Join(t.TempDir(), "log"))
}

// importLogAt imports a JSONL file of testdata/logs into a new bucket log
// at url.
func importLogAt(t *testing.T, name, url string) string {
	t.Helper()
	ctx := context.Background()
	src, err := Open(ctx, filepath.Join(testdata, "logs", name), Options{Raw: true})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	log, err := blob.Create(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	if _, err := blob.Import(ctx, log, src, blob.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	return url
}

func drain(t *testing.T, src Source) []format.Event {
	t.Helper()
	var out []format.Event
	for {
		e, err := src.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
}

func TestOpen_Kinds(t *testing.T) {
	ctx := context.Background()
	bucket := importLog(t, "failover.jsonl")
	flinkDir := flinkEvents(t, "1.20.5", "rebalance-hash")
	tests := []struct {
		arg  string
		kind Kind
	}{
		{filepath.Join(testdata, "logs", "failover.jsonl"), KindJSONL},
		{bucket, KindBucket},
		{"file://" + bucket, KindBucket},
		{flinkDir, KindFlink},
	}
	for _, tc := range tests {
		src, err := Open(ctx, tc.arg, Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.arg, err)
		}
		if got := src.Info().Kind; got != tc.kind {
			t.Errorf("%s: kind %v, want %v", tc.arg, got, tc.kind)
		}
		if n := len(drain(t, src)); n == 0 {
			t.Errorf("%s: no events", tc.arg)
		}
		src.Close()
		if k, err := Classify(ctx, tc.arg); err != nil || k != tc.kind {
			t.Errorf("Classify(%s) = %v, %v; want %v", tc.arg, k, err, tc.kind)
		}
	}
	if k, err := Classify(ctx, filepath.Join(t.TempDir(), "nothing", "here")); err != nil || k != KindNone {
		t.Errorf("Classify(missing) = %v, %v; want nothing", k, err)
	}
	if _, err := Open(ctx, filepath.Join(t.TempDir(), "nothing"), Options{}); !IsNoLog(err) {
		t.Errorf("Open(missing) = %v, want no event log", err)
	}
}

// TestOpen_Capabilities: each kind offers what it can do, and only that.
func TestOpen_Capabilities(t *testing.T) {
	ctx := context.Background()
	bucket, err := Open(ctx, importLog(t, "failover.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer bucket.Close()
	for name, ok := range map[string]bool{
		"WithProjection": is[WithProjection](bucket), "WithSettings": is[WithSettings](bucket),
		"WithTotal": is[WithTotal](bucket), "WithRecover": is[WithRecover](bucket),
		"Claimer": is[replay.Claimer](bucket), "BatchSource": is[replay.BatchSource](bucket),
		"not WithNames": !is[WithNames](bucket), "not WithFindings": !is[WithFindings](bucket),
	} {
		if !ok {
			t.Errorf("bucket log: %s", name)
		}
	}
	if EventTimes(bucket) != TimesRecorded {
		t.Error("a bucket log has recorded times")
	}
	if url, err := Recoverable(ctx, bucket); err != nil || url != bucket.Info().URL {
		t.Errorf("Recoverable(bucket) = %q, %v", url, err)
	}
	if n := bucket.(WithTotal).Total(ctx, 0, 0); n != int64(len(drain(t, bucket))) {
		t.Errorf("Total = %d, not the events read", n)
	}

	fl, err := Open(ctx, flinkEvents(t, "1.20.5", "rebalance-hash"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Close()
	if is[WithRecover](fl) || is[WithProjection](fl) || !is[WithFindings](fl) || !is[WithNames](fl) {
		t.Error("Flink log: wrong capabilities")
	}
	if EventTimes(fl) != TimesNone {
		t.Error("a Flink log has no times")
	}
	var ro *ReadOnlyError
	if _, err := Recoverable(ctx, fl); !errors.As(err, &ro) || !strings.Contains(err.Error(), "Flink recovers its own job") {
		t.Errorf("Recoverable(Flink) = %v", err)
	}
	js, err := Open(ctx, filepath.Join(testdata, "logs", "failover.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer js.Close()
	if _, err := Recoverable(ctx, js); !errors.As(err, &ro) || !strings.Contains(err.Error(), "jobevent import") {
		t.Errorf("Recoverable(jsonl) = %v", err)
	}
}

func is[T any](src Source) bool {
	_, ok := src.(T)
	return ok
}

// TestOpen_ImportedFlinkCarriesItsRule: a log imported from a Flink log is
// planned with Flink's profile by any fold, and refuses a real recovery.
func TestOpen_ImportedFlinkCarriesItsRule(t *testing.T) {
	ctx := context.Background()
	fl, err := Open(ctx, flinkEvents(t, "1.20.5", "min-pause-released-producer"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	url := filepath.Join(t.TempDir(), "copy")
	log, err := blob.Create(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := blob.Import(ctx, log, fl, blob.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	log.Close()
	fl.Close()
	src, err := Open(ctx, url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	st, err := replay.Fold(src, 0)
	if err != nil {
		t.Fatal(err)
	}
	if st.Profile() != replay.ProfileFlink {
		t.Errorf("imported Flink log folds with profile %v", st.Profile())
	}
	var ro *ReadOnlyError
	if _, err := Recoverable(ctx, src); !errors.As(err, &ro) || !strings.Contains(err.Error(), "imported from a Flink log") {
		t.Errorf("Recoverable(imported Flink) = %v", err)
	}
}

// TestOpen_HADirectory: a Flink HA storage directory (or a cluster
// directory) holding one job's job-events resolves to it; one holding
// several is refused, naming them.
func TestOpen_HADirectory(t *testing.T) {
	ctx := context.Background()
	events := flinkEvents(t, "1.20.5", "rebalance-hash")
	ha := t.TempDir()
	copyDir(t, events, filepath.Join(ha, "default", "7e9024806791d9e50c55087f02125c40", "job-events"))
	for _, arg := range []string{ha, filepath.Join(ha, "default")} {
		src, err := Open(ctx, arg, Options{})
		if err != nil {
			t.Fatalf("%s: %v", arg, err)
		}
		if src.Info().Kind != KindFlink || src.Info().Job != "7e9024806791d9e50c55087f02125c40" {
			t.Errorf("%s: %+v, want the Flink job", arg, src.Info())
		}
		if n := len(drain(t, src)); n == 0 {
			t.Errorf("%s: no events", arg)
		}
		src.Close()
	}
	copyDir(t, events, filepath.Join(ha, "default", "00000000000000000000000000000002", "job-events"))
	_, err := Open(ctx, ha, Options{})
	if err == nil || !strings.Contains(err.Error(), "holds 2 Flink jobs") || !strings.Contains(err.Error(), "00000000000000000000000000000002") {
		t.Errorf("two jobs: %v", err)
	}
}

// TestOpen_Refusals: options that do not fit the log are errors naming
// them.
func TestOpen_Refusals(t *testing.T) {
	ctx := context.Background()
	var fe *FlinkOptionsError
	_, err := Open(ctx, filepath.Join(testdata, "logs", "failover.jsonl"), Options{Flink: &FlinkOptions{Given: []string{"--flink-plan"}}})
	if !errors.As(err, &fe) {
		t.Errorf("Flink options on a .jsonl log: %v", err)
	}
	var we *FollowError
	if _, err := Open(ctx, flinkEvents(t, "1.20.5", "rebalance-hash"), Options{Follow: true}); !errors.As(err, &we) {
		t.Errorf("--follow on a Flink log: %v", err)
	}
	if _, err := Open(ctx, filepath.Join(testdata, "logs", "failover.jsonl"), Options{Follow: true}); err == nil {
		t.Error("--follow on a .jsonl log: no error")
	}
	if _, err := Open(ctx, "-", Options{}); err == nil {
		t.Error(`"-" without a standard input: no error`)
	}
	src, err := Open(ctx, "-", Options{Stdin: strings.NewReader(`{"seq":1,"kind":"job_submitted","job":"j","graph":{"vertices":[],"edges":[]}}` + "\n")})
	if err != nil {
		t.Fatal(err)
	}
	if evs := drain(t, src); len(evs) != 1 || evs[0].Job != "j" {
		t.Errorf("stdin: %+v", evs)
	}
}

// TestList finds jobevent logs and Flink job-events directories alike.
func TestList(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	copyDir(t, flinkEvents(t, "1.20.5", "rebalance-hash"), filepath.Join(root, "ha", "default", "7e9024806791d9e50c55087f02125c40", "job-events"))
	importLogAt(t, "healthy.jsonl", "file://"+root+"?prefix=jobs/a/")
	l, err := List(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Logs) != 2 {
		t.Fatalf("%d logs, want 2: %+v", len(l.Logs), l.Logs)
	}
	if l.Logs[0].Prefix != "jobs/a/" || l.Logs[1].Status != FlinkStatus || l.Logs[1].Job != "7e9024806791d9e50c55087f02125c40" || l.Logs[1].Events == 0 {
		t.Errorf("logs: %+v %+v", l.Logs[0], l.Logs[1])
	}
	if _, err := List(ctx, filepath.Join(testdata, "logs", "healthy.jsonl")); err == nil {
		t.Error("List of a JSONL file: no error")
	}
}

// TestOpen_LogsBelow: a directory that holds logs below it, not one
// itself (where run writes its jobs), names them instead of "no event
// log", and is no log to wait for (dump --follow).
func TestOpen_LogsBelow(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	importLogAt(t, "healthy.jsonl", filepath.Join(dir, "wordcount"))
	_, err := Open(ctx, dir, Options{})
	var lb *LogsBelowError
	if !errors.As(err, &lb) || len(lb.Logs) != 1 || lb.Logs[0] != dir+"/wordcount" || IsNoLog(err) {
		t.Fatalf("Open(parent) = %v, want the log below named", err)
	}
	if !strings.Contains(err.Error(), "jobevent ls "+dir) {
		t.Errorf("message: %v", err)
	}
}

// TestOpen_FlinkHA: a Flink log in Flink's own layout is read with what
// its HA directory knows, with no flag: the vertices' names and inputs
// from the JobGraph (1.20) or StreamGraph (2.x), coordinator kinds from
// the Source classes, and for the harness's own source, in no table, from
// the log's snapshots (it has none): nothing is assumed; a flag (by an
// operator of the chain's name) changes that nothing.
func TestOpen_FlinkHA(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		version string
		assumed int
		flags   map[string]string
	}{
		{"2.3.0", 0, nil},
		{"1.20.5", 0, nil}, // the harness's own source class: settled by the log
		{"1.20.5", 0, map[string]string{"src": "no_batch_snapshot"}},
	} {
		m, _ := filepath.Glob(filepath.Join("..", "flink", "testdata", "ha", tc.version, "default", "*", "job-events"))
		if len(m) != 1 {
			t.Fatalf("no HA fixture for %s", tc.version)
		}
		for _, arg := range []string{m[0], filepath.Dir(filepath.Dir(m[0]))} {
			var fo *FlinkOptions
			if tc.flags != nil {
				fo = &FlinkOptions{Coordinators: tc.flags, Given: []string{"--coordinator"}}
			}
			src, err := Open(ctx, arg, Options{Flink: fo})
			if err != nil {
				t.Fatalf("%s: %v", arg, err)
			}
			st, err := replay.Fold(src, 0)
			if err != nil {
				t.Fatal(err)
			}
			if names := st.Names(); len(names) < 4 {
				t.Errorf("%s: names %v, want every vertex's from the HA plan", arg, names)
			}
			if got := src.(WithAssumptions).Assumptions(); len(got) != tc.assumed {
				t.Errorf("%s with %v: assumptions %q, want %d", arg, tc.flags, got, tc.assumed)
			}
			src.Close()
		}
	}
	// An ambiguous --coordinator is an error naming the candidates.
	m, _ := filepath.Glob(filepath.Join("..", "flink", "testdata", "ha", "2.3.0", "default", "*", "job-events"))
	_, err := Open(ctx, m[0], Options{Flink: &FlinkOptions{Coordinators: map[string]string{"nosuch -> x": "none"}, Given: []string{"--coordinator"}}})
	if err != nil {
		t.Errorf("a --coordinator naming nothing: %v, want the log read (and a notice)", err)
	}
}
