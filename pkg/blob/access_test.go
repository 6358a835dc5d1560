package blob

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/api/option"

	"github.com/jobevent/jobevent/internal/blobtest"
)

// noCloudEnv clears every variable through which the three SDKs find
// credentials or endpoints, and keeps them from probing instance metadata
// servers (which are not on this machine).
func noCloudEnv(t *testing.T) {
	t.Helper()
	for _, k := range []string{
		"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_PROFILE",
		"AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
		"GOOGLE_APPLICATION_CREDENTIALS", "STORAGE_EMULATOR_HOST",
		"AZURE_STORAGE_ACCOUNT", "AZURE_STORAGE_KEY", "AZURE_STORAGE_SAS_TOKEN",
		"AZURE_STORAGE_CONNECTION_STRING", "AZURE_STORAGEBLOB_CONNECTIONSTRING",
	} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_CONFIG_FILE", "/dev/null")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("CLOUDSDK_CONFIG", t.TempDir())
	saved := onGCE
	onGCE = func() bool { return false }
	t.Cleanup(func() { onGCE = saved })
}

// wantAccessError checks that err is one line, an *AccessError matching
// sentinel, and contains every string of want.
func wantAccessError(t *testing.T, err, sentinel error, want ...string) {
	t.Helper()
	var ae *AccessError
	if !errors.As(err, &ae) || !errors.Is(err, sentinel) {
		t.Fatalf("err = %v, want an AccessError matching %v", err, sentinel)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Fatalf("error of several lines: %q", msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Fatalf("err = %q, want it to contain %q", msg, w)
		}
	}
}

func TestOpen_NoCredentials(t *testing.T) {
	tests := []struct {
		name, url string
		env       map[string]string
		want      string
	}{
		{"s3", "s3://ops-logs?endpoint=http://127.0.0.1:1&use_path_style=true", nil,
			"s3://ops-logs: no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE), or use an instance role"},
		{"s3 profile", "s3://ops-logs?profile=nosuch", nil,
			`s3://ops-logs: AWS profile: failed to get shared config profile, nosuch: check AWS_PROFILE or ?profile= against ~/.aws/config`},
		{"gs", "gs://ops-logs?prefix=jobs/", nil,
			"gs://ops-logs: no Google Cloud credentials: set GOOGLE_APPLICATION_CREDENTIALS to a service account key file, or run `gcloud auth application-default login`, or add ?anonymous=true for a public bucket"},
		{"gs missing file", "gs://ops-logs", map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": "/nonexistent/key.json"},
			"gs://ops-logs: no Google Cloud credentials (GOOGLE_APPLICATION_CREDENTIALS=/nonexistent/key.json: "},
		{"azblob", "azblob://ops-logs", nil,
			"azblob://ops-logs: no Azure credentials (no storage account): set AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY (or AZURE_STORAGE_SAS_TOKEN, or AZURE_STORAGE_CONNECTION_STRING), or sign in with `az login` or a managed identity and set AZURE_STORAGE_ACCOUNT"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			noCloudEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			_, err := Open(ctx, tc.url)
			wantAccessError(t, err, ErrNoCredentials, tc.want)
		})
	}
}

// TestOpen_NoCredentialsNoStdout checks that opening gs:// without
// credentials prints nothing: gocloud's own opener writes a warning to
// stdout.
func TestOpen_NoCredentialsNoStdout(t *testing.T) {
	noCloudEnv(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	_, openErr := Open(ctx, "gs://ops-logs")
	os.Stdout = stdout
	w.Close()
	var out strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		out.Write(buf[:n])
		if err != nil {
			break
		}
	}
	if out.Len() != 0 {
		t.Fatalf("stdout = %q, want nothing", out.String())
	}
	wantAccessError(t, openErr, ErrNoCredentials, "gs://ops-logs")
}

// TestOpen_CredentialsRefused checks the message of credentials that the
// cloud refuses, with a local server answering as each cloud does.
func TestOpen_CredentialsRefused(t *testing.T) {
	t.Run("s3", func(t *testing.T) {
		noCloudEnv(t)
		t.Setenv("AWS_ACCESS_KEY_ID", "AKIAWRONG")
		t.Setenv("AWS_SECRET_ACCESS_KEY", "wrong")
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusForbidden)
			w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>InvalidAccessKeyId</Code>` +
				`<Message>The AWS Access Key Id you provided does not exist in our records.</Message></Error>`))
		}))
		defer srv.Close()
		_, err := Open(ctx, "s3://ops-logs?use_path_style=true&endpoint="+srv.URL)
		wantAccessError(t, err, ErrAccessDenied, "s3://ops-logs: access denied (InvalidAccessKeyId): check the AWS credentials")
	})
	t.Run("gs", func(t *testing.T) {
		noCloudEnv(t)
		var storageCalls int
		var mu sync.Mutex
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/token" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				w.Write([]byte(`{"error":"invalid_grant","error_description":"Invalid JWT Signature."}`))
				return
			}
			mu.Lock()
			storageCalls++
			mu.Unlock()
			w.WriteHeader(http.StatusForbidden)
		}))
		defer srv.Close()
		t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", serviceAccountFile(t, srv.URL+"/token"))
		saved := gcsClientOptions
		gcsClientOptions = []option.ClientOption{option.WithEndpoint(srv.URL + "/storage/v1/")}
		defer func() { gcsClientOptions = saved }()
		_, err := Open(ctx, "gs://ops-logs")
		wantAccessError(t, err, ErrAccessDenied, "gs://ops-logs: credentials refused by the token endpoint (invalid_grant)")
		if storageCalls != 0 {
			t.Fatalf("storage calls = %d, want none without a token", storageCalls)
		}
	})
	t.Run("azblob", func(t *testing.T) {
		bucket := blobtest.NewAzurite(t).Bucket(t)
		t.Setenv("AZURE_STORAGE_KEY", "d3Jvbmcga2V5IGZvciB0aGUgZW11bGF0b3I=")
		_, err := Open(ctx, bucket)
		wantAccessError(t, err, ErrAccessDenied, "azblob://jobevents-1: access denied (AuthorizationFailure)")
	})
}

// serviceAccountFile writes a service account key file whose token
// endpoint is tokenURI.
func serviceAccountFile(t *testing.T, tokenURI string) string {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(map[string]string{
		"type":           "service_account",
		"project_id":     "jobevent-test",
		"private_key_id": "1",
		"private_key":    string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email":   "test@jobevent-test.iam.gserviceaccount.com",
		"client_id":      "1",
		"token_uri":      tokenURI,
	})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "key.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// blackHole accepts connections on 127.0.0.1 and never answers; it
// returns the address.
func blackHole(t *testing.T) string { return blobtest.BlackHole(t) }

// shortTimeout sets requestTimeout to d for the test.
func shortTimeout(t *testing.T, d time.Duration) {
	saved := requestTimeout
	requestTimeout = d
	t.Cleanup(func() { requestTimeout = saved })
}

// TestOpen_DeadEndpoint checks that an endpoint that accepts connections
// and never answers gives an error within the request timeout, on every
// cloud scheme, and that a refused connection says so.
func TestOpen_DeadEndpoint(t *testing.T) {
	shortTimeout(t, 300*time.Millisecond)
	hole := blackHole(t)
	tests := []struct {
		name string
		url  string
		env  map[string]string
	}{
		{"s3", "s3://ops-logs?use_path_style=true&endpoint=http://" + hole,
			map[string]string{"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test"}},
		{"gs", "gs://ops-logs", map[string]string{"STORAGE_EMULATOR_HOST": hole}},
		{"azblob", "azblob://ops-logs?protocol=http&domain=" + hole,
			map[string]string{"AZURE_STORAGE_ACCOUNT": blobtest.AzuriteAccount, "AZURE_STORAGE_KEY": blobtest.AzuriteKey}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			noCloudEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			_, err := Open(ctx, tc.url)
			wantAccessError(t, err, ErrUnreachable, tc.name+"://ops-logs: no answer within 300ms from ", hole)
		})
	}
	t.Run("refused", func(t *testing.T) {
		shortTimeout(t, 20*time.Second) // the SDK retries a refused connection, with backoff
		noCloudEnv(t)
		t.Setenv("AWS_ACCESS_KEY_ID", "test")
		t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		_, err = Open(ctx, "s3://ops-logs?use_path_style=true&endpoint=http://"+addr)
		wantAccessError(t, err, ErrUnreachable, "s3://ops-logs: cannot connect to "+addr+": connection refused")
	})
}

// TestWriter_AccessErrorIsPermanent checks that a writer whose
// credentials are refused fails at once, without retrying.
func TestWriter_AccessErrorIsPermanent(t *testing.T) {
	srv := blobtest.NewS3Server(t)
	l, err := Open(ctx, srv.Bucket(t))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	claim(t, l, 1, 1)
	l.store = &deniedStore{objectStore: l.store, cloud: &cloudInfo{scheme: "s3", bucket: "s3://x"}}
	w := l.NewWriter(1, 1, WriterOptions{FlushInterval: -1, Retry: RetryPolicy{Attempts: 5, MinBackoff: time.Hour}})
	w.Append(genEvents(1, 1)[0])
	// A retry would wait an hour on the wall clock: Flush returning shows
	// there was none.
	if err := w.Flush(ctx); !errors.Is(err, ErrAccessDenied) {
		t.Fatalf("flush: %v, want ErrAccessDenied", err)
	}
	w.Close()
}

// deniedStore refuses every segment write as a cloud refuses credentials.
type deniedStore struct {
	objectStore
	cloud *cloudInfo
}

func (s *deniedStore) create(ctx context.Context, key string, data []byte, contentType string) error {
	return &AccessError{Bucket: s.cloud.bucket, Problem: "access denied (AccessDenied)", Err: ErrAccessDenied}
}
