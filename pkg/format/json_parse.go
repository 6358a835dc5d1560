package format

import (
	"fmt"
	"strings"
)

// jsonParser decodes one line of JSONL into an Event. It is hand-written so
// that every error names its field and so that no reflection runs per line.
type jsonParser struct {
	data   []byte
	pos    int
	buf    []byte            // scratch for strings with escapes
	last   [numNames]string  // parseName's guesses
	parts  []Partition       // canonicalPartitions' scratch
	slab   []Partition       // keepPartitions' slab
	kinds  [2]Kind           // parseKind's guesses, the latest first
	intern map[string]string // repeated names (kinds, jobs, vertices, workers)
	recent [256]string       // names parsed lately, by a hash of their length, ends and middle

	// paths holds the paths of the arrays' elements and the objects'
	// members being parsed, innermost last, so that naming them allocates
	// nothing (a path is rendered only when an error is made, at once).
	paths [8]fpath
	depth int

	// nextMember holds, for each member of a line, the member that
	// followed it last (memberKey's guess).
	nextMember [numMembers]field

	// secText is the date and clock of the last canonical time parsed,
	// secUnix its Unix time (when secValid).
	secText  [19]byte
	secUnix  int64
	secValid bool
}

// push returns a path for f, valid until the matching pop.
func (p *jsonParser) push(f fpath) *fpath {
	if p.depth == len(p.paths) {
		p.depth++
		fp := new(fpath) // deeper than any event nests: the heap
		*fp = f
		return fp
	}
	fp := &p.paths[p.depth]
	*fp = f
	p.depth++
	return fp
}

func (p *jsonParser) pop() { p.depth-- }

// maxInterned bounds the intern table of a reader.
const maxInterned = 4096

// Slots of jsonParser.last: the members whose values parseName guesses.
const (
	nameJob = iota
	nameMaster
	nameVertex
	nameWorker
	nameReason
	nameStatus
	nameConsumer
	nameSubtaskVertex
	numNames
)

// parseName parses a string that is likely to repeat across lines and
// returns a shared copy of it. It first tries the value its slot took
// last, kept only when it needs no escapes: if those bytes follow,
// between quotes, the string needs no scan for its end.
func (p *jsonParser) parseName(at *fpath, slot int) (string, *SyntaxError) {
	last := &p.last[slot]
	if p.quoted(*last) {
		return *last, nil
	}
	s, err := p.parseNameScan(at)
	if err == nil && plainPrefix(stringBytes(s), 0) == len(s) {
		*last = s
	}
	return s, err
}

// quoted moves past the JSON string of s, a non-empty string of bytes a
// string holds as they are (plainByte), if the line goes on with it: s
// between quotes.
func (p *jsonParser) quoted(s string) bool {
	d, i, n := p.data, p.pos, len(s)
	if n > 0 && len(d)-i > n+1 && d[i] == '"' && d[i+1+n] == '"' && string(d[i+1:i+1+n]) == s {
		p.pos = i + n + 2
		return true
	}
	return false
}

// parseNameScan is parseName without the guess.
func (p *jsonParser) parseNameScan(at *fpath) (string, *SyntaxError) {
	b, err := p.parseStringBytes(at)
	if err != nil {
		return "", err
	}
	// A small direct-mapped cache in front of the map: most names repeat
	// on nearby lines, and comparing is cheaper than hashing.
	if len(b) == 0 {
		return "", nil
	}
	// The middle byte tells apart names that differ in a counter, as
	// workers w15 and w25 do.
	slot := &p.recent[(len(b)*31+int(b[0])*7+int(b[len(b)/2])*13+int(b[len(b)-1]))%len(p.recent)]
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
	if len(p.intern) < maxInterned {
		p.intern[s] = s
	}
	*slot = s
	return s, nil
}

// fpath names a field for error messages; it is rendered only on error.
type fpath struct {
	parent *fpath
	name   string // field name; empty for an array element
	index  int    // array index when name is empty
}

func (f *fpath) String() string {
	if f == nil {
		return ""
	}
	var b strings.Builder
	f.render(&b)
	return b.String()
}

func (f *fpath) render(b *strings.Builder) {
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

func (p *jsonParser) fail(at *fpath, format string, args ...any) *SyntaxError {
	return &SyntaxError{Field: at.String(), Err: fmt.Errorf(format, args...)}
}

// skipWS skips white space; canonical lines have none, so the first test
// is the one that usually decides.
func (p *jsonParser) skipWS() {
	if p.pos < len(p.data) && p.data[p.pos] > ' ' {
		return
	}
	p.skipWSSlow()
}

func (p *jsonParser) skipWSSlow() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\r', '\n':
			p.pos++
		default:
			return
		}
	}
}

func (p *jsonParser) at(c byte) bool { return p.pos < len(p.data) && p.data[p.pos] == c }

// got describes the value starting at the current position, for "want X,
// got Y" messages.
func (p *jsonParser) got() string {
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
	pathSeq, pathTime, pathEpoch = &fpath{name: "seq"}, &fpath{name: "time"}, &fpath{name: "epoch"}
	pathKind, pathJob            = &fpath{name: "kind"}, &fpath{name: "job"}
	fieldPaths                   = func() (a [numFields]*fpath) {
		for f := range a {
			a[f] = &fpath{name: fieldNames[f]}
		}
		return a
	}()
)

// fieldNamed returns the kind-specific field named key. It is a switch
// rather than a map so that no key is hashed per line.
func fieldNamed(key []byte) (field, bool) {
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

// kindNamed returns the kind named b, without allocating for the nine
// known kinds.
func kindNamed(b []byte) Kind {
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

// parseEvent decodes one non-blank line into *e, which must be the zero
// Event (decoding in place saves the caller a copy of the event). The
// SyntaxError it returns has no line number yet. Its loop over the
// members is parseObject's, written out so that the hot path makes no
// indirect calls.
func (p *jsonParser) parseEvent(line []byte, e *Event) (pr presence, serr *SyntaxError) {
	if pr, ok := p.parseCanonical(line, e); ok {
		return pr, nil
	}
	*e = Event{}
	pr = presence{}
	p.data, p.pos = line, 0
	p.skipWS()
	if !p.at('{') {
		return pr, p.fail(nil, "want object, got %s", p.got())
	}
	var st eventState
	prev := memberStart
	p.pos++
	p.skipWS()
	if p.at('}') {
		p.pos++
	} else {
		for {
			p.skipWS()
			if !p.at('"') {
				return pr, p.fail(nil, "want field name, got %s", p.got())
			}
			key, m, err := p.memberKey(prev)
			if err != nil {
				return pr, err
			}
			p.skipWS()
			if !p.at(':') {
				return pr, p.fail(nil, "want ':' after field name, got %s", p.got())
			}
			p.pos++
			p.skipWS()
			if err := p.parseMember(m, key, e, &pr, &st); err != nil {
				return pr, err
			}
			p.nextMember[prev], prev = m, m
			p.skipWS()
			if p.at(',') {
				p.pos++
				continue
			}
			if p.at('}') {
				p.pos++
				break
			}
			return pr, p.fail(nil, "want ',' or '}' after value, got %s", p.got())
		}
	}
	return pr, p.finishEvent(e, &st)
}

// eventState is what parseEvent tracks of the members of a line.
type eventState struct {
	seen    fieldSet
	order   [numFields]field
	nseen   int
	hasKind bool
}

// Members of a line that are not fields of a kind, numbered after them.
const (
	memberSeq = numFields + iota
	memberTime
	memberEpoch
	memberKind
	memberJob
	memberUnknown
	memberStart // before the first member, for nextMember
	numMembers
)

// memberKey parses the name of a member of a line, after the member prev.
// It first tries the name that followed prev on earlier lines (canonical
// lines repeat a few orders), which needs no scan for the closing quote.
func (p *jsonParser) memberKey(prev field) ([]byte, field, *SyntaxError) {
	guess := p.nextMember[prev]
	if q := quotedMembers[guess]; q != "" && len(p.data)-p.pos >= len(q) && string(p.data[p.pos:p.pos+len(q)]) == q {
		p.pos += len(q)
		return p.data[p.pos-len(q)+1 : p.pos-1], guess, nil
	}
	key, err := p.parseStringBytes(nil)
	if err != nil {
		return nil, 0, err
	}
	return key, memberNamed(key), nil
}

// quotedMembers holds the names of the members in quotes.
var quotedMembers = func() (q [numMembers]string) {
	for _, slot := range memberNames {
		if slot.name != "" {
			q[slot.id] = `"` + slot.name + `"`
		}
	}
	return q
}()

// memberNames maps a hash of a member name (memberHash) to the member, so
// that most keys are found with one comparison; a key whose slot holds
// another name goes through memberNamedSlow.
var memberNames = func() (t [128]struct {
	name string
	id   field
}) {
	names := map[string]field{"seq": memberSeq, "time": memberTime, "epoch": memberEpoch, "kind": memberKind, "job": memberJob}
	for f := range numFields {
		names[fieldNames[f]] = f
	}
	for name, id := range names {
		if slot := &t[memberHash([]byte(name))]; slot.name == "" {
			slot.name, slot.id = name, id
		}
	}
	return t
}()

func memberHash(key []byte) int {
	return (len(key)*31 + int(key[0])*7 + int(key[len(key)-1])) % 128
}

// memberNamed returns the member named key, or memberUnknown.
func memberNamed(key []byte) field {
	if len(key) > 0 {
		if slot := &memberNames[memberHash(key)]; slot.name == string(key) {
			return slot.id
		}
	}
	return memberNamedSlow(key)
}

func memberNamedSlow(key []byte) field {
	switch string(key) {
	case "seq":
		return memberSeq
	case "time":
		return memberTime
	case "epoch":
		return memberEpoch
	case "kind":
		return memberKind
	case "job":
		return memberJob
	}
	if f, ok := fieldNamed(key); ok {
		return f
	}
	return memberUnknown
}

// once marks a member of the common fields seen, or fails on its second
// appearance in a line.
func (p *jsonParser) once(seen *bool, at *fpath) *SyntaxError {
	if *seen {
		return p.fail(at, "duplicate field")
	}
	*seen = true
	return nil
}

// parseMember parses the value of member f, named key, into e.
func (p *jsonParser) parseMember(f field, key []byte, e *Event, pr *presence, st *eventState) (err *SyntaxError) {
	switch f {
	case memberSeq:
		if err := p.once(&pr.seq, pathSeq); err != nil {
			return err
		}
		e.Seq, err = p.parseInt64(pathSeq)
		return err
	case memberTime:
		if err := p.once(&pr.time, pathTime); err != nil {
			return err
		}
		e.Time, err = p.parseTime(pathTime)
		return err
	case memberEpoch:
		if err := p.once(&pr.epoch, pathEpoch); err != nil {
			return err
		}
		e.Epoch, err = p.parseInt32(pathEpoch)
		return err
	case memberKind:
		if err := p.once(&st.hasKind, pathKind); err != nil {
			return err
		}
		b, err := p.parseStringBytes(pathKind)
		e.Kind = kindNamed(b)
		return err
	case memberJob:
		if err := p.once(&pr.job, pathJob); err != nil {
			return err
		}
		e.Job, err = p.parseName(pathJob, nameJob)
		return err
	case memberUnknown:
		return p.fail(&fpath{name: string(key)}, "unknown field")
	default:
		at := fieldPaths[f]
		if st.seen.has(f) {
			return p.fail(at, "duplicate field")
		}
		st.seen |= 1 << f
		st.order[st.nseen] = f
		st.nseen++
		return p.parseField(e, f, at)
	}
}

// finishEvent checks the trailing data and the kind of a parsed line and
// sets the kind's defaults.
func (p *jsonParser) finishEvent(e *Event, st *eventState) *SyntaxError {
	p.skipWS()
	if p.pos < len(p.data) {
		return p.fail(nil, "trailing data after object: %s", p.got())
	}
	if !st.hasKind {
		return p.fail(pathKind, "missing")
	}
	fields, ok := e.Kind.fieldSet()
	if !ok {
		return p.fail(pathKind, "unknown kind %q", string(e.Kind))
	}
	for _, f := range st.order[:st.nseen] {
		if !fields.has(f) {
			return p.fail(fieldPaths[f], "not a field of kind %q", string(e.Kind))
		}
	}
	setKindDefaults(e)
	return nil
}

// setKindDefaults gives a parsed event of a kind with a graph or
// coordinators an empty one when its line had none.
func setKindDefaults(e *Event) {
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
}

func (p *jsonParser) parseField(e *Event, f field, at *fpath) (err *SyntaxError) {
	switch f {
	case fieldGraph:
		e.Graph, err = p.parseGraph(at)
	case fieldMaster:
		e.Master, err = p.parseName(at, nameMaster)
	case fieldRecovering:
		e.Recovering, err = p.parseBool(at)
	case fieldVertex:
		e.Vertex, err = p.parseName(at, nameVertex)
	case fieldSubtask:
		e.Subtask, err = p.parseInt32(at)
	case fieldParallelism:
		e.Parallelism, err = p.parseInt32(at)
	case fieldAttempt:
		e.Attempt, err = p.parseInt32(at)
	case fieldWorker:
		e.Worker, err = p.parseName(at, nameWorker)
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
		e.Reason, err = p.parseName(at, nameReason)
	case fieldCoordinators:
		e.Coordinators, err = p.parseCoordinators(at)
	case fieldStatus:
		e.Status, err = p.parseName(at, nameStatus)
	}
	return err
}

// parseObject parses an object at the current position, calling member for
// each key with the position at its value.
func (p *jsonParser) parseObject(at *fpath, member func(key []byte) *SyntaxError) *SyntaxError {
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
func (p *jsonParser) parseArray(at *fpath, elem func(ep *fpath) *SyntaxError) *SyntaxError {
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
		err := elem(p.push(fpath{parent: at, index: i}))
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
func (p *jsonParser) members(at *fpath, names []string, member func(i int, fp *fpath) *SyntaxError) *SyntaxError {
	var seen uint32
	return p.parseObject(at, func(key []byte) *SyntaxError {
		for i, n := range names {
			if string(key) != n {
				continue
			}
			fp := p.push(fpath{parent: at, name: n})
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
		return p.fail(&fpath{parent: at, name: string(key)}, "unknown field")
	})
}
