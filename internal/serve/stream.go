package serve

import (
	"bytes"
	"context"
	"errors"
	"net/http"

	"github.com/jobevent/jobevent/internal/answer"
	"github.com/jobevent/jobevent/pkg/logsource"
)

// apiStream is /api/v1/jobs/{id}/stream: server-sent events, each event
// of the log (from since, with dump's filters) as one "data:" line, the
// line dump --follow --format json prints, until the client goes away.
func (s *Server) apiStream(w http.ResponseWriter, r *http.Request, j *job) {
	f, err := eventFilter(r)
	if err != nil {
		fail(w, err, "dump")
		return
	}
	src, err := s.open(r.Context(), j, logsource.Options{Since: f.Since, Until: f.Until, Follow: true, Poll: s.opts.Poll})
	if err != nil {
		fail(w, err, "dump")
		return
	}
	defer src.Close()
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	if err := rc.Flush(); err != nil {
		return
	}
	sse := &sseWriter{w: w, rc: rc}
	p := answer.NewEventJSONWriter(sse, logsource.EventTimes(src) == logsource.TimesNone)
	err = answer.Dump(src, p, &f, true, nil)
	if err != nil && !errors.Is(err, context.Canceled) && r.Context().Err() == nil {
		sse.event("error", []byte(answer.ErrorLine(err, "dump")))
	}
}

// sseWriter turns the JSON lines written to it into server-sent events,
// one "data:" line each, flushed as they come (dump --follow flushes
// after every event).
type sseWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func (s *sseWriter) Write(p []byte) (int, error) {
	for _, line := range bytes.Split(bytes.TrimRight(p, "\n"), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if err := s.event("", line); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// event writes one event of the stream, of the named type ("" for the
// default message).
func (s *sseWriter) event(name string, data []byte) error {
	var buf bytes.Buffer
	if name != "" {
		buf.WriteString("event: " + name + "\n")
	}
	buf.WriteString("data: ")
	buf.Write(data)
	buf.WriteString("\n\n")
	if _, err := s.w.Write(buf.Bytes()); err != nil {
		return err
	}
	return s.rc.Flush()
}
