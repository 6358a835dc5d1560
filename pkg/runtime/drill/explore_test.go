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

func TestExploreTiming(t *testing.T) {
	if os.Getenv("DRILL_TIMING") == "" {
		t.Skip()
	}
	spec, _ := runtime.LoadSpec(filepath.Join("..", "..", "..", "testdata", "jobs", "legacy-source.yaml"))
	o := Options{Dir: "../../..", Seed: 7}
	o.defaults()
	d, err := newDriller(spec, o)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		dir, _ := makeRunDir(filepath.Join(d.scratch, "x"+string(rune('a'+i))), d.job, d.mirror, d.inputs)
		t0 := time.Now()
		_, _, err := d.runJob(ctx, dir, FaultMaster, false, 20, nil)
		t1 := time.Now()
		_, _, _ = foldLog(ctx, dir.logURL())
		t2 := time.Now()
		_, _, err2 := d.runJob(ctx, dir, FaultMaster, true, 0, nil)
		t3 := time.Now()
		t.Logf("crash %v (%v) fold %v resume %v (%v)", t1.Sub(t0), err, t2.Sub(t1), t3.Sub(t2), err2)
	}
}
