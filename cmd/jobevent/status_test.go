package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/internal/blobtest"
	"github.com/jobevent/jobevent/pkg/blob"
)

// decodeStatus decodes status --format json.
func decodeStatus(t *testing.T, out string) jobStatus {
	t.Helper()
	var st jobStatus
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("status %q: %v", out, err)
	}
	return st
}

func TestStatus(t *testing.T) {
	dir := t.TempDir()
	url := dir + "?prefix=jobs/failover/"
	runCLI(t, "import", logPath("failover.jsonl"), url).wantCode(t, 0)
	r := runCLI(t, "status", url).wantCode(t, 0)
	for _, want := range []string{
		"job:        wordcount (finished)",
		"held by:    epoch 2, master 127.0.0.1:7101, from seq 11",
		"heartbeat:  last ",
		"ago (the job has ended)",
		"progress:   33 events, last seq 33, 10 of 10 subtasks finished",
		"recording:  ok",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Fatalf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	st := decodeStatus(t, runCLI(t, "status", url, "--format", "json").wantCode(t, 0).stdout)
	if st.Epoch != 2 || st.Master != "127.0.0.1:7101" || st.StartSeq != 11 || st.State != "finished" ||
		st.Heartbeat != "ended" || st.HeartbeatAgeSeconds == nil || st.Subtasks != (subtaskDone{Finished: 10, Total: 10, TotalKnown: true}) || len(st.Vertices) != 4 {
		t.Fatalf("status = %+v", st)
	}
}

// TestStatus_StatusKey: status's JSON names the state "status" as ls does,
// and keeps "state" (keys are added, never renamed).
func TestStatus_StatusKey(t *testing.T) {
	dir := t.TempDir()
	url := dir + "?prefix=jobs/failover/"
	runCLI(t, "import", logPath("failover.jsonl"), url).wantCode(t, 0)
	var st map[string]any
	out := runCLI(t, "status", url, "--format", "json").wantCode(t, 0).stdout
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	var ls struct {
		Logs []struct {
			Status string `json:"status"`
		} `json:"logs"`
	}
	if err := json.Unmarshal([]byte(runCLI(t, "ls", dir, "--format", "json").wantCode(t, 0).stdout), &ls); err != nil {
		t.Fatal(err)
	}
	if len(ls.Logs) != 1 || st["status"] != ls.Logs[0].Status || st["state"] != "finished" || st["status"] != "finished" {
		t.Fatalf("status says state %v, status %v; ls says %+v; want finished everywhere", st["state"], st["status"], ls.Logs)
	}
}

func TestStatus_Running(t *testing.T) {
	url := t.TempDir()
	runCLI(t, "import", logPath("running.jsonl"), url).wantCode(t, 0)
	l, err := blob.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Heartbeat(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	l.Close()
	st := decodeStatus(t, runCLI(t, "status", url, "--format", "json", "--heartbeat-timeout", "1h").wantCode(t, 0).stdout)
	if st.State != "running" || st.Heartbeat != "alive" || st.Subtasks.Finished != 7 || st.Subtasks.Total != 10 {
		t.Fatalf("status = %+v", st)
	}
	st = decodeStatus(t, runCLI(t, "status", url, "--format", "json", "--heartbeat-timeout", "1ns").wantCode(t, 0).stdout)
	if st.State != "stale" || st.Heartbeat != "stale" {
		t.Fatalf("status with a 1ns timeout = %+v", st)
	}
}

// TestStatus_Damaged reports a torn tail as a warning (exit 0) and
// corruption as such (exit 2), with what could be read.
func TestStatus_Damaged(t *testing.T) {
	dir := t.TempDir()
	url := dir + "?prefix=j/"
	segmentedLog(t, url, "running.jsonl", 5)
	segs, err := os.ReadDir(filepath.Join(dir, "j", "events"))
	if err != nil {
		t.Fatal(err)
	}
	last := filepath.Join(dir, "j", "events", segs[len(segs)-1].Name())
	data, _ := os.ReadFile(last)
	os.WriteFile(last, data[:len(data)/2], 0o666)
	r := runCLI(t, "status", url, "--format", "json").wantCode(t, 0)
	st := decodeStatus(t, r.stdout)
	if st.Recording.Health != "warning" || len(st.Recording.TornTail) != 1 || !strings.Contains(r.stderr, "torn segment") {
		t.Fatalf("torn tail: %+v\nstderr: %s", st.Recording, r.stderr)
	}
	first := filepath.Join(dir, "j", "events", segs[0].Name())
	data, _ = os.ReadFile(first)
	data[len(data)/2] ^= 0xff
	os.WriteFile(first, data, 0o666)
	r = runCLI(t, "status", url).wantCode(t, 2)
	if !strings.Contains(r.stdout, "recording:  corrupt: ") || !strings.Contains(r.stderr, segs[0].Name()) {
		t.Fatalf("corrupt:\nstdout: %s\nstderr: %s", r.stdout, r.stderr)
	}
}

func TestStatus_JSONL(t *testing.T) {
	st := decodeStatus(t, runCLI(t, "status", logPath("zombie.jsonl"), "--format", "json").wantCode(t, 0).stdout)
	if st.Heartbeat != "n/a" || st.Epoch != 2 || st.Recording.FencedRows != 3 || st.Recording.Health != "warning" {
		t.Fatalf("status = %+v", st)
	}
	runCLI(t, "status", filepath.Join(t.TempDir(), "none")).wantOneLineError(t, 2, "no event log at")
}

// TestCloud_MissingCredentials checks the one-line message of a missing
// credential through the CLI (gs:// is checked in pkg/blob, where the
// metadata server probe can be turned off).
func TestCloud_MissingCredentials(t *testing.T) {
	srv := blobtest.NewS3Server(t) // sets and then we clear the AWS variables
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AZURE_STORAGE_ACCOUNT", "AZURE_STORAGE_KEY",
		"AZURE_STORAGE_SAS_TOKEN", "AZURE_STORAGE_CONNECTION_STRING", "AZURE_STORAGEBLOB_CONNECTIONSTRING",
		"AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"} {
		t.Setenv(k, "")
	}
	runCLI(t, "dump", srv.URL("ops-logs")).wantOneLineError(t, 2,
		"jobevent: s3://ops-logs: no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE), or use an instance role")
	runCLI(t, "status", "azblob://ops-logs?prefix=jobs/wc/").wantOneLineError(t, 2,
		"jobevent: azblob://ops-logs: no Azure credentials (no storage account): set AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY")
}

// TestStatus_ReadOnly: status reads a log and writes nothing to it, so
// read-only credentials are enough: the log's tree is the same after.
func TestStatus_ReadOnly(t *testing.T) {
	dir := t.TempDir()
	runCLI(t, "import", logPath("running.jsonl"), dir).wantCode(t, 0)
	l, err := blob.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Heartbeat(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	l.Close()
	tree := func() []string {
		var out []string
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			out = append(out, fmt.Sprintf("%s %d %v", path, info.Size(), info.ModTime()))
			return nil
		})
		return out
	}
	before := tree()
	runCLI(t, "status", dir, "--format", "json").wantCode(t, 0)
	if after := tree(); !reflect.DeepEqual(after, before) {
		t.Fatalf("status changed the log's tree:\nbefore %v\nafter  %v", before, after)
	}
}
