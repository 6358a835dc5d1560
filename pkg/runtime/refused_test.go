package runtime

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestRefusal classifies the real errors of a worker's registration that
// retrying cannot fix, and leaves the others to the retry loop.
func TestRefusal(t *testing.T) {
	t.Parallel()
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("{}")) })
	plain := httptest.NewServer(withAuth("s3cret", ok))
	defer plain.Close()
	secure := httptest.NewUnstartedServer(withAuth("s3cret", ok))
	secure.Config.ErrorLog = log.New(io.Discard, "", 0)
	secure.StartTLS()
	defer secure.Close()
	forbidding := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusForbidden, "worker w1 at 127.0.0.1:1 does not prove that it holds the token")
	}))
	defer forbidding.Close()
	untrusting := &http.Client{Timeout: 5 * time.Second} // the system's roots
	pool := secure.Client()                              // trusts the test server's certificate
	for _, tc := range []struct {
		name   string
		c      *httpClient
		reason string // "" when the error is not a refusal
	}{
		{"wrong token", &httpClient{base: plain.URL, token: "wrong", client: plain.Client()}, "wrong token"},
		{"plain HTTP against HTTPS", &httpClient{base: strings.Replace(secure.URL, "https:", "http:", 1), token: "s3cret", client: plain.Client()}, "plain HTTP"},
		{"HTTPS against plain HTTP", &httpClient{base: strings.Replace(plain.URL, "http:", "https:", 1), token: "s3cret", client: pool}, "plain HTTP"},
		{"untrusted certificate", &httpClient{base: secure.URL, token: "s3cret", client: untrusting}, "not trusted"},
		{"unverified worker", &httpClient{base: forbidding.URL, token: "s3cret", client: plain.Client()}, "refused this worker: worker w1 at 127.0.0.1:1 does not prove"},
		{"no master listening", &httpClient{base: "http://127.0.0.1:1", token: "s3cret", client: plain.Client()}, ""},
		{"accepted", &httpClient{base: plain.URL, token: "s3cret", client: plain.Client()}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err := (&httpMasterLink{c: tc.c}).register(ctx, registration{Worker: "w1"})
			got := refusal(err)
			if (tc.reason == "") != (got == "") || !strings.Contains(got, tc.reason) {
				t.Fatalf("refusal(%v) = %q, want one saying %q", err, got, tc.reason)
			}
		})
	}
}

// TestNoWorkersWatch says once, after the timeout, that there is no
// worker, and again only after workers came and went.
func TestNoWorkersWatch(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(0, 0)
	w := noWorkersWatch{since: t0}
	step := func(d time.Duration, workers int) string { return w.check(t0.Add(d), workers, time.Second, 2) }
	if msg := step(500*time.Millisecond, 0); msg != "" {
		t.Fatalf("before the timeout: %q", msg)
	}
	if msg := step(1500*time.Millisecond, 0); !strings.Contains(msg, "no workers") || !strings.Contains(msg, "2 requests refused") {
		t.Fatalf("after the timeout: %q", msg)
	}
	if msg := step(3*time.Second, 0); msg != "" {
		t.Fatalf("said twice: %q", msg)
	}
	step(4*time.Second, 1)
	if msg := step(5500*time.Millisecond, 0); msg == "" {
		t.Fatal("workers came and went: want it said again")
	}
}
