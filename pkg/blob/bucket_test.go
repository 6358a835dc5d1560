package blob

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"strings"
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

// TestBucketUp: a bucket above another shares its connection and sees the
// objects of the higher prefix, for every kind of store.
func TestBucketUp(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, url := range []string{"mem://bucketup?prefix=ha/default/job/job-events/", "file://" + dir + "?prefix=ha/default/job/job-events/"} {
		root, err := OpenBucket(ctx, strings.Replace(url, "ha/default/job/job-events/", "", 1))
		if err != nil {
			t.Fatal(err)
		}
		if err := root.store.put(ctx, "ha/default/submittedJobGraph01", []byte("graph"), "application/octet-stream"); err != nil {
			t.Fatal(err)
		}
		if err := root.store.put(ctx, "ha/default/job/job-events/events.0", []byte("ev"), "application/octet-stream"); err != nil {
			t.Fatal(err)
		}
		for name, b := range map[string]*Bucket{"opened": mustOpen(t, url), "sub": root.Sub("ha/default/job/job-events/")} {
			up, ok := b.Up(2)
			if !ok {
				t.Fatalf("%s %s: Up(2) failed", url, name)
			}
			if data, err := up.ReadAll(ctx, "submittedJobGraph01"); err != nil || string(data) != "graph" {
				t.Fatalf("%s %s: read above: %q, %v", url, name, data, err)
			}
			if !strings.HasSuffix(up.URL(), "prefix=ha/default/") {
				t.Fatalf("%s %s: URL %s", url, name, up.URL())
			}
			if _, ok := b.Up(5); ok {
				t.Fatalf("%s %s: Up past the root", url, name)
			}
			up.Close() // shares the connection: b still reads
			if _, err := b.ReadAll(ctx, "events.0"); err != nil {
				t.Fatalf("%s %s: after closing the bucket above: %v", url, name, err)
			}
		}
		root.Close()
	}
}

func mustOpen(t *testing.T, url string) *Bucket {
	t.Helper()
	b, err := OpenBucket(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// TestOpen_S3NoRegion: an s3:// URL without a region, in an environment
// without one (often a URL cut short at an unquoted & by the shell), says
// so and how to give one, instead of the SDK's endpoint rule text.
func TestOpen_S3NoRegion(t *testing.T) {
	blobtest.FakeAWS(t)
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_DEFAULT_REGION", "")
	_, err := OpenBucket(context.Background(), "s3://ops-logs?prefix=jobs/wc/")
	if err == nil || !strings.Contains(err.Error(), "no AWS region: add &region=REGION") || !strings.Contains(err.Error(), "unquoted &") {
		t.Fatalf("error = %v, want the region hint", err)
	}
}
