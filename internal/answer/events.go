package answer

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/logsource"
)

// EventFilter is the selection of dump's filters: the CLI's flags, the
// server's query parameters.
type EventFilter struct {
	Kinds        map[format.Kind]bool // nil: every kind
	Vertex       string
	Subtask      int32
	HasSubtask   bool
	Epoch        int32 // 0: any
	Since, Until int64 // inclusive; 0: unbounded
}

// EventQuery is dump's filters as given, before ParseEventFilter checks
// them: nil Subtask and Epoch are not given.
type EventQuery struct {
	Kinds        []string // each may be comma-separated
	Vertex       string
	Subtask      *int
	Epoch        *int
	Since, Until int64
}

// ParseEventFilter checks q and returns its filter; a bad value is an
// error naming the flag (--kind, --subtask, --epoch, --since / --until)
// as the CLI and the server both report it.
func ParseEventFilter(q EventQuery) (EventFilter, error) {
	f := EventFilter{Vertex: q.Vertex, Since: q.Since, Until: q.Until}
	for _, k := range q.Kinds {
		if !format.Kind(k).Valid() {
			return f, fmt.Errorf("unknown --kind %q: want one of %s", k, kindList())
		}
		if f.Kinds == nil {
			f.Kinds = make(map[format.Kind]bool)
		}
		f.Kinds[format.Kind(k)] = true
	}
	if q.Subtask != nil {
		n := *q.Subtask
		if n < 0 || n > 1<<31-1 {
			return f, fmt.Errorf("bad --subtask %d: want a subtask number >= 0", n)
		}
		f.Subtask, f.HasSubtask = int32(n), true
	}
	if q.Epoch != nil {
		n := *q.Epoch
		if n < 1 || n > 1<<31-1 {
			return f, fmt.Errorf("bad --epoch %d: want an epoch >= 1", n)
		}
		f.Epoch = int32(n)
	}
	if f.Since < 0 || f.Until < 0 || (f.Until > 0 && f.Since > f.Until) {
		return f, fmt.Errorf("bad --since %d / --until %d: want 0 <= since <= until", f.Since, f.Until)
	}
	return f, nil
}

func kindList() string {
	s := make([]string, len(format.Kinds))
	for i, k := range format.Kinds {
		s[i] = string(k)
	}
	return OrList(s)
}

// Match reports whether e passes the filter.
func (f *EventFilter) Match(e *format.Event) bool {
	if f.Kinds != nil && !f.Kinds[e.Kind] {
		return false
	}
	if f.Epoch != 0 && e.Epoch != f.Epoch {
		return false
	}
	if e.Seq < f.Since || (f.Until > 0 && e.Seq > f.Until) {
		return false
	}
	if f.Vertex == "" && !f.HasSubtask {
		return true
	}
	switch e.Kind {
	case format.KindVertexInitialized:
		return !f.HasSubtask && e.Vertex == f.Vertex
	case format.KindSubtaskStarted, format.KindSubtaskFinished, format.KindSubtaskFailed:
		return (f.Vertex == "" || e.Vertex == f.Vertex) && (!f.HasSubtask || e.Subtask == f.Subtask)
	case format.KindSubtasksReset:
		for _, r := range e.Subtasks {
			if (f.Vertex == "" || r.Vertex == f.Vertex) && (!f.HasSubtask || r.Subtask == f.Subtask) {
				return true
			}
		}
	case format.KindSnapshot:
		_, ok := e.Coordinators[f.Vertex]
		return ok && !f.HasSubtask
	}
	return false
}

// EventWriter writes events in one output format.
type EventWriter interface {
	Write(e *format.Event) error
	Flush() error
}

// NewEventJSONWriter returns the writer of dump's JSON: canonical JSONL,
// with "time": null for a log without times (timeless: a Flink log).
func NewEventJSONWriter(w io.Writer, timeless bool) EventWriter {
	if timeless {
		return &timelessJSONPrinter{w: w}
	}
	return format.NewJSONWriter(w)
}

// Dump copies the events of src that pass f to p, the answer of dump.
// When following, the output is flushed after every event, notices (when
// not nil) is called after each, and the dump ends after f.Until.
func Dump(src logsource.Source, p EventWriter, f *EventFilter, follow bool, notices func()) error {
	// One event, reused: p.Write takes its address through an interface,
	// so an event declared inside the loop would move to the heap on
	// every iteration.
	var e format.Event
	for {
		var err error
		e, err = src.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if follow && f.Until > 0 && e.Seq > f.Until {
			return nil
		}
		if f.Match(&e) {
			if err := p.Write(&e); err != nil {
				return err
			}
		}
		if follow {
			if err := p.Flush(); err != nil {
				return err
			}
			if notices != nil {
				notices()
			}
		}
	}
}

// timelessJSONPrinter writes canonical JSONL lines with "time": null.
type timelessJSONPrinter struct {
	w   io.Writer
	buf []byte
}

// zeroTime is how canonical JSON writes the zero time of an event.
var zeroTime = []byte(`,"time":"0001-01-01T00:00:00.000000000Z",`)

func (p *timelessJSONPrinter) Write(e *format.Event) error {
	line := format.AppendJSON(nil, e)
	if i := bytes.Index(line, zeroTime); i >= 0 {
		line = append(append(line[:i:i], `,"time":null,`...), line[i+len(zeroTime):]...)
	}
	p.buf = append(p.buf, line...)
	if len(p.buf) < 64<<10 {
		return nil
	}
	return p.Flush()
}

func (p *timelessJSONPrinter) Flush() error {
	_, err := p.w.Write(p.buf)
	p.buf = p.buf[:0]
	return err
}

// OrList renders ["a","b","c"] as "a, b or c".
func OrList(values []string) string {
	if len(values) == 1 {
		return values[0]
	}
	return strings.Join(values[:len(values)-1], ", ") + " or " + values[len(values)-1]
}
