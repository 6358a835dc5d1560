package main

import (
	"strings"
	"testing"

	"github.com/jobevent/jobevent/internal/blobtest"
)

func TestImportDump_S3(t *testing.T) {
	srv := blobtest.NewS3Server(t)
	for _, name := range goodLogs {
		url := blobtest.WithPrefix(srv.Bucket(t), "jobs/"+strings.TrimSuffix(name, ".jsonl")+"/")
		runCLI(t, "import", logPath(name), url).wantCode(t, 0)
		d := runCLI(t, "dump", url, "--format", "json").wantCode(t, 0)
		if want := readLog(t, name); d.stdout != want {
			t.Fatalf("import then dump of %s on S3 is not byte for byte:\n%s", name, d.stdout)
		}
	}
	empty := srv.Bucket(t)
	runCLI(t, "dump", empty).wantOneLineError(t, 2, "no event log at")
	runCLI(t, "dump", srv.URL("no-such-bucket")).wantOneLineError(t, 2, "no-such-bucket")
}
