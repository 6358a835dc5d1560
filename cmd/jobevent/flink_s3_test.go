package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gcblob "gocloud.dev/blob"

	"github.com/jobevent/jobevent/internal/blobtest"
	"github.com/jobevent/jobevent/internal/flinkfixture"
)

// TestFlink_S3: a Flink job-events directory on S3, as an HA storage
// directory lays it out, is recognised by its objects' names: dump and
// replay --dry-run read it, ls lists the job.
func TestFlink_S3(t *testing.T) {
	scen := firstScenario(t, "lost-taskmanager")
	srv := blobtest.NewS3Server(t)
	bucket := srv.Bucket(t)
	job := "0123456789abcdef0123456789abcdef"
	if scen.JobID != "" {
		job = scen.JobID
	}
	url := blobtest.WithPrefix(bucket, "default/"+job+"/job-events/")
	ctx := context.Background()
	b, err := gcblob.OpenBucket(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range flinkfixture.EventsFiles(scen.JobEvents) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.WriteAll(ctx, filepath.Base(f), data, nil); err != nil {
			t.Fatal(err)
		}
	}
	b.Close()
	want := runCLI(t, "replay", copyFlinkLog(t, scen), "--dry-run", "--format", "json").wantCode(t, 0).stdout // without the HA plan beside it, as on S3
	got := runCLI(t, "replay", url, "--dry-run", "--format", "json").wantCode(t, 0).stdout
	// The job id comes from the prefix on S3, and locally from the HA
	// layout's path when the fixture has one.
	noJob := func(s string) string { return strings.Replace(s, `"job": "`+job+`"`, `"job": ""`, 1) }
	if noJob(got) != noJob(want) {
		t.Errorf("dry run on S3:\n%s\nwant (local):\n%s", got, want)
	}
	d := runCLI(t, "dump", url, "--kind", "subtask_finished").wantCode(t, 0)
	if !strings.Contains(d.stdout, "subtask_finished") {
		t.Errorf("dump on S3:\n%s", d.stdout)
	}
	l := runCLI(t, "ls", bucket).wantCode(t, 0)
	if !strings.Contains(l.stdout, "default/"+job+"/job-events/") || !strings.Contains(l.stdout, "flink") {
		t.Errorf("ls on S3:\n%s", l.stdout)
	}
}
