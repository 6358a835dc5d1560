package format

// The JSON lines parser as it was before its fast paths, kept as the
// reference that TestJSONReader_Reference compares the parser against.

import (
	"bufio"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// refJSONParser decodes one line of JSONL into an Event. It is hand-written so
// that every error names its field and so that no reflection runs per line.
type refJSONParser struct {
	data   []byte
	pos    int
	buf    []byte            // scratch for strings with escapes
	intern map[string]string // repeated names (kinds, jobs, vertices, workers)
	recent [64]string        // names parsed lately, by a hash of their length and ends

	// paths holds the paths of the arrays' elements and the objects'
	// members being parsed, innermost last, so that naming them allocates
	// nothing (a path is rendered only when an error is made, at once).
	paths [8]refFpath
	depth int
}

// push returns a path for f, valid until the matching pop.
func (p *refJSONParser) push(f refFpath) *refFpath {
	if p.depth == len(p.paths) {
		p.depth++
		fp := new(refFpath) // deeper than any event nests: the heap
		*fp = f
		return fp
	}
	fp := &p.paths[p.depth]
	*fp = f
	p.depth++
	return fp
}

func (p *refJSONParser) pop() { p.depth-- }

// refMaxInterned bounds the intern table of a reader.
const refMaxInterned = 4096

// parseName parses a string that is likely to repeat across lines and
// returns a shared copy of it.
func (p *refJSONParser) parseName(at *refFpath) (string, *SyntaxError) {
	b, err := p.parseStringBytes(at)
	if err != nil {
		return "", err
	}
	// A small direct-mapped cache in front of the map: most names repeat
	// on nearby lines, and comparing is cheaper than hashing.
	if len(b) == 0 {
		return "", nil
	}
	slot := &p.recent[(len(b)*31+int(b[0])*7+int(b[len(b)-1]))%len(p.recent)]
	if *slot == string(b) {
		return *slot, nil
	}
	if s, ok := p.intern[string(b)]; ok {
		*slot = s
		return s, nil
	}
	s := string(b)
	if p.intern == nil {
		p.intern = make(map[string]string)
	}
	if len(p.intern) < refMaxInterned {
		p.intern[s] = s
	}
	*slot = s
	return s, nil
}

// refFpath names a field for error messages; it is rendered only on error.
type refFpath struct {
	parent *refFpath
	name   string // field name; empty for an array element
	index  int    // array index when name is empty
}

func (f *refFpath) String() string {
	if f == nil {
		return ""
	}
	var b strings.Builder
	f.render(&b)
	return b.String()
}

func (f *refFpath) render(b *strings.Builder) {
	if f.parent != nil {
		f.parent.render(b)
	}
	if f.name == "" {
		fmt.Fprintf(b, "[%d]", f.index)
		return
	}
	if f.parent != nil {
		b.WriteByte('.')
	}
	b.WriteString(f.name)
}

func (p *refJSONParser) fail(at *refFpath, format string, args ...any) *SyntaxError {
	return &SyntaxError{Field: at.String(), Err: fmt.Errorf(format, args...)}
}

func (p *refJSONParser) skipWS() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\r', '\n':
			p.pos++
		default:
			return
		}
	}
}

func (p *refJSONParser) at(c byte) bool { return p.pos < len(p.data) && p.data[p.pos] == c }

// got describes the value starting at the current position, for "want X,
// got Y" messages.
func (p *refJSONParser) got() string {
	if p.pos >= len(p.data) {
		return "end of line"
	}
	switch c := p.data[p.pos]; {
	case c == '"':
		return "string"
	case c == '{':
		return "object"
	case c == '[':
		return "array"
	case c == 't' || c == 'f':
		return "boolean"
	case c == 'n':
		return "null"
	case c == '-' || (c >= '0' && c <= '9'):
		return "number"
	default:
		return fmt.Sprintf("invalid character %q", rune(c))
	}
}

// Paths of the top-level fields, shared so that parsing allocates none.
var (
	refPathSeq, refPathTime, refPathEpoch = &refFpath{name: "seq"}, &refFpath{name: "time"}, &refFpath{name: "epoch"}
	refPathKind, refPathJob               = &refFpath{name: "kind"}, &refFpath{name: "job"}
	refFieldPaths                         = func() (a [numFields]*refFpath) {
		for f := range a {
			a[f] = &refFpath{name: fieldNames[f]}
		}
		return a
	}()
)

// refFieldNamed returns the kind-specific field named key. It is a switch
// rather than a map so that no key is hashed per line.
func refFieldNamed(key []byte) (field, bool) {
	switch string(key) {
	case "graph":
		return fieldGraph, true
	case "master":
		return fieldMaster, true
	case "recovering":
		return fieldRecovering, true
	case "vertex":
		return fieldVertex, true
	case "subtask":
		return fieldSubtask, true
	case "parallelism":
		return fieldParallelism, true
	case "attempt":
		return fieldAttempt, true
	case "worker":
		return fieldWorker, true
	case "records_in":
		return fieldRecordsIn, true
	case "records_out":
		return fieldRecordsOut, true
	case "bytes_in":
		return fieldBytesIn, true
	case "bytes_out":
		return fieldBytesOut, true
	case "partitions":
		return fieldPartitions, true
	case "error":
		return fieldError, true
	case "subtasks":
		return fieldSubtasks, true
	case "reason":
		return fieldReason, true
	case "coordinators":
		return fieldCoordinators, true
	case "status":
		return fieldStatus, true
	}
	return 0, false
}

// refKindNamed returns the kind named b, without allocating for the nine
// known kinds.
func refKindNamed(b []byte) Kind {
	switch string(b) {
	case string(KindJobSubmitted):
		return KindJobSubmitted
	case string(KindMasterStarted):
		return KindMasterStarted
	case string(KindVertexInitialized):
		return KindVertexInitialized
	case string(KindSubtaskStarted):
		return KindSubtaskStarted
	case string(KindSubtaskFinished):
		return KindSubtaskFinished
	case string(KindSubtaskFailed):
		return KindSubtaskFailed
	case string(KindSubtasksReset):
		return KindSubtasksReset
	case string(KindSnapshot):
		return KindSnapshot
	case string(KindJobFinished):
		return KindJobFinished
	}
	return Kind(b)
}

// parseEvent decodes one non-blank line. The SyntaxError it returns has no
// line number yet.
func (p *refJSONParser) parseEvent(line []byte) (e Event, pr refPresence, serr *SyntaxError) {
	p.data, p.pos = line, 0
	p.skipWS()
	if !p.at('{') {
		return e, pr, p.fail(nil, "want object, got %s", p.got())
	}
	var (
		seen    fieldSet
		order   [numFields]field
		nseen   int
		hasKind bool
	)
	serr = p.parseObject(nil, func(key []byte) *SyntaxError {
		switch string(key) {
		case "seq":
			return p.common(&pr.seq, refPathSeq, func(at *refFpath) (err *SyntaxError) { e.Seq, err = p.parseInt64(at); return })
		case "time":
			return p.common(&pr.time, refPathTime, func(at *refFpath) (err *SyntaxError) { e.Time, err = p.parseTime(at); return })
		case "epoch":
			return p.common(&pr.epoch, refPathEpoch, func(at *refFpath) (err *SyntaxError) { e.Epoch, err = p.parseInt32(at); return })
		case "kind":
			return p.common(&hasKind, refPathKind, func(at *refFpath) *SyntaxError {
				b, err := p.parseStringBytes(at)
				e.Kind = refKindNamed(b)
				return err
			})
		case "job":
			return p.common(&pr.job, refPathJob, func(at *refFpath) (err *SyntaxError) { e.Job, err = p.parseName(at); return })
		}
		f, ok := refFieldNamed(key)
		if !ok {
			return p.fail(&refFpath{name: string(key)}, "unknown field")
		}
		at := refFieldPaths[f]
		if seen.has(f) {
			return p.fail(at, "duplicate field")
		}
		seen |= 1 << f
		order[nseen] = f
		nseen++
		return p.parseField(&e, f, at)
	})
	if serr != nil {
		return e, pr, serr
	}
	p.skipWS()
	if p.pos < len(p.data) {
		return e, pr, p.fail(nil, "trailing data after object: %s", p.got())
	}
	if !hasKind {
		return e, pr, p.fail(refPathKind, "missing")
	}
	fields, ok := e.Kind.fieldSet()
	if !ok {
		return e, pr, p.fail(refPathKind, "unknown kind %q", string(e.Kind))
	}
	for _, f := range order[:nseen] {
		if !fields.has(f) {
			return e, pr, p.fail(refFieldPaths[f], "not a field of kind %q", string(e.Kind))
		}
	}
	switch e.Kind {
	case KindJobSubmitted:
		if e.Graph == nil {
			e.Graph = &Graph{}
		}
	case KindSnapshot:
		if e.Coordinators == nil {
			e.Coordinators = map[string][]byte{}
		}
	}
	return e, pr, nil
}

// common parses a common field once.
func (p *refJSONParser) common(seen *bool, at *refFpath, parse func(at *refFpath) *SyntaxError) *SyntaxError {
	if *seen {
		return p.fail(at, "duplicate field")
	}
	*seen = true
	return parse(at)
}

func (p *refJSONParser) parseField(e *Event, f field, at *refFpath) (err *SyntaxError) {
	switch f {
	case fieldGraph:
		e.Graph, err = p.parseGraph(at)
	case fieldMaster:
		e.Master, err = p.parseName(at)
	case fieldRecovering:
		e.Recovering, err = p.parseBool(at)
	case fieldVertex:
		e.Vertex, err = p.parseName(at)
	case fieldSubtask:
		e.Subtask, err = p.parseInt32(at)
	case fieldParallelism:
		e.Parallelism, err = p.parseInt32(at)
	case fieldAttempt:
		e.Attempt, err = p.parseInt32(at)
	case fieldWorker:
		e.Worker, err = p.parseName(at)
	case fieldRecordsIn:
		e.RecordsIn, err = p.parseInt64(at)
	case fieldRecordsOut:
		e.RecordsOut, err = p.parseInt64(at)
	case fieldBytesIn:
		e.BytesIn, err = p.parseInt64(at)
	case fieldBytesOut:
		e.BytesOut, err = p.parseInt64(at)
	case fieldPartitions:
		e.Partitions, err = p.parsePartitions(at)
	case fieldError:
		e.Error, err = p.parseString(at)
	case fieldSubtasks:
		e.Subtasks, err = p.parseSubtasks(at)
	case fieldReason:
		e.Reason, err = p.parseName(at)
	case fieldCoordinators:
		e.Coordinators, err = p.parseCoordinators(at)
	case fieldStatus:
		e.Status, err = p.parseName(at)
	}
	return err
}

// parseObject parses an object at the current position, calling member for
// each key with the position at its value.
func (p *refJSONParser) parseObject(at *refFpath, member func(key []byte) *SyntaxError) *SyntaxError {
	if !p.at('{') {
		return p.fail(at, "want object, got %s", p.got())
	}
	p.pos++
	p.skipWS()
	if p.at('}') {
		p.pos++
		return nil
	}
	for {
		p.skipWS()
		if !p.at('"') {
			return p.fail(at, "want field name, got %s", p.got())
		}
		key, err := p.parseStringBytes(at)
		if err != nil {
			return err
		}
		p.skipWS()
		if !p.at(':') {
			return p.fail(at, "want ':' after field name, got %s", p.got())
		}
		p.pos++
		p.skipWS()
		if err := member(key); err != nil {
			return err
		}
		p.skipWS()
		switch {
		case p.at(','):
			p.pos++
		case p.at('}'):
			p.pos++
			return nil
		default:
			return p.fail(at, "want ',' or '}' after value, got %s", p.got())
		}
	}
}

// parseArray parses an array at the current position, calling elem for each
// element with the position at it.
func (p *refJSONParser) parseArray(at *refFpath, elem func(ep *refFpath) *SyntaxError) *SyntaxError {
	if !p.at('[') {
		return p.fail(at, "want array, got %s", p.got())
	}
	p.pos++
	p.skipWS()
	if p.at(']') {
		p.pos++
		return nil
	}
	for i := 0; ; i++ {
		p.skipWS()
		err := elem(p.push(refFpath{parent: at, index: i}))
		p.pop()
		if err != nil {
			return err
		}
		p.skipWS()
		switch {
		case p.at(','):
			p.pos++
		case p.at(']'):
			p.pos++
			return nil
		default:
			return p.fail(at, "want ',' or ']' after element, got %s", p.got())
		}
	}
}

// members parses an object whose keys must be among names, each at most
// once, dispatching by index into names.
func (p *refJSONParser) members(at *refFpath, names []string, member func(i int, fp *refFpath) *SyntaxError) *SyntaxError {
	var seen uint32
	return p.parseObject(at, func(key []byte) *SyntaxError {
		for i, n := range names {
			if string(key) != n {
				continue
			}
			fp := p.push(refFpath{parent: at, name: n})
			var err *SyntaxError
			if seen&(1<<i) != 0 {
				err = p.fail(fp, "duplicate field")
			} else {
				seen |= 1 << i
				err = member(i, fp)
			}
			p.pop()
			return err
		}
		return p.fail(&refFpath{parent: at, name: string(key)}, "unknown field")
	})
}

var (
	refGraphKeys     = []string{"vertices", "edges"}
	refVertexKeys    = []string{"id", "operator", "parallelism", "max_parallelism", "coordinator"}
	refEdgeKeys      = []string{"from", "to", "pattern"}
	refPartitionKeys = []string{"consumer", "bytes", "records"}
	refSubtaskKeys   = []string{"vertex", "subtask"}
)

func (p *refJSONParser) parseGraph(at *refFpath) (*Graph, *SyntaxError) {
	g := &Graph{}
	err := p.members(at, refGraphKeys, func(i int, fp *refFpath) *SyntaxError {
		if i == 0 {
			return p.parseArray(fp, func(ep *refFpath) *SyntaxError {
				v, err := p.parseVertex(ep)
				g.Vertices = append(g.Vertices, v)
				return err
			})
		}
		return p.parseArray(fp, func(ep *refFpath) *SyntaxError {
			ed, err := p.parseEdge(ep)
			g.Edges = append(g.Edges, ed)
			return err
		})
	})
	return g, err
}

func (p *refJSONParser) parseVertex(at *refFpath) (v Vertex, err *SyntaxError) {
	err = p.members(at, refVertexKeys, func(i int, fp *refFpath) (err *SyntaxError) {
		switch i {
		case 0:
			v.ID, err = p.parseString(fp)
		case 1:
			v.Operator, err = p.parseString(fp)
		case 2:
			v.Parallelism, err = p.parseInt32(fp)
		case 3:
			v.MaxParallelism, err = p.parseInt32(fp)
		case 4:
			v.Coordinator, err = p.parseString(fp)
		}
		return err
	})
	v.Coordinator = coordinatorOrDefault(v.Coordinator)
	return v, err
}

func (p *refJSONParser) parseEdge(at *refFpath) (ed Edge, err *SyntaxError) {
	err = p.members(at, refEdgeKeys, func(i int, fp *refFpath) (err *SyntaxError) {
		switch i {
		case 0:
			ed.From, err = p.parseString(fp)
		case 1:
			ed.To, err = p.parseString(fp)
		case 2:
			ed.Pattern, err = p.parseString(fp)
		}
		return err
	})
	ed.Pattern = patternOrDefault(ed.Pattern)
	return ed, err
}

func (p *refJSONParser) parsePartitions(at *refFpath) ([]Partition, *SyntaxError) {
	ps := []Partition{}
	err := p.parseArray(at, func(ep *refFpath) *SyntaxError {
		var pt Partition
		err := p.members(ep, refPartitionKeys, func(i int, fp *refFpath) (err *SyntaxError) {
			switch i {
			case 0:
				pt.Consumer, err = p.parseName(fp)
			case 1:
				pt.Bytes, err = p.parseInt64(fp)
			case 2:
				pt.Records, err = p.parseInt64(fp)
			}
			return err
		})
		ps = append(ps, pt)
		return err
	})
	return ps, err
}

func (p *refJSONParser) parseSubtasks(at *refFpath) ([]SubtaskRef, *SyntaxError) {
	var rs []SubtaskRef
	err := p.parseArray(at, func(ep *refFpath) *SyntaxError {
		var r SubtaskRef
		err := p.members(ep, refSubtaskKeys, func(i int, fp *refFpath) (err *SyntaxError) {
			if i == 0 {
				r.Vertex, err = p.parseName(fp)
			} else {
				r.Subtask, err = p.parseInt32(fp)
			}
			return err
		})
		rs = append(rs, r)
		return err
	})
	return rs, err
}

func (p *refJSONParser) parseCoordinators(at *refFpath) (map[string][]byte, *SyntaxError) {
	m := map[string][]byte{}
	err := p.parseObject(at, func(key []byte) *SyntaxError {
		fp := &refFpath{parent: at, name: string(key)}
		if _, dup := m[fp.name]; dup {
			return p.fail(fp, "duplicate field")
		}
		s, err := p.parseString(fp)
		if err != nil {
			return err
		}
		var state []byte
		if s != "" {
			b, derr := base64.StdEncoding.Strict().DecodeString(s)
			if derr != nil {
				return p.fail(fp, "want base64, got %q: %v", s, derr)
			}
			state = b
		}
		m[fp.name] = state
		return nil
	})
	return m, err
}

func (p *refJSONParser) parseBool(at *refFpath) (bool, *SyntaxError) {
	rest := p.data[p.pos:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		p.pos += 4
		return true, nil
	case len(rest) >= 5 && string(rest[:5]) == "false":
		p.pos += 5
		return false, nil
	}
	return false, p.fail(at, "want boolean, got %s", p.got())
}

func (p *refJSONParser) parseInt32(at *refFpath) (int32, *SyntaxError) {
	v, err := p.parseInt64(at)
	if err != nil {
		return 0, err
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, p.fail(at, "want 32-bit integer, got %d", v)
	}
	return int32(v), nil
}

var refErrIntRange = errors.New("integer out of range")

// parseInt64 parses a JSON number that must be an integer.
func (p *refJSONParser) parseInt64(at *refFpath) (int64, *SyntaxError) {
	start := p.pos
	d := p.data
	i := p.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	if i >= len(d) || d[i] < '0' || d[i] > '9' {
		return 0, p.fail(at, "want integer, got %s", p.got())
	}
	digits := i
	var v int64 // exact while at most 18 digits were read
	for i < len(d) && d[i] >= '0' && d[i] <= '9' {
		v = v*10 + int64(d[i]-'0')
		i++
	}
	if d[digits] == '0' && i-digits > 1 {
		return 0, p.fail(at, "invalid number %q: leading zero", d[start:i])
	}
	if i < len(d) && (d[i] == '.' || d[i] == 'e' || d[i] == 'E') {
		end := i + 1
		for end < len(d) && strings.IndexByte("0123456789.eE+-", d[end]) >= 0 {
			end++
		}
		return 0, p.fail(at, "want integer, got number %s", d[start:end])
	}
	p.pos = i
	if i-digits <= 18 { // cannot overflow: no strconv, no string
		if digits > start {
			v = -v
		}
		return v, nil
	}
	v, err := strconv.ParseInt(string(d[start:i]), 10, 64)
	if err != nil {
		return 0, p.fail(at, "want integer, got %s: %w", d[start:i], refErrIntRange)
	}
	return v, nil
}

func (p *refJSONParser) parseTime(at *refFpath) (time.Time, *SyntaxError) {
	s, err := p.parseStringBytes(at)
	if err != nil {
		return time.Time{}, err
	}
	if t, ok := refCanonicalTime(s); ok {
		return t, nil
	}
	t, perr := time.Parse(time.RFC3339Nano, string(s))
	if perr != nil {
		return time.Time{}, p.fail(at, "want RFC 3339 time, got %q", s)
	}
	t = t.UTC()
	if y := t.Year(); y < 0 || y > 9999 {
		return time.Time{}, p.fail(at, "time %q is outside years 0000-9999 in UTC", s)
	}
	return t, nil
}

// refCanonicalTime parses the time form that canonical JSONL writes,
// 2006-01-02T15:04:05.000000000Z, with every field in range; for anything
// else it returns false and the caller parses s with time.Parse, which
// gives the same time for what refCanonicalTime accepts.
func refCanonicalTime(s []byte) (time.Time, bool) {
	if len(s) != len("2006-01-02T15:04:05.000000000Z") || s[4] != '-' || s[7] != '-' || s[10] != 'T' ||
		s[13] != ':' || s[16] != ':' || s[19] != '.' || s[29] != 'Z' {
		return time.Time{}, false
	}
	num := func(b []byte) (int, bool) {
		n := 0
		for _, c := range b {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	year, ok1 := num(s[0:4])
	month, ok2 := num(s[5:7])
	day, ok3 := num(s[8:10])
	hour, ok4 := num(s[11:13])
	minute, ok5 := num(s[14:16])
	sec, ok6 := num(s[17:19])
	nsec, ok7 := num(s[20:29])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) ||
		month < 1 || month > 12 || day < 1 || day > refDaysIn(time.Month(month), year) ||
		hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC), true
}

// refDaysIn returns the number of days of month in year (proleptic Gregorian).
func refDaysIn(month time.Month, year int) int {
	switch month {
	case time.February:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case time.April, time.June, time.September, time.November:
		return 30
	}
	return 31
}

func (p *refJSONParser) parseString(at *refFpath) (string, *SyntaxError) {
	b, err := p.parseStringBytes(at)
	return string(b), err
}

// parseStringBytes parses a JSON string. The result aliases the line or the
// scratch buffer and is valid until the next call.
func (p *refJSONParser) parseStringBytes(at *refFpath) ([]byte, *SyntaxError) {
	if !p.at('"') {
		return nil, p.fail(at, "want string, got %s", p.got())
	}
	d := p.data
	start := p.pos + 1
	i := start
	for i < len(d) {
		c := d[i]
		if c == '"' {
			p.pos = i + 1
			return d[start:i], nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		i++
	}
	p.buf = append(p.buf[:0], d[start:i]...)
	for i < len(d) {
		c := d[i]
		switch {
		case c == '"':
			p.pos = i + 1
			return p.buf, nil
		case c < 0x20:
			return nil, p.fail(at, "control character %q in string", rune(c))
		case c == '\\':
			n, err := p.unescape(d, i, at)
			if err != nil {
				return nil, err
			}
			i = n
		case c < utf8.RuneSelf:
			p.buf = append(p.buf, c)
			i++
		default:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size == 1 {
				p.buf = append(p.buf, "\ufffd"...)
			} else {
				p.buf = append(p.buf, d[i:i+size]...)
			}
			i += size
		}
	}
	return nil, p.fail(at, "unterminated string")
}

// unescape decodes the escape at d[i] into p.buf and returns the index
// after it.
func (p *refJSONParser) unescape(d []byte, i int, at *refFpath) (int, *SyntaxError) {
	if i+1 >= len(d) {
		return 0, p.fail(at, "unterminated string")
	}
	switch c := d[i+1]; c {
	case '"', '\\', '/':
		p.buf = append(p.buf, c)
	case 'b':
		p.buf = append(p.buf, '\b')
	case 'f':
		p.buf = append(p.buf, '\f')
	case 'n':
		p.buf = append(p.buf, '\n')
	case 'r':
		p.buf = append(p.buf, '\r')
	case 't':
		p.buf = append(p.buf, '\t')
	case 'u':
		r, ok := refHex4(d, i+2)
		if !ok {
			return 0, p.fail(at, "invalid \\u escape in string")
		}
		n := i + 6
		if utf16.IsSurrogate(r) {
			r2, ok2 := rune(0), false
			if n+1 < len(d) && d[n] == '\\' && d[n+1] == 'u' {
				r2, ok2 = refHex4(d, n+2)
			}
			if dec := utf16.DecodeRune(r, r2); ok2 && dec != utf8.RuneError {
				r, n = dec, n+6
			} else {
				r = utf8.RuneError
			}
		}
		p.buf = utf8.AppendRune(p.buf, r)
		return n, nil
	default:
		return 0, p.fail(at, "invalid escape %q in string", "\\"+string(rune(c)))
	}
	return i + 2, nil
}

func refHex4(d []byte, i int) (rune, bool) {
	if i+4 > len(d) {
		return 0, false
	}
	var r rune
	for _, c := range d[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// refJSONReader reads events from JSONL, one per line, strictly (see
// SyntaxError), and fills in what hand-written files may leave out
// (docs/format.md): a missing seq counts up from the previous event's (the
// first: 1); a missing epoch follows the master_started lines (1 before any,
// and each master_started after the first without an epoch adds one); a
// missing job is the job of the last job_submitted; a missing time repeats
// the previous event's (the first: 1970-01-01T00:00:00Z). Missing fields of
// the kind are zero, a missing coordinator is "none" and a missing edge
// pattern "all_to_all". Blank lines are skipped. Times may have any RFC 3339
// precision and offset; they are returned in UTC.
//
// A refJSONReader is not safe for concurrent use.
type refJSONReader struct {
	r    *bufio.Reader
	line int
	long []byte // accumulates lines longer than the bufio buffer
	err  error  // sticky

	p refJSONParser

	// fill-in state
	seq        int64
	time       time.Time
	epoch      int32
	sawMaster  bool
	submitJob  string
	sawSubmit  bool
	firstEvent bool
}

// refNewJSONReader returns a reader of the JSONL in r.
func refNewJSONReader(r io.Reader) *refJSONReader {
	return &refJSONReader{r: bufio.NewReaderSize(r, 64<<10), epoch: 1, time: unixEpoch, firstEvent: true}
}

// Next returns the next event. It returns io.EOF after the last one, a
// *SyntaxError for a line that is not a valid event, or the error of the
// underlying reader. After an error, Next keeps returning it.
func (r *refJSONReader) Next() (Event, error) {
	if r.err != nil {
		return Event{}, r.err
	}
	for {
		line, err := r.readLine()
		if err != nil {
			r.err = err
			return Event{}, err
		}
		if refIsBlank(line) {
			continue
		}
		e, present, perr := r.p.parseEvent(line)
		if perr != nil {
			perr.Line = r.line
			r.err = perr
			return Event{}, perr
		}
		r.fillIn(&e, present)
		return e, nil
	}
}

// readLine returns the next line without its '\n' (the slice is valid until
// the next call).
func (r *refJSONReader) readLine() ([]byte, error) {
	r.long = r.long[:0]
	for {
		chunk, err := r.r.ReadSlice('\n')
		switch {
		case err == nil:
			r.line++
			if len(r.long) > 0 {
				r.long = append(r.long, chunk[:len(chunk)-1]...)
				return r.long, nil
			}
			return chunk[:len(chunk)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			if len(r.long)+len(chunk) > MaxJSONLine {
				return nil, &SyntaxError{Line: r.line + 1, Err: fmt.Errorf("line longer than %d bytes", MaxJSONLine)}
			}
			r.long = append(r.long, chunk...)
		case err == io.EOF:
			if len(r.long) == 0 && len(chunk) == 0 {
				return nil, io.EOF
			}
			r.line++
			r.long = append(r.long, chunk...)
			return r.long, nil
		default:
			return nil, fmt.Errorf("format: read json line %d: %w", r.line+1, err)
		}
	}
}

func refIsBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// fillIn applies the missing-field rules to e.
func (r *refJSONReader) fillIn(e *Event, present refPresence) {
	if !present.seq {
		if r.firstEvent {
			e.Seq = 1
		} else {
			e.Seq = r.seq + 1
		}
	}
	if e.Kind == KindMasterStarted {
		switch {
		case present.epoch:
			r.epoch = e.Epoch
		case r.sawMaster:
			r.epoch++
		}
		r.sawMaster = true
	}
	if !present.epoch {
		e.Epoch = r.epoch
	}
	if e.Kind == KindJobSubmitted && present.job {
		r.submitJob, r.sawSubmit = e.Job, true
	}
	if !present.job && r.sawSubmit {
		e.Job = r.submitJob
	}
	if !present.time {
		e.Time = r.time
	}
	r.seq, r.time, r.firstEvent = e.Seq, e.Time, false
}

// refPresence records which common fields a line had.
type refPresence struct {
	seq, time, epoch, job bool
}
