package blob

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jobevent/jobevent/internal/blobtest"
)

// TestBucketFS checks the file system of a bucket with testing/fstest:
// objects as files, "/"-delimited prefixes as directories, streamed reads.
func TestBucketFS(t *testing.T) {
	ctx := context.Background()
	b, err := OpenBucket(ctx, "mem://bucketfs-test?prefix=root/")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	objects := map[string]string{
		"default/job/job-events/events.0": "zero",
		"default/job/job-events/events.1": "one, a little longer",
		"default/submittedJobGraph0a1b":   "graph",
		"top":                             "",
	}
	for k, v := range objects {
		if err := b.store.put(ctx, k, []byte(v), "application/octet-stream"); err != nil {
			t.Fatal(err)
		}
	}
	fsys := b.FS(ctx)
	if err := fstest.TestFS(fsys, "default/job/job-events/events.0", "default/job/job-events/events.1", "default/submittedJobGraph0a1b", "top"); err != nil {
		t.Fatal(err)
	}
	sub, err := fs.Sub(fsys, "default/job/job-events")
	if err != nil {
		t.Fatal(err)
	}
	f, err := sub.Open("events.1")
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil || string(data) != objects["default/job/job-events/events.1"] {
		t.Fatalf("read %q, %v", data, err)
	}
	if _, err := fsys.Open("default/none"); !errorsIsNotExist(err) {
		t.Fatalf("open of nothing: %v, want fs.ErrNotExist", err)
	}
	files, dirs, err := b.ListLevel(ctx, "default/")
	if err != nil || len(files) != 1 || len(dirs) != 1 {
		t.Fatalf("ListLevel = %v, %v, %v", files, dirs, err)
	}
	if got := b.Sub("default/").URL(); got != "mem://bucketfs-test?prefix=root/default/" {
		t.Fatalf("Sub URL = %s", got)
	}
}

func errorsIsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// TestBucketFS_DeadEndpoint: a read through the file system of a bucket
// whose endpoint never answers fails within the request timeout.
func TestBucketFS_DeadEndpoint(t *testing.T) {
	shortTimeout(t, 300*time.Millisecond)
	hole := blackHole(t)
	blobtest.FakeAWS(t)
	start := time.Now()
	_, err := OpenBucket(context.Background(), "s3://sick?endpoint=http://"+hole+"&use_path_style=true&region=us-east-1")
	if err == nil {
		t.Fatal("opening a bucket that never answers: no error")
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("took %v", took)
	}
}
