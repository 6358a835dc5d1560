package format

import (
	"bufio"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// ErrTimeRange is returned when an event's time cannot be written: canonical
// JSONL holds years 0000 to 9999, a Parquet segment the nanoseconds of an
// int64 (years 1678 to 2261).
var ErrTimeRange = errors.New("jobevent/format: time out of range")

// AppendJSON appends e as one line of canonical JSONL, trailing '\n'
// included, and returns the extended buffer (docs/format.md). Keys come in
// the order seq, time, epoch, kind, job, then the kind's fields; the kind's
// fields are written even when zero, other fields never. An empty
// coordinator is written as "none", an empty edge pattern as "all_to_all";
// strings that are not valid UTF-8 have their bad bytes replaced by U+FFFD.
// A time outside years 0000-9999 is written with its year clamped: callers
// that need an error use JSONWriter, which checks it.
//
// AppendJSON is safe for concurrent use on distinct buffers.
func AppendJSON(dst []byte, e *Event) []byte { return appendEvent(dst, e, nil) }

// spillSize is the length past which a JSONWriter writes out a line being
// built, inside a long list, so that one huge event (a reset of every
// subtask of a large job) does not need a buffer of its size.
const spillSize = 64 << 10

// appendEvent is AppendJSON. spill, when not nil, is called inside long
// lists and may write dst out and return it emptied.
func appendEvent(dst []byte, e *Event, spill func([]byte) []byte) []byte {
	dst = append(dst, `{"seq":`...)
	dst = strconv.AppendInt(dst, e.Seq, 10)
	dst = append(dst, `,"time":"`...)
	dst = appendTime(dst, e.Time)
	dst = append(dst, `","epoch":`...)
	dst = strconv.AppendInt(dst, int64(e.Epoch), 10)
	dst = append(dst, `,"kind":`...)
	dst = appendString(dst, string(e.Kind))
	dst = append(dst, `,"job":`...)
	dst = appendString(dst, e.Job)
	for _, f := range kindFields[e.Kind] {
		dst = appendField(dst, e, f, spill)
	}
	return append(dst, "}\n"...)
}

func appendField(dst []byte, e *Event, f field, spill func([]byte) []byte) []byte {
	switch f {
	case fieldGraph:
		return appendGraph(append(dst, `,"graph":`...), e.Graph)
	case fieldMaster:
		return appendString(append(dst, `,"master":`...), e.Master)
	case fieldRecovering:
		return strconv.AppendBool(append(dst, `,"recovering":`...), e.Recovering)
	case fieldVertex:
		return appendString(append(dst, `,"vertex":`...), e.Vertex)
	case fieldSubtask:
		return strconv.AppendInt(append(dst, `,"subtask":`...), int64(e.Subtask), 10)
	case fieldParallelism:
		return strconv.AppendInt(append(dst, `,"parallelism":`...), int64(e.Parallelism), 10)
	case fieldAttempt:
		return strconv.AppendInt(append(dst, `,"attempt":`...), int64(e.Attempt), 10)
	case fieldWorker:
		return appendString(append(dst, `,"worker":`...), e.Worker)
	case fieldRecordsIn:
		return strconv.AppendInt(append(dst, `,"records_in":`...), e.RecordsIn, 10)
	case fieldRecordsOut:
		return strconv.AppendInt(append(dst, `,"records_out":`...), e.RecordsOut, 10)
	case fieldBytesIn:
		return strconv.AppendInt(append(dst, `,"bytes_in":`...), e.BytesIn, 10)
	case fieldBytesOut:
		return strconv.AppendInt(append(dst, `,"bytes_out":`...), e.BytesOut, 10)
	case fieldPartitions:
		if e.Partitions == nil {
			return dst
		}
		return appendPartitions(append(dst, `,"partitions":`...), e.Partitions, spill)
	case fieldError:
		if e.Error == "" {
			return dst
		}
		return appendString(append(dst, `,"error":`...), e.Error)
	case fieldSubtasks:
		return appendSubtasks(append(dst, `,"subtasks":`...), e.Subtasks, spill)
	case fieldReason:
		return appendString(append(dst, `,"reason":`...), e.Reason)
	case fieldCoordinators:
		return appendCoordinators(append(dst, `,"coordinators":`...), e.Coordinators)
	case fieldStatus:
		return appendString(append(dst, `,"status":`...), e.Status)
	}
	return dst
}

func appendGraph(dst []byte, g *Graph) []byte {
	var vs []Vertex
	var es []Edge
	if g != nil {
		vs, es = g.Vertices, g.Edges
	}
	dst = append(dst, `{"vertices":[`...)
	for i := range vs {
		v := &vs[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(append(dst, `{"id":`...), v.ID)
		dst = appendString(append(dst, `,"operator":`...), v.Operator)
		dst = strconv.AppendInt(append(dst, `,"parallelism":`...), int64(v.Parallelism), 10)
		dst = strconv.AppendInt(append(dst, `,"max_parallelism":`...), int64(v.MaxParallelism), 10)
		dst = appendString(append(dst, `,"coordinator":`...), coordinatorOrDefault(v.Coordinator))
		dst = append(dst, '}')
	}
	dst = append(dst, `],"edges":[`...)
	for i := range es {
		ed := &es[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(append(dst, `{"from":`...), ed.From)
		dst = appendString(append(dst, `,"to":`...), ed.To)
		dst = appendString(append(dst, `,"pattern":`...), patternOrDefault(ed.Pattern))
		if ed.Dataset != "" {
			dst = appendString(append(dst, `,"dataset":`...), ed.Dataset)
		}
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	if g != nil && len(g.Ranges) > 0 {
		dst = appendRanges(append(dst, `,"ranges":`...), g.Ranges)
	}
	if g != nil && len(g.Datasets) > 0 {
		dst = append(dst, `,"datasets":[`...)
		for i, d := range g.Datasets {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(append(dst, `{"id":`...), d.ID)
			dst = appendString(append(dst, `,"producer":`...), d.Producer)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// appendRanges writes a graph's ranges: [{"edge","subtask","first","last"}...].
func appendRanges(dst []byte, rs []Range) []byte {
	dst = append(dst, '[')
	for i, r := range rs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendInt(append(dst, `{"edge":`...), int64(r.Edge), 10)
		dst = strconv.AppendInt(append(dst, `,"subtask":`...), int64(r.Subtask), 10)
		dst = strconv.AppendInt(append(dst, `,"first":`...), int64(r.First), 10)
		dst = strconv.AppendInt(append(dst, `,"last":`...), int64(r.Last), 10)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

func coordinatorOrDefault(c string) string {
	if c == "" {
		return CoordinatorNone
	}
	return c
}

func patternOrDefault(p string) string {
	if p == "" {
		return PatternAllToAll
	}
	return p
}

func appendPartitions(dst []byte, ps []Partition, spill func([]byte) []byte) []byte {
	dst = append(dst, '[')
	for i := range ps {
		p := &ps[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		if spill != nil && len(dst) >= spillSize {
			dst = spill(dst)
		}
		dst = appendString(append(dst, `{"consumer":`...), p.Consumer)
		dst = strconv.AppendInt(append(dst, `,"bytes":`...), p.Bytes, 10)
		dst = strconv.AppendInt(append(dst, `,"records":`...), p.Records, 10)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

func appendSubtasks(dst []byte, rs []SubtaskRef, spill func([]byte) []byte) []byte {
	dst = append(dst, '[')
	for i := range rs {
		if i > 0 {
			dst = append(dst, ',')
		}
		if spill != nil && len(dst) >= spillSize {
			dst = spill(dst)
		}
		dst = appendString(append(dst, `{"vertex":`...), rs[i].Vertex)
		dst = strconv.AppendInt(append(dst, `,"subtask":`...), int64(rs[i].Subtask), 10)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

func appendCoordinators(dst []byte, m map[string][]byte) []byte {
	dst = append(dst, '{')
	var keys [8]coordinatorKey // most snapshots have a few coordinators: no allocation
	for i, k := range coordinatorKeys(keys[:0], m) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(appendString(dst, k.written), ':', '"')
		dst = base64.StdEncoding.AppendEncode(dst, m[k.key])
		dst = append(dst, '"')
	}
	return append(dst, '}')
}

// coordinatorKey is a coordinators map key and the key as written (with
// U+FFFD for bytes that are not UTF-8).
type coordinatorKey struct{ key, written string }

// coordinatorKeys returns the keys of m in the order canonical JSONL writes
// them: sorted by their written form. Keys that are not valid UTF-8 can
// collide once written; only the first of them (in byte order) is kept, so
// that the output stays valid JSON. The keys are appended to keys[:0].
func coordinatorKeys(keys []coordinatorKey, m map[string][]byte) []coordinatorKey {
	keys = keys[:0]
	for k := range m {
		keys = append(keys, coordinatorKey{k, validUTF8(k)})
	}
	slices.SortFunc(keys, func(a, b coordinatorKey) int {
		if c := strings.Compare(a.written, b.written); c != 0 {
			return c
		}
		return strings.Compare(a.key, b.key)
	})
	return slices.CompactFunc(keys, func(a, b coordinatorKey) bool { return a.written == b.written })
}

// validUTF8 returns s with each byte that is not part of valid UTF-8
// replaced by U+FFFD, as appendString writes it.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString("\ufffd")
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// appendTime writes t in UTC as 2006-01-02T15:04:05.000000000Z.
func appendTime(dst []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	hour, minute, sec := t.Clock()
	year = min(max(year, 0), 9999)
	dst = appendDigits(dst, year, 4)
	dst = append(dst, '-')
	dst = appendDigits(dst, int(month), 2)
	dst = append(dst, '-')
	dst = appendDigits(dst, day, 2)
	dst = append(dst, 'T')
	dst = appendDigits(dst, hour, 2)
	dst = append(dst, ':')
	dst = appendDigits(dst, minute, 2)
	dst = append(dst, ':')
	dst = appendDigits(dst, sec, 2)
	dst = append(dst, '.')
	dst = appendDigits(dst, t.Nanosecond(), 9)
	return append(dst, 'Z')
}

// appendDigits writes the non-negative v zero-padded to width digits.
func appendDigits(dst []byte, v, width int) []byte {
	var buf [9]byte
	for i := width - 1; i >= 0; i-- {
		buf[i] = byte('0' + v%10)
		v /= 10
	}
	return append(dst, buf[:width]...)
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string. Only '"', '\\' and control
// characters are escaped; invalid UTF-8 becomes U+FFFD.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\ufffd"...)
			i++
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// JSONWriter writes events as canonical JSONL through a buffer. It is not
// safe for concurrent use.
type JSONWriter struct {
	w     *bufio.Writer
	buf   []byte
	spill func([]byte) []byte // writes out a long line in parts
	err   error               // of the line being written
}

// NewJSONWriter returns a JSONWriter that writes to w. Call Flush when done.
func NewJSONWriter(w io.Writer) *JSONWriter {
	jw := &JSONWriter{w: bufio.NewWriterSize(w, 64<<10)}
	jw.spill = func(dst []byte) []byte {
		if jw.err != nil {
			return dst[:0]
		}
		_, jw.err = jw.w.Write(dst)
		return dst[:0]
	}
	return jw
}

// Write writes e as one canonical line. It returns an error for an unknown
// kind, ErrTimeRange (wrapped) when e.Time lies outside years 0000-9999, and
// the writer's error when writing fails.
func (w *JSONWriter) Write(e *Event) error {
	if !e.Kind.Valid() {
		return fmt.Errorf("format: write seq %d: unknown kind %q", e.Seq, e.Kind)
	}
	if y := e.Time.UTC().Year(); y < 0 || y > 9999 {
		return fmt.Errorf("format: write seq %d: year %d: %w", e.Seq, y, ErrTimeRange)
	}
	w.err = nil
	w.buf = appendEvent(w.buf[:0], e, w.spill)
	if w.err == nil {
		_, w.err = w.w.Write(w.buf)
	}
	if w.err != nil {
		return fmt.Errorf("format: write seq %d: %w", e.Seq, w.err)
	}
	return nil
}

// Flush writes any buffered lines to the underlying writer.
func (w *JSONWriter) Flush() error {
	if err := w.w.Flush(); err != nil {
		return fmt.Errorf("format: flush json: %w", err)
	}
	return nil
}
