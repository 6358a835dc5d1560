package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jobevent/jobevent/internal/answer"
	"github.com/jobevent/jobevent/internal/progress"
	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/logsource"
	"github.com/jobevent/jobevent/pkg/replay"
	"github.com/jobevent/jobevent/pkg/runtime"
)

// paramError is a bad query parameter: 400.
type paramError struct{ msg string }

func (e *paramError) Error() string { return e.msg }

func badParam(format string, args ...any) error {
	return &paramError{msg: fmt.Sprintf(format, args...)}
}

// errorBody is the JSON of every error of the API.
type errorBody struct {
	Error string `json:"error"`
}

// writeError writes msg, the CLI's line, as the JSON error of status.
func writeError(w http.ResponseWriter, status int, msg string) {
	var buf bytes.Buffer
	_ = answer.WriteJSON(&buf, errorBody{Error: msg})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// fail writes err with its status: 404 for a log that is not there, 400
// for a bad parameter or Flink side information for a log of another kind, 502 for a bucket that could not be read.
func fail(w http.ResponseWriter, err error, command string) {
	status := http.StatusBadGateway
	var pe *paramError
	var fe *logsource.FlinkOptionsError
	switch {
	case errors.As(err, &pe):
		status = http.StatusBadRequest
	case errors.As(err, &fe): // the CLI's usage error, which names no command
		writeError(w, http.StatusBadRequest, answer.ErrorLine(err, command))
		return
	case logsource.IsNoLog(err) || errors.Is(err, blob.ErrNotFound):
		status = http.StatusNotFound
	}
	if status == http.StatusBadRequest {
		// A bad parameter is the CLI's usage error, which names the command.
		err = fmt.Errorf("%s: %w", command, err)
	}
	writeError(w, status, answer.ErrorLine(err, command))
}

// writeAnswer writes v as the CLI's JSON does, or err.
func writeAnswer(w http.ResponseWriter, v any, err error, command string) {
	if err != nil {
		fail(w, err, command)
		return
	}
	var buf bytes.Buffer
	if err := answer.WriteJSON(&buf, v); err != nil {
		fail(w, err, command)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(buf.Bytes())
}

// apiJob wraps a handler of one job: an id that names nothing is 404.
func (s *Server) apiJob(h func(http.ResponseWriter, *http.Request, *job)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		j, ok := s.resolve(r.PathValue("id"))
		if !ok {
			writeError(w, http.StatusNotFound, fmt.Sprintf("jobevent: no job %q", r.PathValue("id")))
			return
		}
		h(w, r, j)
	}
}

// jobEntry is an entry of /api/v1/jobs: ls's, with its id.
type jobEntry struct {
	ID string `json:"id"`
	*blob.Summary
}

// jobsAnswer is /api/v1/jobs: ls's answer, each entry with its id; with
// several ROOTs, "bucket" is the first's and "buckets" lists them all.
type jobsAnswer struct {
	Bucket  string     `json:"bucket"`
	Buckets []string   `json:"buckets,omitempty"`
	Logs    []jobEntry `json:"logs"`
}

// listJobs lists the jobs of every ROOT.
func (s *Server) listJobs(ctx context.Context) (*jobsAnswer, error) {
	out := &jobsAnswer{Logs: []jobEntry{}}
	for i, rt := range s.roots {
		jobs, err := answer.ListJobs(ctx, rt.arg)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			out.Bucket = jobs.Bucket
		}
		if len(s.roots) > 1 {
			out.Buckets = append(out.Buckets, jobs.Bucket)
		}
		for _, sum := range jobs.Logs {
			out.Logs = append(out.Logs, jobEntry{ID: s.jobID(i, sum), Summary: sum})
		}
	}
	return out, nil
}

func (s *Server) apiJobs(w http.ResponseWriter, r *http.Request) {
	jobs, err := s.listJobs(r.Context())
	writeAnswer(w, jobs, err, "ls")
}

// open opens the job's log with o.
func (s *Server) open(ctx context.Context, j *job, o logsource.Options) (logsource.Source, error) {
	s.opens.Add(1)
	return logsource.Open(ctx, j.arg, o)
}

func (s *Server) heartbeatTimeout(r *http.Request) (d timeout, err error) {
	return timeoutOf(r, s.opts.HeartbeatTimeout)
}

func (s *Server) status(ctx context.Context, j *job, d timeout) (*answer.Status, error) {
	st, _, err := answer.JobStatus(ctx, j.arg, answer.StatusOptions{HeartbeatTimeout: d.d,
		Open: func(arg string) (logsource.Source, error) { return s.open(ctx, j, logsource.Options{}) }})
	return st, err
}

func (s *Server) apiStatus(w http.ResponseWriter, r *http.Request, j *job) {
	d, err := s.heartbeatTimeout(r)
	if err != nil {
		fail(w, err, "status")
		return
	}
	st, err := s.status(r.Context(), j, d)
	writeAnswer(w, st, err, "status")
}

func (s *Server) apiEvents(w http.ResponseWriter, r *http.Request, j *job) {
	f, err := eventFilter(r)
	if err != nil {
		fail(w, err, "dump")
		return
	}
	src, err := s.open(r.Context(), j, logsource.Options{Since: f.Since, Until: f.Until})
	if err != nil {
		fail(w, err, "dump")
		return
	}
	defer src.Close()
	var buf bytes.Buffer
	p := answer.NewEventJSONWriter(&buf, logsource.EventTimes(src) == logsource.TimesNone)
	err = answer.Dump(src, p, &f, false, nil)
	if ferr := p.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		fail(w, err, "dump")
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Write(buf.Bytes())
}

func (s *Server) apiPlan(w http.ResponseWriter, r *http.Request, j *job) {
	q, err := planQuery(r)
	if err != nil {
		fail(w, err, "replay")
		return
	}
	fo, err := flinkQuery(r.URL.Query()["coordinator"])
	if err != nil {
		fail(w, err, "replay")
		return
	}
	a, err := s.plan(r.Context(), j, q, fo)
	if err != nil {
		fail(w, err, "replay")
		return
	}
	var buf bytes.Buffer
	if err := a.writeJSON(&buf); err != nil {
		fail(w, err, "replay")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(buf.Bytes())
}

// plan answers q on the job's log, read with the Flink side information
// fo (nil: none), from the cache when the log has not changed since.
func (s *Server) plan(ctx context.Context, j *job, q answer.PlanQuery, fo *logsource.FlinkOptions) (*planned, error) {
	src, err := s.open(ctx, j, logsource.Options{Until: q.At, Flink: fo})
	if err != nil {
		return nil, err
	}
	defer src.Close()
	key := planKey(ctx, j.arg, src, q, fo)
	if a, ok := s.plans.get(key); ok {
		return a, nil
	}
	a, err := answer.Plan(ctx, src, q)
	if err != nil {
		if a != nil {
			return nil, &paramError{msg: answer.AvailabilityError(a.State, q.Available, err).Error()}
		}
		return nil, err
	}
	p := &planned{plan: a.Plan(), names: a.State.Names()}
	s.plans.put(key, p)
	return p, nil
}

func (s *Server) apiSweep(w http.ResponseWriter, r *http.Request, j *job) {
	q, err := planQuery(r)
	if err != nil {
		fail(w, err, "replay")
		return
	}
	points := 50 // replay --sweep's default --points
	if v := r.URL.Query().Get("points"); v != "" {
		if points, err = strconv.Atoi(v); err != nil || points < 0 {
			fail(w, badParam("bad points %q: want 0 or more", v), "replay")
			return
		}
	}
	fo, err := flinkQuery(r.URL.Query()["coordinator"])
	if err != nil {
		fail(w, err, "replay")
		return
	}
	src, err := s.open(r.Context(), j, logsource.Options{Until: q.At, Flink: fo})
	if err != nil {
		fail(w, err, "replay")
		return
	}
	defer src.Close()
	sw, err := answer.Sweep(src, replay.SweepOptions{Until: q.At, Available: q.Available, Points: points})
	if errors.Is(err, replay.ErrUnknownVertex) {
		err = &paramError{msg: err.Error()}
	}
	writeAnswer(w, sw, err, "replay")
}

func (s *Server) apiStats(w http.ResponseWriter, r *http.Request, j *job) {
	src, err := s.open(r.Context(), j, logsource.Options{})
	if err != nil {
		fail(w, err, "stats")
		return
	}
	defer src.Close()
	st, err := replay.ComputeStats(src)
	writeAnswer(w, st, err, "stats")
}

func (s *Server) apiValidate(w http.ResponseWriter, r *http.Request, j *job) {
	fs, _, err := answer.Validate(r.Context(), j.arg, nil, progress.Disabled(), nil)
	writeAnswer(w, answer.LogFindings(j.arg, fs), err, "validate")
}

// timeout is a heartbeat timeout from a query parameter.
type timeout struct{ d time.Duration }

// eventFilter is dump's filter from the query parameters kind (repeatable,
// comma-separated), vertex, subtask, epoch, since and until.
func eventFilter(r *http.Request) (answer.EventFilter, error) {
	v := r.URL.Query()
	q := answer.EventQuery{Vertex: v.Get("vertex")}
	for _, k := range v["kind"] {
		q.Kinds = append(q.Kinds, strings.Split(k, ",")...)
	}
	var err error
	if q.Since, err = int64Param(v.Get("since"), "since"); err != nil {
		return answer.EventFilter{}, err
	}
	if q.Until, err = int64Param(v.Get("until"), "until"); err != nil {
		return answer.EventFilter{}, err
	}
	for name, dst := range map[string]**int{"subtask": &q.Subtask, "epoch": &q.Epoch} {
		if s := v.Get(name); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil {
				return answer.EventFilter{}, badParam("bad %s %q: want an integer", name, s)
			}
			*dst = &n
		}
	}
	f, err := answer.ParseEventFilter(q)
	if err != nil {
		return f, &paramError{msg: err.Error()}
	}
	return f, nil
}

// planQuery is replay --dry-run's question from the query parameters at,
// lost_worker and lost_partition (repeatable) and no_workers.
func planQuery(r *http.Request) (answer.PlanQuery, error) {
	v := r.URL.Query()
	var q answer.PlanQuery
	var err error
	if q.At, err = int64Param(v.Get("at"), "at"); err != nil {
		return q, err
	}
	if v.Has("at") && q.At < 1 {
		return q, badParam("bad --at %d: want the seq of an event (1 or more); leave --at out to plan after the last event", q.At)
	}
	for _, w := range v["lost_worker"] {
		if w != "" {
			q.Available.LostWorkers = append(q.Available.LostWorkers, w)
		}
	}
	for _, p := range v["lost_partition"] {
		if p == "" {
			continue
		}
		ref, err := answer.ParseSubtaskRef(p)
		if err != nil {
			return q, badParam("bad --lost-partition %q: %v", p, err)
		}
		q.Available.LostPartitions = append(q.Available.LostPartitions, ref)
	}
	switch nw := v.Get("no_workers"); nw {
	case "", "false", "0", "off":
	case "true", "1", "on":
		q.Available.NoWorkers = true
	default:
		return q, badParam("bad no_workers %q: want true or false", nw)
	}
	return q, nil
}

// flinkQuery is the Flink side information of the coordinator
// parameters (repeatable, VERTEX=KIND: replay's --coordinator); nil for
// none. replay's --flink-plan, --flink-ha and --flink-rest have no
// parameter: each names a file or a URL the server would read for the
// request, outside its ROOTs.
func flinkQuery(coords []string) (*logsource.FlinkOptions, error) {
	var fo *logsource.FlinkOptions
	for _, c := range coords {
		if c == "" {
			continue
		}
		v, kind, ok := answer.ParseCoordinator(c)
		if !ok {
			return nil, badParam("bad --coordinator %q: want VERTEX=batch_snapshot|no_batch_snapshot|none", c)
		}
		if fo == nil {
			fo = &logsource.FlinkOptions{Coordinators: map[string]string{}, Given: []string{"--coordinator"}}
		}
		fo.Coordinators[v] = kind
	}
	return fo, nil
}

func int64Param(s, name string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, badParam("bad %s %q: want an integer", name, s)
	}
	return n, nil
}

// timeoutOf is the heartbeat_timeout parameter (a Go duration), or def,
// or the runtime's default.
func timeoutOf(r *http.Request, def time.Duration) (timeout, error) {
	if def <= 0 {
		def = runtime.DefaultSettings().HeartbeatTimeout
	}
	s := r.URL.Query().Get("heartbeat_timeout")
	if s == "" {
		return timeout{def}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return timeout{}, badParam("bad heartbeat_timeout %q: want a positive duration", s)
	}
	return timeout{d}, nil
}
