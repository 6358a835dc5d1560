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
	"strconv"
	"time"
)

// The HTTP protocol between masters and workers (part of the wire format:
// a master and its workers must speak the same version). Every request
// carries "Authorization: Bearer <token>"; bodies are JSON.
//
//	master  POST /v1/register   registration        → registrationReply
//	master  POST /v1/heartbeat  heartbeatRequest    → heartbeatReply
//	master  POST /v1/split      splitRequest        → splitReply
//	master  POST /v1/report     taskReport          → {}
//	worker  POST /v1/deploy     deployment          → {}
//	worker  POST /v1/cancel     cancelRequest       → {}
//	worker  POST /v1/cleanup    cleanupRequest      → {}
//	worker  GET  /v1/partition?job=&vertex=&subtask=&attempt=&consumer=&from=&to=
//	                                                → the encoded records,
//	                                                  X-Records: their count
//
// Errors come back as a non-2xx status with the message as the body: 401
// for a bad token, 404 for a partition the worker does not hold, 409 for
// a stale epoch.

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
			http.Error(w, "missing or wrong token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// jsonHandler decodes the request body into In, calls fn and encodes its
// result.
func jsonHandler[In, Out any](fn func(ctx context.Context, in *In) (Out, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "want POST", http.StatusMethodNotAllowed)
			return
		}
		var in In
		if err := json.NewDecoder(io.LimitReader(r.Body, 64<<20)).Decode(&in); err != nil {
			http.Error(w, "bad request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		out, err := fn(r.Context(), &in)
		if err != nil {
			status := http.StatusInternalServerError
			if errors.Is(err, ErrStaleEpoch) {
				status = http.StatusConflict
			}
			http.Error(w, err.Error(), status)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	}
}

// httpClient calls one peer.
type httpClient struct {
	base   string // http://host:port
	token  string
	client *http.Client
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
	req.Header.Set("Authorization", "Bearer "+c.token)
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

// httpWorkerLink is a master's link to a worker over HTTP.
type httpWorkerLink struct{ c *httpClient }

func (l *httpWorkerLink) deploy(ctx context.Context, d *deployment) error {
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

// workerHandler serves a worker's side of the protocol.
func workerHandler(w *workerCore, token string, done func(job string)) http.Handler {
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
		q := r.URL.Query()
		num := func(k string) int {
			n, err := strconv.Atoi(q.Get(k))
			if err != nil {
				return -1
			}
			return n
		}
		id := partID{Vertex: q.Get("vertex"), Subtask: int32(num("subtask")), Attempt: int32(num("attempt")), Consumer: q.Get("consumer")}
		data, records, err := w.serve(q.Get("job"), id, num("from"), num("to"))
		if err != nil {
			status := http.StatusInternalServerError
			if errors.Is(err, ErrPartitionNotFound) || errors.Is(err, errPartitionCorrupt) {
				status = http.StatusNotFound
			}
			http.Error(rw, err.Error(), status)
			return
		}
		rw.Header().Set("Content-Type", "application/octet-stream")
		rw.Header().Set("X-Records", strconv.FormatInt(records, 10))
		_, _ = rw.Write(data)
	})
	return withAuth(token, mux)
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
