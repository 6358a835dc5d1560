// Package serve is jobevent serve: a read-only console and REST API over
// buckets of logs (the README's "jobevent serve" section). Every answer of /api/v1 is written by
// package answer, the writer of the CLI's --format json, so the two are
// byte for byte the same; pages render the same answers as HTML with the
// SVG renderers of package report. The server keeps no state of its own
// but a cache of plans: the buckets are the store.
package serve

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jobevent/jobevent/pkg/blob"
)

// Options configures a Server.
type Options struct {
	// Token, when set, is required of every request: an API request
	// carries "Authorization: Bearer Token", a browser the cookie that
	// "/?token=Token" sets.
	Token string
	// Poll is how often the stream of a growing log looks for new
	// events; 0 is 250ms.
	Poll time.Duration
	// HeartbeatTimeout is status's --heartbeat-timeout; 0 is the
	// runtime's default.
	HeartbeatTimeout time.Duration
}

// Server serves the logs under its roots. Safe for concurrent use.
type Server struct {
	roots []root
	opts  Options
	plans *lru[*planned]
	// timelines are the timelines of the job pages shown last: a page
	// of a log that has not grown since folds it for its status only.
	timelines *lru[*drawing]
	// exposed are the exposures now of the list, per log listing.
	exposed *lru[string]
	opens   atomic.Int64 // reads of logs begun: the tests count them
	mux     *http.ServeMux
}

// root is one ROOT argument: a bucket or directory.
type root struct {
	arg    string
	bucket *blob.Bucket
}

// cookieName is the cookie that carries the token of a browser.
const cookieName = "jobevent_token"

// New returns the server of the roots, each a bucket URL or directory. A
// root that cannot be opened is an error.
func New(ctx context.Context, roots []string, o Options) (*Server, error) {
	if len(roots) == 0 {
		return nil, errors.New("serve: no ROOT")
	}
	if o.Poll <= 0 {
		o.Poll = 250 * time.Millisecond
	}
	s := &Server{opts: o, plans: newLRU[*planned](256), timelines: newLRU[*drawing](4), exposed: newLRU[string](10_000)}
	for _, r := range roots {
		b, err := blob.OpenBucket(ctx, r)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.roots = append(s.roots, root{arg: r, bucket: b})
	}
	s.routes()
	return s, nil
}

// Close closes the roots' buckets.
func (s *Server) Close() error {
	var errs []error
	for _, r := range s.roots {
		errs = append(errs, r.bucket.Close())
	}
	return errors.Join(errs...)
}

func (s *Server) routes() {
	m := http.NewServeMux()
	m.HandleFunc("GET /api/v1/jobs", s.apiJobs)
	m.HandleFunc("GET /api/v1/jobs/{id}", s.apiJob(s.apiStatus))
	m.HandleFunc("GET /api/v1/jobs/{id}/events", s.apiJob(s.apiEvents))
	m.HandleFunc("GET /api/v1/jobs/{id}/plan", s.apiJob(s.apiPlan))
	m.HandleFunc("GET /api/v1/jobs/{id}/sweep", s.apiJob(s.apiSweep))
	m.HandleFunc("GET /api/v1/jobs/{id}/stats", s.apiJob(s.apiStats))
	m.HandleFunc("GET /api/v1/jobs/{id}/validate", s.apiJob(s.apiValidate))
	m.HandleFunc("GET /api/v1/jobs/{id}/stream", s.apiJob(s.apiStream))
	m.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("jobevent: no such API: %s %s", r.Method, r.URL.Path))
	})
	m.HandleFunc("GET /{$}", s.pageList)
	m.HandleFunc("GET /jobs/{id}", s.pageJob)
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "404 page not found: "+r.URL.Path, http.StatusNotFound)
	})
	s.mux = m
}

// ServeHTTP checks the token, then serves r.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if s.opts.Token == "" {
		s.mux.ServeHTTP(w, r)
		return
	}
	if t := r.URL.Query().Get("token"); t != "" && !strings.HasPrefix(r.URL.Path, "/api/") {
		if !s.tokenOK(t) {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: cookieName, Value: t, Path: "/", HttpOnly: true,
			SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
		q := r.URL.Query()
		q.Del("token")
		u := url.URL{Path: r.URL.Path, RawPath: r.URL.RawPath, RawQuery: q.Encode()}
		http.Redirect(w, r, u.String(), http.StatusSeeOther)
		return
	}
	if !s.authorized(r) {
		w.WriteHeader(http.StatusUnauthorized) // and nothing else
		return
	}
	s.mux.ServeHTTP(w, r)
}

// authorized reports whether r carries the token, as a bearer token or
// the cookie.
func (s *Server) authorized(r *http.Request) bool {
	if h, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && s.tokenOK(h) {
		return true
	}
	c, err := r.Cookie(cookieName)
	return err == nil && s.tokenOK(c.Value)
}

func (s *Server) tokenOK(t string) bool {
	return subtle.ConstantTimeCompare([]byte(t), []byte(s.opts.Token)) == 1
}
