package blob

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// fakeIMDS is an EC2 instance metadata service on 127.0.0.1 that has no
// role: it refuses the IMDSv2 token (so that the AWS SDK falls back to
// IMDSv1, and warns) and answers every other request 404.
type fakeIMDS struct {
	*httptest.Server
	mu       sync.Mutex
	requests []string
}

func newFakeIMDS(t *testing.T) *fakeIMDS {
	t.Helper()
	f := &fakeIMDS{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.requests = append(f.requests, r.Method+" "+r.URL.Path)
		f.mu.Unlock()
		if r.Method == http.MethodPut && r.URL.Path == "/latest/api/token" {
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

// asked reports whether the service got a request "METHOD PATH".
func (f *fakeIMDS) asked(req string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.requests {
		if r == req {
			return true
		}
	}
	return false
}

// imdsEnv is noCloudEnv with the instance metadata service enabled and at
// f: the AWS SDK's credential chain ends there, and finds nothing. The
// shared config and credentials files are empty.
func imdsEnv(t *testing.T, f *fakeIMDS) {
	t.Helper()
	noCloudEnv(t)
	dir := t.TempDir()
	for _, k := range []string{"AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"} {
		path := filepath.Join(dir, k)
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		t.Setenv(k, path)
	}
	t.Setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", f.URL)
	for _, k := range []string{"AWS_EC2_METADATA_DISABLED", "AWS_EC2_METADATA_V1_DISABLED", "AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE"} {
		t.Setenv(k, "") // restored after the test
		os.Unsetenv(k)
	}
}

// TestOpen_S3NoCredentialsNoSDKLog checks that an s3:// bucket without
// credentials, on a machine whose instance metadata service has no role,
// is one AccessError and nothing on stderr: the SDK warns "falling back
// to IMDSv1" through its default logger.
func TestOpen_S3NoCredentialsNoSDKLog(t *testing.T) {
	imds := newFakeIMDS(t)
	imdsEnv(t, imds)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		stderr <- string(b)
	}()
	saved := os.Stderr
	os.Stderr = w
	tctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, openErr := Open(tctx, "s3://ops-logs?region=us-east-1&endpoint="+imds.URL+"&use_path_style=true")
	os.Stderr = saved
	w.Close()
	if got := <-stderr; got != "" {
		t.Errorf("stderr = %q, want nothing", got)
	}
	wantAccessError(t, openErr, ErrNoCredentials,
		"s3://ops-logs: no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE), or use an instance role")
	if !imds.asked("PUT /latest/api/token") {
		t.Fatalf("the SDK did not ask the instance metadata service at %s for a token; requests: %q", imds.URL, imds.requests)
	}
}
