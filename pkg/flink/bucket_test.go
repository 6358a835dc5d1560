package flink

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	gcblob "gocloud.dev/blob"
	"gocloud.dev/blob/memblob"
)

// TestNewReader_Bucket reads a job-events directory from a gocloud bucket,
// which is an fs.FS, under a prefix as Flink lays it out in an HA storage
// directory.
func TestNewReader_Bucket(t *testing.T) {
	ctx := context.Background()
	b := memblob.OpenBucket(nil)
	defer b.Close()
	const prefix = "default/0123456789abcdef0123456789abcdef/job-events/"
	files, err := filepath.Glob(filepath.Join(fixtureDirs[1], "job-events", "events.*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.WriteAll(ctx, prefix+filepath.Base(f), data, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.WriteAll(ctx, "default/other/job-events/events.0", []byte("not this job"), nil); err != nil {
		t.Fatal(err)
	}
	b.SetIOFSCallback(func() (context.Context, *gcblob.ReaderOptions) { return ctx, nil })
	fsys, err := b.Sub(prefix[:len(prefix)-1])
	if err != nil {
		t.Fatal(err)
	}
	lines, warnings, err := readAll(t, fsys)
	if err != nil || len(warnings) != 0 {
		t.Fatalf("read: %v, warnings %v", err, warnings)
	}
	want := expectedLines(t, fixtureDirs[1])
	if len(lines) != len(want) {
		t.Fatalf("records = %d, want %d", len(lines), len(want))
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("record %d:\n got %s\nwant %s", i+1, lines[i], want[i])
		}
	}
}
