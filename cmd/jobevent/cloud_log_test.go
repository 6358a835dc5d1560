package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestLs_S3NoCredentialsOneLine runs the jobevent binary on an s3:// bucket
// with no AWS credentials anywhere, on a machine whose instance metadata
// service (a server on 127.0.0.1) has no role and refuses IMDSv2 tokens:
// stderr is the one line of the credential error, with no line of the AWS
// SDK ("SDK ... WARN falling back to IMDSv1") before it.
func TestLs_S3NoCredentialsOneLine(t *testing.T) {
	bin := buildBinary(t)
	var tokenAsked atomic.Bool
	imds := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && r.URL.Path == "/latest/api/token" {
			tokenAsked.Store(true)
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		http.NotFound(w, r)
	}))
	defer imds.Close()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "ls", "s3://ops-logs?region=us-east-1&endpoint="+imds.URL)
	cmd.Dir = t.TempDir()
	cmd.Env = noAWSEnv(t, imds.URL)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("jobevent ls: %v, want exit code 2\nstderr:\n%s", err, stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout = %q, want nothing", stdout.String())
	}
	const want = "s3://ops-logs: no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE), or use an instance role\n"
	got := stderr.String()
	if strings.Count(got, "\n") != 1 || !strings.HasSuffix(got, want) || strings.Contains(got, "SDK") || strings.Contains(got, "WARN") {
		t.Fatalf("stderr = %q, want the one line %q", got, want)
	}
	if !tokenAsked.Load() {
		t.Fatalf("the SDK did not ask the instance metadata service at %s for a token", imds.URL)
	}
}

// noAWSEnv returns this process's environment without any variable through
// which a cloud SDK finds credentials, with empty AWS config files, and with
// the EC2 instance metadata service enabled at imdsURL.
func noAWSEnv(t *testing.T, imdsURL string) []string {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "AWS_") || strings.HasPrefix(k, "AZURE_") || strings.HasPrefix(k, "GOOGLE_") ||
			k == "HOME" || k == "CLOUDSDK_CONFIG" || k == "STORAGE_EMULATOR_HOST" {
			continue
		}
		env = append(env, kv)
	}
	dir := t.TempDir()
	for _, name := range []string{"config", "credentials"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return append(env,
		"HOME="+dir,
		"AWS_CONFIG_FILE="+filepath.Join(dir, "config"),
		"AWS_SHARED_CREDENTIALS_FILE="+filepath.Join(dir, "credentials"),
		"AWS_EC2_METADATA_SERVICE_ENDPOINT="+imdsURL,
	)
}
