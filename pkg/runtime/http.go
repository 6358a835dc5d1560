package runtime

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"
)

// The HTTP protocol between masters and workers (part of the wire format:
// a master and its workers must speak the same version). Every request
// but /v1/hello carries "Authorization: Bearer <token>"; bodies are JSON.
// Every name in a request is checked by the wire rules of wire.go before
// anything acts on it.
//
//	master  POST /v1/register   registration        → registrationReply
//	master  POST /v1/heartbeat  heartbeatRequest    → heartbeatReply
//	master  POST /v1/split      splitRequest        → splitReply
//	master  POST /v1/report     taskReport          → {}
//	worker  POST /v1/hello      helloRequest        → helloReply (no token)
//	worker  POST /v1/deploy     deployment          → {}
//	worker  POST /v1/cancel     cancelRequest       → {}
//	worker  POST /v1/cleanup    cleanupRequest      → {}
//	worker  GET  /v1/partition?job=&vertex=&subtask=&attempt=&consumer=&from=&to=
//	                                                → the encoded records,
//	                                                  X-Records: their count
//
// Identity (trust.go): a worker registers with a session key of its own;
// before the master accepts it, and before it sends the worker anything
// that carries the token, it asks the worker's address to prove that it
// holds the token (/v1/hello: an HMAC of a fresh nonce). Heartbeats,
// splits and reports carry the key in X-Jobevent-Session, and the master
// takes them only for attempts it deployed to that worker. With TLS, both
// sides check the other's certificate against the CA.
//
// Errors come back as a non-2xx status with a one-line message as the
// body: 400 for a request that breaks a wire rule, 401 for a bad token,
// 403 for a worker the master did not verify or an attempt it never gave
// it, 404 for a partition the worker does not hold, 409 for a stale epoch.

// requestTimeout bounds every request between master and workers.
const requestTimeout = 30 * time.Second

type heartbeatRequest struct {
	Worker string `json:"worker"`
	Epoch  int32  `json:"epoch"`
}

type heartbeatReply struct {
	Known bool  `json:"known"`
	Epoch int32 `json:"epoch"`
}

type cancelRequest struct {
	Job   string     `json:"job"`
	Epoch int32      `json:"epoch"`
	Ref   attemptRef `json:"attempt"`
}

type cleanupRequest struct {
	Job   string `json:"job"`
	Epoch int32  `json:"epoch"`
}

// httpError is a non-2xx answer.
type httpError struct {
	Status int
	Msg    string
}

func (e *httpError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.Status, e.Msg) }

// authorized reports whether r carries the token.
func authorized(r *http.Request, token string) bool {
	got := r.Header.Get("Authorization")
	want := "Bearer " + token
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// withAuth wraps h so that requests without the token get 401.
func withAuth(token string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !authorized(r, token) {
			writeError(w, http.StatusUnauthorized, "missing or wrong token")
			return
		}
		h.ServeHTTP(w, r)
	})
}

// cleanPath answers 400 to a request whose path is not clean ("//",
// "..", "."), which the mux would redirect: the wire names every
// endpoint by its one path.
func cleanPath(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; p == "" || p[0] != '/' || path.Clean(p) != p {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("path %q: want one of the protocol's paths", p))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// checker is a request that checks itself against the wire rules.
type checker interface{ check() error }

// jsonHandler decodes the request body into In, checks it (wire.go),
// calls fn and encodes its result.
func jsonHandler[In any, PIn interface {
	*In
	checker
}, Out any](fn func(ctx context.Context, in *In) (Out, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			writeError(w, http.StatusMethodNotAllowed, "want POST")
			return
		}
		var in In
		if err := json.NewDecoder(io.LimitReader(r.Body, 64<<20)).Decode(&in); err != nil {
			writeError(w, http.StatusBadRequest, "bad request body: "+err.Error())
			return
		}
		if err := PIn(&in).check(); err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		out, err := fn(r.Context(), &in)
		if err != nil {
			writeError(w, httpStatus(err), err.Error())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	}
}

// httpStatus is the HTTP status of an error a handler returns.
func httpStatus(err error) int {
	switch {
	case errors.Is(err, errBadRequest):
		return http.StatusBadRequest
	case errors.Is(err, errForbidden):
		return http.StatusForbidden
	case errors.Is(err, ErrStaleEpoch):
		return http.StatusConflict
	case errors.Is(err, ErrPartitionNotFound), errors.Is(err, errPartitionCorrupt):
		return http.StatusNotFound
	}
	return http.StatusInternalServerError
}

// writeError answers status with msg on one line.
func writeError(w http.ResponseWriter, status int, msg string) {
	http.Error(w, strings.Join(strings.Fields(msg), " "), status)
}

// httpClient calls one peer.
type httpClient struct {
	base    string // http://host:port
	token   string // "" for /v1/hello, which carries none
	session string // the worker's session key, sent to its master
	client  *http.Client
}

func (c *httpClient) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.session != "" {
		req.Header.Set(sessionHeader, c.session)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		herr := &httpError{Status: resp.StatusCode, Msg: string(bytes.TrimSpace(msg))}
		if resp.StatusCode == http.StatusConflict {
			return fmt.Errorf("%s %s: %w: %v", method, path, ErrStaleEpoch, herr)
		}
		return fmt.Errorf("%s %s: %w", method, path, herr)
	}
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("%s %s: decode reply: %w", method, path, err)
	}
	return nil
}

// httpMasterLink is a worker's link to a master over HTTP.
type httpMasterLink struct{ c *httpClient }

func (l *httpMasterLink) nextSplit(ctx context.Context, req splitRequest) (splitReply, error) {
	var out splitReply
	err := l.c.do(ctx, http.MethodPost, "/v1/split", req, &out)
	return out, err
}

func (l *httpMasterLink) report(ctx context.Context, rep *taskReport) error {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	return l.c.do(ctx, http.MethodPost, "/v1/report", rep, nil)
}

func (l *httpMasterLink) register(ctx context.Context, reg registration) (registrationReply, error) {
	var out registrationReply
	err := l.c.do(ctx, http.MethodPost, "/v1/register", reg, &out)
	return out, err
}

func (l *httpMasterLink) heartbeat(ctx context.Context, hb heartbeatRequest) (heartbeatReply, error) {
	var out heartbeatReply
	err := l.c.do(ctx, http.MethodPost, "/v1/heartbeat", hb, &out)
	return out, err
}

// httpWorkerLink is a master's link to a worker over HTTP; given, when
// set, records what it deploys, so that the master takes reports only of
// attempts it gave the worker.
type httpWorkerLink struct {
	c      *httpClient
	worker string
	given  *givenSet
}

func (l *httpWorkerLink) deploy(ctx context.Context, d *deployment) error {
	if l.given != nil {
		l.given.add(l.worker, d.Epoch, d.ref())
	}
	return l.c.do(ctx, http.MethodPost, "/v1/deploy", d, nil)
}

func (l *httpWorkerLink) cancel(ctx context.Context, job string, epoch int32, a attemptRef) error {
	return l.c.do(ctx, http.MethodPost, "/v1/cancel", cancelRequest{Job: job, Epoch: epoch, Ref: a}, nil)
}

func (l *httpWorkerLink) cleanup(ctx context.Context, job string, epoch int32) error {
	return l.c.do(ctx, http.MethodPost, "/v1/cleanup", cleanupRequest{Job: job, Epoch: epoch}, nil)
}

// httpFetcher reads partition slices from the workers holding them.
type httpFetcher struct {
	token string
	peers *peers
}

func (f *httpFetcher) fetch(ctx context.Context, job string, in inputFetch) ([]byte, int64, error) {
	if in.Addr == "" {
		return nil, 0, fmt.Errorf("worker %s has no known address: %w", in.Worker, ErrPartitionNotFound)
	}
	q := url.Values{}
	q.Set("job", job)
	q.Set("vertex", in.Partition.Vertex)
	q.Set("subtask", strconv.Itoa(int(in.Partition.Subtask)))
	q.Set("attempt", strconv.Itoa(int(in.Partition.Attempt)))
	q.Set("consumer", in.Partition.Consumer)
	q.Set("from", strconv.Itoa(in.From))
	q.Set("to", strconv.Itoa(in.To))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.peers.url(in.Addr)+"/v1/partition?"+q.Encode(), nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Authorization", "Bearer "+f.token)
	resp, err := f.peers.http.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("fetch from worker %s: %w: %v: %w", in.Worker, errWorkerUnreachable, err, ErrPartitionNotFound)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return nil, 0, fmt.Errorf("fetch from worker %s: HTTP %d: %s: %w", in.Worker, resp.StatusCode, bytes.TrimSpace(msg), ErrPartitionNotFound)
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, 0, fmt.Errorf("fetch from worker %s: %v: %w", in.Worker, err, ErrPartitionNotFound)
	}
	n, _ := strconv.ParseInt(resp.Header.Get("X-Records"), 10, 64)
	return data, n, nil
}

// workerHandler serves a worker's side of the protocol; self is the
// address the worker registers, which /v1/hello proves it holds.
func workerHandler(w *workerCore, token, self string, done func(job string)) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/v1/deploy", jsonHandler(func(ctx context.Context, d *deployment) (struct{}, error) {
		return struct{}{}, w.deploy(ctx, d)
	}))
	mux.Handle("/v1/cancel", jsonHandler(func(ctx context.Context, c *cancelRequest) (struct{}, error) {
		return struct{}{}, w.cancel(ctx, c.Job, c.Epoch, c.Ref)
	}))
	mux.Handle("/v1/cleanup", jsonHandler(func(ctx context.Context, c *cleanupRequest) (struct{}, error) {
		err := w.cleanup(ctx, c.Job, c.Epoch)
		if err == nil && done != nil {
			done(c.Job)
		}
		return struct{}{}, err
	}))
	mux.HandleFunc("/v1/partition", func(rw http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			writeError(rw, http.StatusMethodNotAllowed, "want GET")
			return
		}
		job, id, from, to, err := parsePartitionQuery(r.URL.Query())
		if err != nil {
			writeError(rw, http.StatusBadRequest, err.Error())
			return
		}
		data, records, err := w.serve(job, id, from, to)
		if err != nil {
			writeError(rw, httpStatus(err), err.Error())
			return
		}
		rw.Header().Set("Content-Type", "application/octet-stream")
		rw.Header().Set("X-Records", strconv.FormatInt(records, 10))
		_, _ = rw.Write(data)
	})
	authed := withAuth(token, mux)
	hello := helloHandler(token, w.id, self)
	return cleanPath(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/hello" {
			hello.ServeHTTP(rw, r)
			return
		}
		authed.ServeHTTP(rw, r)
	}))
}

// parsePartitionQuery reads the query of /v1/partition by the wire rules:
// every parameter is required, numbers are decimal.
func parsePartitionQuery(q url.Values) (job string, id partID, from, to int, err error) {
	num := func(k string, bits int) int64 {
		if err != nil {
			return 0
		}
		n, perr := strconv.ParseInt(q.Get(k), 10, bits)
		if perr != nil {
			err = badRequestf("%s %q: want a decimal number", k, q.Get(k))
		}
		return n
	}
	id = partID{Vertex: q.Get("vertex"), Consumer: q.Get("consumer")}
	id.Subtask, id.Attempt = int32(num("subtask", 32)), int32(num("attempt", 32))
	from, to = int(num("from", 32)), int(num("to", 32))
	if err != nil {
		return "", id, 0, 0, err
	}
	job = q.Get("job")
	return job, id, from, to, firstErr(checkName("job", job), checkPart(id), checkRange(from, to))
}

// listen opens a TCP listener on addr (default 127.0.0.1:0).
func listen(addr string) (net.Listener, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	return ln, nil
}
