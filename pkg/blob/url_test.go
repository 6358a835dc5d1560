package blob

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/internal/blobtest"
)

func TestParseLocation(t *testing.T) {
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		in, want string
	}{
		{"/var/lib/jobevent", "file:///var/lib/jobevent"},
		{"/var/lib/jobevent/", "file:///var/lib/jobevent"},
		{"jobevents", "file://" + filepath.ToSlash(filepath.Join(cwd, "jobevents"))},
		{"./jobevents?prefix=wc", "file://" + filepath.ToSlash(filepath.Join(cwd, "jobevents")) + "?prefix=wc/"},
		{"file:///var/lib/jobevent?prefix=jobs/wordcount/", "file:///var/lib/jobevent?prefix=jobs/wordcount/"},
		{"file:///var/lib/jobevent?prefix=/jobs/wordcount", "file:///var/lib/jobevent?prefix=jobs/wordcount/"},
		{"file://localhost/tmp/x", "file:///tmp/x"},
		{"file://./jobevents?prefix=wc/", "file://" + filepath.ToSlash(filepath.Join(cwd, "jobevents")) + "?prefix=wc/"},
		{"file:///tmp/a%20b", "file:///tmp/a%20b"},
		{"mem://x", "mem://x"},
		{"mem://x?prefix=a", "mem://x?prefix=a/"},
		{"MEM://x?prefix=a/b/", "mem://x?prefix=a/b/"},
		{"s3://ops-logs?prefix=jobs/wc/&region=eu-west-1", "s3://ops-logs?region=eu-west-1&prefix=jobs/wc/"},
		{"gs://bucket", "gs://bucket"},
		{"azblob://container?prefix=p", "azblob://container?prefix=p/"},
	}
	for _, tc := range tests {
		loc, err := parseLocation(tc.in)
		if err != nil {
			t.Errorf("parseLocation(%q): %v", tc.in, err)
			continue
		}
		if got := loc.String(); got != tc.want {
			t.Errorf("parseLocation(%q) = %s, want %s", tc.in, got, tc.want)
		}
		// The canonical form parses to itself.
		again, err := parseLocation(loc.String())
		if err != nil || again.String() != loc.String() {
			t.Errorf("parseLocation(%q) = %v, %v; not canonical", loc, again, err)
		}
	}
}

func TestParseLocation_Errors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", "empty log URL"},
		{"ftp://host/x", `unsupported scheme "ftp": want one of file, mem, s3, gs, azblob`},
		{"s3://", "missing bucket name"},
		{"s3://bucket/jobs/wc", "use ?prefix=jobs/wc/"},
		{"file://host/x", `file URL host "host"`},
		{"mem://x?prefix=a/../b", `".." path segments are not allowed`},
		{"mem://x?prefix=a//b", "empty"},
		{"mem://x?prefix=a%01b", "control characters"},
		{"mem://x?prefix=a%zz", "invalid URL escape"},
	}
	for _, tc := range tests {
		_, err := parseLocation(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parseLocation(%q) = %v, want an error containing %q", tc.in, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("parseLocation(%q): error of several lines: %q", tc.in, err)
		}
	}
	if _, err := parseLocation("ftp://x"); !errors.Is(err, ErrUnsupportedScheme) {
		t.Errorf("unknown scheme: %v, want ErrUnsupportedScheme", err)
	}
}

func TestOpen_MissingDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nope")
	_, err := Open(ctx, dir)
	var nl *NoLogError
	if !errors.As(err, &nl) || !errors.Is(err, ErrNoLog) {
		t.Fatalf("open of a missing directory: %v, want a NoLogError", err)
	}
	if want := "no event log at file://" + dir + ": directory " + dir + " does not exist"; err.Error() != want {
		t.Fatalf("err = %q, want %q", err, want)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatal("Open created the directory")
	}
	// Create makes it, prefix included.
	l, err := Create(ctx, dir+"?prefix=jobs/wc/")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if fi, err := os.Stat(filepath.Join(dir, "jobs", "wc")); err != nil || !fi.IsDir() {
		t.Fatalf("Create did not make the prefix directory: %v", err)
	}
	if l.Prefix() != "jobs/wc/" {
		t.Fatalf("prefix = %q", l.Prefix())
	}
}

func TestOpen_NotADirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, file); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Fatalf("open of a file: %v", err)
	}
}

// TestOpen_FileLayout checks the bytes on disk: no .attrs sidecars, no
// temporary files left, keys under the prefix.
func TestOpen_FileLayout(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(ctx, "file://"+dir+"?prefix=jobs/wc/")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	claim(t, l, 1, 1)
	if err := l.WriteSpec(ctx, []byte("job: wc\n")); err != nil {
		t.Fatal(err)
	}
	if err := l.Heartbeat(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := l.WriteSegment(ctx, numbered(genEvents(3, 1), 1, 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := l.HeartbeatAge(ctx, 1); err != nil {
		t.Fatal(err)
	}
	var files []string
	filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	want := []string{
		"jobs/wc/epochs/00000001",
		"jobs/wc/epochs/00000001.heartbeat",
		"jobs/wc/events/00000001-0000000000000001-0000000000000003.parquet",
		"jobs/wc/job.yaml",
	}
	if strings.Join(files, "\n") != strings.Join(want, "\n") {
		t.Fatalf("files =\n%s\nwant\n%s", strings.Join(files, "\n"), strings.Join(want, "\n"))
	}
}

func TestOpen_MemSharedAcrossPrefixes(t *testing.T) {
	a, err := Open(ctx, "mem://shared-test?prefix=a/")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(ctx, "mem://shared-test?prefix=b/")
	if err != nil {
		t.Fatal(err)
	}
	whole, err := Open(ctx, "mem://shared-test")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.WriteSpec(ctx, []byte("a\n")); err != nil {
		t.Fatal(err)
	}
	if ok, _ := b.Exists(ctx); ok {
		t.Fatal("prefix b sees prefix a's spec")
	}
	a.Close()
	got, err := whole.store.get(ctx, "a/job.yaml")
	if err != nil || string(got) != "a\n" {
		t.Fatalf("a/job.yaml through the whole bucket = %q, %v", got, err)
	}
	if _, err := Open(ctx, "mem://x?region=us"); err == nil {
		t.Fatal("mem:// accepted a driver parameter")
	}
}

func TestOpen_S3MissingBucket(t *testing.T) {
	srv := blobtest.NewS3Server(t)
	_, err := Open(ctx, srv.URL("no-such-bucket"))
	if !errors.Is(err, ErrNoLog) || !strings.Contains(err.Error(), `bucket "no-such-bucket" does not exist`) {
		t.Fatalf("open of a missing bucket: %v", err)
	}
}

func TestLogs(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"jobs/a/", "jobs/b/", "other/deep/c/"} {
		l, err := Create(ctx, dir+"?prefix="+p)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.WriteSpec(ctx, []byte("job: x\n")); err != nil {
			t.Fatal(err)
		}
		l.Close()
	}
	if err := os.MkdirAll(filepath.Join(dir, "empty", "dir"), 0o777); err != nil {
		t.Fatal(err)
	}
	root, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	logs, err := root.Logs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"file://" + dir + "?prefix=jobs/a/",
		"file://" + dir + "?prefix=jobs/b/",
		"file://" + dir + "?prefix=other/deep/c/",
	}
	if strings.Join(logs, " ") != strings.Join(want, " ") {
		t.Fatalf("logs = %v, want %v", logs, want)
	}
	jobs, err := Open(ctx, dir+"?prefix=jobs/a/")
	if err != nil {
		t.Fatal(err)
	}
	defer jobs.Close()
	if logs, err := jobs.Logs(ctx); err != nil || len(logs) != 1 || logs[0] != want[0] {
		t.Fatalf("logs at a log = %v, %v; want itself", logs, err)
	}
}

func TestParseURL(t *testing.T) {
	got, err := ParseURL("s3://ops?prefix=jobs/wordcount&region=us-east-1")
	if want := "s3://ops?region=us-east-1&prefix=jobs/wordcount/"; err != nil || got != want {
		t.Fatalf("ParseURL = %q, %v, want %q", got, err, want)
	}
	if _, err := ParseURL("s3://ops/jobs?prefix=wordcount/"); err == nil || !strings.Contains(err.Error(), "use ?prefix=jobs/") {
		t.Fatalf("ParseURL of a path after the bucket: %v, want the error naming ?prefix=jobs/", err)
	}
}
