package drill

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jobevent/jobevent/pkg/runtime"
)

func TestExplore(t *testing.T) {
	job := os.Getenv("DRILL_JOB")
	if job == "" {
		t.Skip()
	}
	spec, err := runtime.LoadSpec(filepath.Join("..", "..", "..", "testdata", "jobs", job))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res, err := Run(context.Background(), spec, Options{Dir: "../../..", Seed: 7, Keep: "/tmp/explore/keep"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s in %v", res.Verdict, time.Since(start))
	for _, c := range res.Cases {
		if !c.OK() {
			t.Logf("%s: %q", c.Name(), c.Problems)
		}
	}
}
