package format

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

var (
	graphKeys     = []string{"vertices", "edges", "ranges", "datasets"}
	vertexKeys    = []string{"id", "operator", "parallelism", "max_parallelism", "coordinator"}
	edgeKeys      = []string{"from", "to", "pattern", "dataset"}
	rangeKeys     = []string{"edge", "subtask", "first", "last"}
	datasetKeys   = []string{"id", "producer"}
	partitionKeys = []string{"consumer", "bytes", "records"}
	subtaskKeys   = []string{"vertex", "subtask"}
)

func (p *jsonParser) parseGraph(at *fpath) (*Graph, *SyntaxError) {
	g := &Graph{}
	err := p.members(at, graphKeys, func(i int, fp *fpath) *SyntaxError {
		switch i {
		case 0:
			return p.parseArray(fp, func(ep *fpath) *SyntaxError {
				v, err := p.parseVertex(ep)
				g.Vertices = append(g.Vertices, v)
				return err
			})
		case 1:
			return p.parseArray(fp, func(ep *fpath) *SyntaxError {
				ed, err := p.parseEdge(ep)
				g.Edges = append(g.Edges, ed)
				return err
			})
		case 2:
			var err *SyntaxError
			g.Ranges, err = p.parseRanges(fp)
			return err
		}
		g.Datasets = []Dataset{}
		return p.parseArray(fp, func(ep *fpath) *SyntaxError {
			var d Dataset
			err := p.members(ep, datasetKeys, func(i int, fp *fpath) (err *SyntaxError) {
				if i == 0 {
					d.ID, err = p.parseString(fp)
				} else {
					d.Producer, err = p.parseString(fp)
				}
				return err
			})
			g.Datasets = append(g.Datasets, d)
			return err
		})
	})
	return g, err
}

func (p *jsonParser) parseRanges(at *fpath) ([]Range, *SyntaxError) {
	rs := []Range{}
	err := p.parseArray(at, func(ep *fpath) *SyntaxError {
		var r Range
		err := p.members(ep, rangeKeys, func(i int, fp *fpath) (err *SyntaxError) {
			switch i {
			case 0:
				r.Edge, err = p.parseInt32(fp)
			case 1:
				r.Subtask, err = p.parseInt32(fp)
			case 2:
				r.First, err = p.parseInt32(fp)
			case 3:
				r.Last, err = p.parseInt32(fp)
			}
			return err
		})
		rs = append(rs, r)
		return err
	})
	return rs, err
}

func (p *jsonParser) parseVertex(at *fpath) (v Vertex, err *SyntaxError) {
	err = p.members(at, vertexKeys, func(i int, fp *fpath) (err *SyntaxError) {
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

func (p *jsonParser) parseEdge(at *fpath) (ed Edge, err *SyntaxError) {
	err = p.members(at, edgeKeys, func(i int, fp *fpath) (err *SyntaxError) {
		switch i {
		case 0:
			ed.From, err = p.parseString(fp)
		case 1:
			ed.To, err = p.parseString(fp)
		case 2:
			ed.Pattern, err = p.parseString(fp)
		case 3:
			ed.Dataset, err = p.parseString(fp)
		}
		return err
	})
	ed.Pattern = patternOrDefault(ed.Pattern)
	return ed, err
}

func (p *jsonParser) parsePartitions(at *fpath) ([]Partition, *SyntaxError) {
	if ps, ok := p.canonicalPartitions(); ok {
		return ps, nil
	}
	ps := []Partition{}
	err := p.parseArray(at, func(ep *fpath) *SyntaxError {
		var pt Partition
		err := p.members(ep, partitionKeys, func(i int, fp *fpath) (err *SyntaxError) {
			switch i {
			case 0:
				pt.Consumer, err = p.parseName(fp, nameConsumer)
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

// canonicalPartitions parses partitions as canonical JSONL writes them,
// [{"consumer":"map","bytes":1,"records":2},...], each member present, in
// that order, and no white space. On anything else it returns false
// with the position unchanged, and parsePartitions parses the array in
// general, which decodes the arrays canonicalPartitions takes to the same
// partitions.
func (p *jsonParser) canonicalPartitions() ([]Partition, bool) {
	start := p.pos
	if !p.at('[') {
		return nil, false
	}
	p.pos++
	parts := p.parts[:0]
	if p.at(']') {
		p.pos++
		return p.keepPartitions(parts), true
	}
	for {
		var pt Partition
		var err *SyntaxError
		ok := p.literal(`{"consumer":`)
		if ok {
			pt.Consumer, err = p.parseName(nil, nameConsumer)
			ok = err == nil && p.literal(`,"bytes":`)
		}
		if ok {
			pt.Bytes, err = p.parseInt64(nil)
			ok = err == nil && p.literal(`,"records":`)
		}
		if ok {
			pt.Records, err = p.parseInt64(nil)
			ok = err == nil && p.literal("}")
		}
		if !ok {
			p.pos, p.parts = start, parts
			return nil, false
		}
		parts = append(parts, pt)
		if p.literal(",") {
			continue
		}
		p.parts = parts
		if !p.literal("]") {
			p.pos = start
			return nil, false
		}
		return p.keepPartitions(parts), true
	}
}

// literal moves past lit if the line goes on with it.
func (p *jsonParser) literal(lit string) bool {
	if len(p.data)-p.pos >= len(lit) && string(p.data[p.pos:p.pos+len(lit)]) == lit {
		p.pos += len(lit)
		return true
	}
	return false
}

// partitionSlab is the number of partitions keepPartitions allocates at a
// time.
const partitionSlab = 256

// keepPartitions returns a copy of parts (not nil, even when empty) cut
// from a slab shared with other events' partitions: one allocation for
// the partitions of many events rather than one per event. Its capacity
// is its length, so that appending to it copies.
func (p *jsonParser) keepPartitions(parts []Partition) []Partition {
	n := len(parts)
	if cap(p.slab)-len(p.slab) < n || p.slab == nil {
		p.slab = make([]Partition, 0, max(partitionSlab, n))
	}
	k := len(p.slab)
	p.slab = append(p.slab, parts...)
	return p.slab[k : k+n : k+n]
}

func (p *jsonParser) parseSubtasks(at *fpath) ([]SubtaskRef, *SyntaxError) {
	var rs []SubtaskRef
	err := p.parseArray(at, func(ep *fpath) *SyntaxError {
		var r SubtaskRef
		err := p.members(ep, subtaskKeys, func(i int, fp *fpath) (err *SyntaxError) {
			if i == 0 {
				r.Vertex, err = p.parseName(fp, nameSubtaskVertex)
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

func (p *jsonParser) parseCoordinators(at *fpath) (map[string][]byte, *SyntaxError) {
	m := map[string][]byte{}
	err := p.parseObject(at, func(key []byte) *SyntaxError {
		fp := &fpath{parent: at, name: string(key)}
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

func (p *jsonParser) parseBool(at *fpath) (bool, *SyntaxError) {
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

func (p *jsonParser) parseInt32(at *fpath) (int32, *SyntaxError) {
	v, err := p.parseInt64(at)
	if err != nil {
		return 0, err
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, p.fail(at, "want 32-bit integer, got %d", v)
	}
	return int32(v), nil
}

var errIntRange = errors.New("integer out of range")

// parseInt64 parses a JSON number that must be an integer.
func (p *jsonParser) parseInt64(at *fpath) (int64, *SyntaxError) {
	if v, n := leadingDigits(p.data[p.pos:]); n > 0 {
		p.pos += n
		return v, nil
	}
	return p.parseInt64Slow(at)
}

// leadingDigits parses the non-negative integer of 1 to 8 digits that d
// starts with, when d holds at least 9 bytes and the byte after the
// digits ends the number (not a digit, '.', 'e' or 'E') and there is no
// leading zero; otherwise it returns n = 0. It tests and converts the
// eight bytes at once (SWAR).
func leadingDigits(d []byte) (v int64, n int) {
	if len(d) < 9 {
		return 0, 0
	}
	w := binary.LittleEndian.Uint64(d)
	t := w - 0x3030303030303030 // each digit's value, or a byte above 9 (with a borrow, anything)
	// A byte that is not a digit has its high bit set in t|(t+0x76): t
	// wrapped below zero, or t+0x76 reached 0x80 for t above 9. Bytes
	// after the first non-digit may be wrong, which does not matter.
	nondigit := (t | (t + 0x7676767676767676)) & 0x8080808080808080
	n = bits.TrailingZeros64(nondigit) / 8 // 8 when all eight are digits
	if n == 0 {
		return 0, 0
	}
	if c := d[n]; c == '.' || c == 'e' || c == 'E' || (c >= '0' && c <= '9') || (d[0] == '0' && n > 1) {
		return 0, 0
	}
	// The n digits, the first most significant, moved to the top bytes,
	// then combined in pairs, fours and eights.
	t <<= 8 * (8 - n)
	t = (t*10 + t>>8) & 0x00ff00ff00ff00ff
	t = (t*100 + t>>16) & 0x0000ffff0000ffff
	t = (t*10000 + t>>32) & 0xffffffff
	return int64(t), n
}

func (p *jsonParser) parseInt64Slow(at *fpath) (int64, *SyntaxError) {
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
		return 0, p.fail(at, "want integer, got %s: %w", d[start:i], errIntRange)
	}
	return v, nil
}

func (p *jsonParser) parseTime(at *fpath) (time.Time, *SyntaxError) {
	// A canonical time is 30 bytes between quotes, none of which a
	// string escapes: canonicalTime checks every one.
	if d, i := p.data, p.pos; len(d)-i >= 32 && d[i] == '"' && d[i+31] == '"' {
		if t, ok := p.canonicalTime(d[i+1 : i+31]); ok {
			p.pos = i + 32
			return t, nil
		}
	}
	s, err := p.parseStringBytes(at)
	if err != nil {
		return time.Time{}, err
	}
	if t, ok := p.canonicalTime(s); ok {
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

// canonicalTime is canonicalTime with the last second parsed remembered:
// times of nearby lines mostly fall in the same second, whose date and
// clock then need no parsing.
func (p *jsonParser) canonicalTime(s []byte) (time.Time, bool) {
	if len(s) == len("2006-01-02T15:04:05.000000000Z") && p.secValid && string(s[:19]) == string(p.secText[:]) && s[19] == '.' && s[29] == 'Z' {
		nsec := 0
		for _, c := range s[20:29] {
			if c < '0' || c > '9' {
				return canonicalTime(s)
			}
			nsec = nsec*10 + int(c-'0')
		}
		return time.Unix(p.secUnix, int64(nsec)).UTC(), true
	}
	t, ok := canonicalTime(s)
	if ok {
		copy(p.secText[:], s)
		p.secUnix, p.secValid = t.Unix(), true
	}
	return t, ok
}

// canonicalTime parses the time form that canonical JSONL writes,
// 2006-01-02T15:04:05.000000000Z, with every field in range; for anything
// else it returns false and the caller parses s with time.Parse, which
// gives the same time for what canonicalTime accepts.
func canonicalTime(s []byte) (time.Time, bool) {
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
		month < 1 || month > 12 || day < 1 || day > daysIn(time.Month(month), year) ||
		hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC), true
}

// daysIn returns the number of days of month in year (proleptic Gregorian).
func daysIn(month time.Month, year int) int {
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

func (p *jsonParser) parseString(at *fpath) (string, *SyntaxError) {
	b, err := p.parseStringBytes(at)
	return string(b), err
}

// parseStringBytes parses a JSON string. The result aliases the line or the
// scratch buffer and is valid until the next call.
func (p *jsonParser) parseStringBytes(at *fpath) ([]byte, *SyntaxError) {
	d := p.data
	if p.pos < len(d) && d[p.pos] == '"' {
		start := p.pos + 1
		i := plainPrefix(d, start)
		if i < len(d) && d[i] == '"' {
			p.pos = i + 1
			return d[start:i], nil
		}
	}
	return p.parseStringSlow(at)
}

// plainPrefix returns the index of the first byte of d at or after i that
// ends the plain run of a string (a quote, a backslash, a control
// character or a non-ASCII byte), or len(d). (Testing eight bytes at a
// time was slower: the strings of events are short.)
func plainPrefix(d []byte, i int) int {
	for i < len(d) && plainByte[d[i]] {
		i++
	}
	return i
}

// plainByte reports whether a byte may be copied as it is from a string.
var plainByte = func() (t [256]bool) {
	for c := range t {
		t[c] = c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\\'
	}
	return t
}()

// parseStringSlow is parseStringBytes for strings with escapes, control
// characters or non-ASCII bytes, and for errors.
func (p *jsonParser) parseStringSlow(at *fpath) ([]byte, *SyntaxError) {
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
func (p *jsonParser) unescape(d []byte, i int, at *fpath) (int, *SyntaxError) {
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
		r, ok := hex4(d, i+2)
		if !ok {
			return 0, p.fail(at, "invalid \\u escape in string")
		}
		n := i + 6
		if utf16.IsSurrogate(r) {
			r2, ok2 := rune(0), false
			if n+1 < len(d) && d[n] == '\\' && d[n+1] == 'u' {
				r2, ok2 = hex4(d, n+2)
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

func hex4(d []byte, i int) (rune, bool) {
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
