package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gcblob "gocloud.dev/blob"

	"github.com/jobevent/jobevent/internal/blobtest"
)

// TestFlink_S3: a Flink job-events directory on S3, as an HA storage
// directory lays it out, is recognised by its objects' names: dump and
// replay --dry-run read it, ls lists the job.
func TestFlink_S3(t *testing.T) {
	scen := firstScenario(t, "lost-taskmanager")
	srv := blobtest.NewS3Server(t)
	bucket := srv.Bucket(t)
	const job = "0123456789abcdef0123456789abcdef"
	url := blobtest.WithPrefix(bucket, "default/"+job+"/job-events/")
	ctx := context.Background()
	b, err := gcblob.OpenBucket(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(scen, "job-events", "events.*"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.WriteAll(ctx, filepath.Base(f), data, nil); err != nil {
			t.Fatal(err)
		}
	}
	b.Close()
	want := runCLI(t, "replay", filepath.Join(scen, "job-events"), "--dry-run", "--format", "json").wantCode(t, 0).stdout
	got := runCLI(t, "replay", url, "--dry-run", "--format", "json").wantCode(t, 0).stdout
	// The job id comes from the prefix on S3, from nothing in testdata.
	if strings.Replace(got, `"job": "`+job+`"`, `"job": ""`, 1) != want {
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
