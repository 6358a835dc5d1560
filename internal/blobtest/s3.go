// Package blobtest holds test doubles for jobevent's event store: in-process
// bucket servers that listen on 127.0.0.1 only, and a fake clock. It does
// not import pkg/blob, so that package's own tests can use it.
package blobtest

import (
	"fmt"
	"net"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// S3Server is an in-process S3 API server (gofakes3 on its in-memory
// backend) for one test. It honours If-None-Match: * on PutObject
// atomically, which is how conditional writes (IfNotExist) reach S3; it
// ignores it on multipart uploads, which the event store never makes for
// objects under 16 MiB.
type S3Server struct {
	backend *s3mem.Backend
	srv     *httptest.Server
	clock   *offsetTimeSource
	buckets atomic.Int64
}

// NewS3Server starts a server on 127.0.0.1 for the duration of t and sets
// the fake AWS credentials the SDK needs (so that it never asks the EC2
// metadata address): AWS_ACCESS_KEY_ID=test, AWS_SECRET_ACCESS_KEY=test,
// AWS_EC2_METADATA_DISABLED=true, AWS_REGION=us-east-1. Because it sets
// environment variables, t must not be parallel.
func NewS3Server(t testing.TB) *S3Server {
	t.Helper()
	FakeAWS(t)
	clock := &offsetTimeSource{}
	backend := s3mem.New(s3mem.WithTimeSource(clock))
	faker := gofakes3.New(backend,
		gofakes3.WithTimeSource(clock),
		gofakes3.WithTimeSkewLimit(0), // the clock may be advanced
		gofakes3.WithLogger(gofakes3.DiscardLog()),
	)
	srv := httptest.NewServer(faker.Server())
	t.Cleanup(srv.Close)
	return &S3Server{backend: backend, srv: srv, clock: clock}
}

// Bucket creates a new, empty bucket and returns its URL, e.g.
// s3://b1?endpoint=http://127.0.0.1:PORT&use_path_style=true&region=us-east-1.
// Append "&prefix=..." to select a log within it.
func (s *S3Server) Bucket(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("jobevents-%d", s.buckets.Add(1))
	if err := s.backend.CreateBucket(name); err != nil {
		t.Fatalf("create bucket %s: %v", name, err)
	}
	return s.URL(name)
}

// URL returns the URL of bucket name on this server, whether or not the
// bucket exists.
func (s *S3Server) URL(name string) string {
	return fmt.Sprintf("s3://%s?endpoint=%s&use_path_style=true&region=us-east-1", name, s.srv.URL)
}

// Endpoint returns the server's base URL, http://127.0.0.1:PORT.
func (s *S3Server) Endpoint() string { return s.srv.URL }

// Advance moves the server's clock, which stamps object modification
// times, forward by d.
func (s *S3Server) Advance(d time.Duration) { s.clock.advance(d) }

// S3 starts a server for t (see NewS3Server) and returns the URL of a new
// bucket on it.
func S3(t testing.TB) string {
	t.Helper()
	return NewS3Server(t).Bucket(t)
}

// WithPrefix returns bucketURL with ?prefix= (or &prefix=) appended.
func WithPrefix(bucketURL, prefix string) string {
	if strings.Contains(bucketURL, "?") {
		return bucketURL + "&prefix=" + prefix
	}
	return bucketURL + "?prefix=" + prefix
}

// offsetTimeSource is the wall clock in GMT plus an offset that tests
// advance; safe for concurrent use.
type offsetTimeSource struct {
	mu     sync.Mutex
	offset time.Duration
}

var gmt = time.FixedZone("GMT", 0)

func (c *offsetTimeSource) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset).In(gmt)
}

func (c *offsetTimeSource) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

func (c *offsetTimeSource) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset += d
}

// FakeAWS sets the fake AWS credentials and settings the SDK needs to
// never reach for a real cloud (no EC2 metadata, no shared config):
// AWS_ACCESS_KEY_ID=test, AWS_SECRET_ACCESS_KEY=test,
// AWS_EC2_METADATA_DISABLED=true, AWS_REGION=us-east-1. Because it sets
// environment variables, t must not be parallel.
func FakeAWS(t testing.TB) {
	t.Helper()
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_CONFIG_FILE", "/dev/null")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
}

// BlackHole starts a listener on 127.0.0.1 that accepts connections and
// never answers, for the duration of t, and returns its address
// (127.0.0.1:PORT): the endpoint of a sick storage service.
func BlackHole(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}
