package drill

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/internal/testenv"
	"github.com/jobevent/jobevent/pkg/runtime"
)

// repoRoot is the repository root: the testdata jobs' relative inputs
// (testdata/text) resolve against it, as when they run from there.
const repoRoot = "../../.."

// specPath is the path of a testdata job relative to the repository
// root: testdata/jobs/<name>, or testdata/drill/<rest> for "drill/<rest>".
func specPath(name string) string {
	if rest, ok := strings.CutPrefix(name, "drill/"); ok {
		return filepath.Join("testdata", "drill", rest)
	}
	return filepath.Join("testdata", "jobs", name)
}

// loadJob parses a testdata job (see specPath).
func loadJob(t testing.TB, name string) *runtime.Spec {
	t.Helper()
	path := filepath.Join(repoRoot, specPath(name))
	spec, err := runtime.LoadSpec(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := spec.ResolveInputs(filepath.Dir(path)); err != nil {
		t.Fatal(err)
	}
	return spec
}

// drillJob drills a testdata job with opts, seed 7 unless opts names
// one, in the test's temporary directory.
func drillJob(t testing.TB, job string, opts Options) *Result {
	t.Helper()
	opts.Dir = repoRoot
	opts.TempDir = t.TempDir()
	opts.SpecPath = specPath(job)
	if opts.Seed == 0 {
		opts.Seed = 7
	}
	res, err := Run(testenv.Context(t), loadJob(t, job), opts)
	if err != nil {
		t.Fatalf("drill %s: %v", job, err)
	}
	return res
}

// wantAllPassed fails the test for every failed case, with its problems
// and its reproduction script.
func wantAllPassed(t *testing.T, res *Result) {
	t.Helper()
	for i := range res.Cases {
		c := &res.Cases[i]
		if c.OK() {
			continue
		}
		t.Errorf("%s %s failed:\n  %s\nreproduce with:\n  %s", res.Job, c.Name(),
			strings.Join(c.Problems, "\n  "), strings.Join(c.Repro, "\n  "))
	}
	if !res.Verdict.OK {
		t.Errorf("verdict: %s", res.Verdict)
	}
}
