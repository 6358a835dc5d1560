// Package gcstest runs an in-process Google Cloud Storage API server
// (fake-gcs-server, in memory) on 127.0.0.1 for tests. It lives apart from
// blobtest so that tests that only need S3 do not build it.
package gcstest

import (
	"fmt"
	"net"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/fsouza/fake-gcs-server/fakestorage"
)

// Server is a fake GCS server for one test. Its conditional writes
// (ifGenerationMatch=0, what IfNotExist sends) are checked under the
// backend's lock, so they are atomic as on GCS.
type Server struct {
	fake    *fakestorage.Server
	srv     *httptest.Server
	buckets atomic.Int64
}

// NewServer starts a server on 127.0.0.1 for the duration of t and points
// the GCS client at it with STORAGE_EMULATOR_HOST (so no credentials are
// needed or looked for). Because it sets the environment, t must not be
// parallel, and the variable must be set before the process's first gs://
// open: gocloud caches its GCS opener.
func NewServer(t testing.TB) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// Reads are routed by Host: PublicHost must be the address clients use.
	fake, err := fakestorage.NewServerWithOptions(fakestorage.Options{
		NoListener: true,
		Scheme:     "http",
		PublicHost: ln.Addr().String(),
	})
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(fake.HTTPHandler())
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(func() {
		srv.Close()
		fake.Stop()
	})
	t.Setenv("STORAGE_EMULATOR_HOST", ln.Addr().String())
	return &Server{fake: fake, srv: srv}
}

// Bucket creates a new, empty bucket and returns its URL, gs://NAME.
func (s *Server) Bucket(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("jobevents-%d", s.buckets.Add(1))
	s.fake.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: name})
	return "gs://" + name
}

// GCS starts a server for t (see NewServer) and returns the URL of a new
// bucket on it.
func GCS(t testing.TB) string {
	t.Helper()
	return NewServer(t).Bucket(t)
}
