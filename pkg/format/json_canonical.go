package format

import "encoding/binary"

// The canonical fast path. Canonical JSONL (AppendJSON) writes every line
// the same way: no white space, and the members in one order, seq, time,
// epoch, kind, job, then the kind's fields in the order of kindFields (an
// empty error and NULL partitions left out). parseCanonical parses a line
// whose members come in that order, any of them missing, and gives up on
// anything else: white space, another order, an unknown or repeated
// member, a value in error, trailing bytes. parseEvent then parses the
// line again from its start with the general parser, so the event or the
// error of every line is the general parser's: the fast path only takes
// lines the general parser decodes to the same event, members in an order
// that cannot repeat one. What it saves is the general parser's work per
// member besides its value: the white space tests, the lookup of the
// member's name, the checks for duplicates and for fields of another
// kind.

// canonicalHead are the members that come before a kind's fields.
var canonicalHead = [...]field{memberSeq, memberTime, memberEpoch, memberKind, memberJob}

// canonicalKeys holds each member's name as a line writes it, in quotes
// and with its colon: at most 16 bytes, which matchKey compares as two
// words.
var canonicalKeys = func() (k [numMembers]canonicalKey) {
	set := func(m field, name string) {
		key := `"` + name + `":`
		if len(key) > 16 {
			panic("format: canonical key " + key + " is longer than 16 bytes")
		}
		var b [16]byte
		copy(b[:], key)
		c := &k[m]
		c.text, c.lo, c.hi = key, binary.LittleEndian.Uint64(b[:8]), binary.LittleEndian.Uint64(b[8:])
		c.loMask, c.hiMask = ^uint64(0), ^uint64(0)
		if len(key) < 8 {
			c.loMask, c.hiMask = 1<<(8*len(key))-1, 0
		} else if len(key) < 16 {
			c.hiMask = 1<<(8*(len(key)-8)) - 1
		}
	}
	for f, name := range fieldNames {
		set(field(f), name)
	}
	set(memberSeq, "seq")
	set(memberTime, "time")
	set(memberEpoch, "epoch")
	set(memberKind, "kind")
	set(memberJob, "job")
	return k
}()

// canonicalKey is a member's key, as text and as the two little-endian
// words of its bytes padded with zeros, with the masks of its bytes.
type canonicalKey struct {
	text           string
	lo, hi         uint64
	loMask, hiMask uint64
}

// matchKey moves past k if the line goes on with it.
func (p *jsonParser) matchKey(k *canonicalKey) bool {
	d := p.data[p.pos:]
	if len(d) < 16 {
		if len(d) > len(k.text) && string(d[:len(k.text)]) == k.text {
			p.pos += len(k.text)
			return true
		}
		return false
	}
	if binary.LittleEndian.Uint64(d)&k.loMask != k.lo || binary.LittleEndian.Uint64(d[8:])&k.hiMask != k.hi {
		return false
	}
	p.pos += len(k.text)
	return true
}

// kindOrder returns the fields of k in canonical order, or false for an
// unknown kind. Like fieldSet, it is a switch rather than a map lookup.
func kindOrder(k Kind) ([]field, bool) {
	switch k {
	case KindJobSubmitted:
		return orderJobSubmitted, true
	case KindMasterStarted:
		return orderMasterStarted, true
	case KindVertexInitialized:
		return orderVertexInitialized, true
	case KindSubtaskStarted:
		return orderSubtaskStarted, true
	case KindSubtaskFinished:
		return orderSubtaskFinished, true
	case KindSubtaskFailed:
		return orderSubtaskFailed, true
	case KindSubtasksReset:
		return orderSubtasksReset, true
	case KindSnapshot:
		return orderSnapshot, true
	case KindJobFinished:
		return orderJobFinished, true
	}
	return nil, false
}

var (
	orderJobSubmitted      = kindFields[KindJobSubmitted]
	orderMasterStarted     = kindFields[KindMasterStarted]
	orderVertexInitialized = kindFields[KindVertexInitialized]
	orderSubtaskStarted    = kindFields[KindSubtaskStarted]
	orderSubtaskFinished   = kindFields[KindSubtaskFinished]
	orderSubtaskFailed     = kindFields[KindSubtaskFailed]
	orderSubtasksReset     = kindFields[KindSubtasksReset]
	orderSnapshot          = kindFields[KindSnapshot]
	orderJobFinished       = kindFields[KindJobFinished]
)

// parseCanonical decodes line into *e, which must be the zero Event, if
// its members come in canonical order (see above); otherwise it returns
// false, leaving *e to be cleared and the line to be parsed again.
func (p *jsonParser) parseCanonical(line []byte, e *Event) (pr presence, ok bool) {
	p.data, p.pos = line, 0
	if !p.at('{') {
		return pr, false
	}
	p.pos++
	var (
		fields []field // the kind's, once kind is parsed
		next   int     // the first member that may come next: an index into canonicalHead, then fields
	)
	for {
		// The member's key: the next in canonical order whose name is
		// here, skipping those the line leaves out.
		m := memberUnknown
		for ; next < len(canonicalHead)+len(fields); next++ {
			var cand field
			if next < len(canonicalHead) {
				cand = canonicalHead[next]
			} else {
				cand = fields[next-len(canonicalHead)]
			}
			if p.matchKey(&canonicalKeys[cand]) {
				m = cand
				next++
				break
			}
			if cand == memberKind {
				return pr, false // a kind's fields cannot come before it
			}
		}
		var err *SyntaxError
		switch m {
		case memberUnknown:
			return pr, false
		case memberSeq:
			e.Seq, err = p.parseInt64(pathSeq)
			pr.seq = true
		case memberTime:
			e.Time, err = p.parseTime(pathTime)
			pr.time = true
		case memberEpoch:
			e.Epoch, err = p.parseInt32(pathEpoch)
			pr.epoch = true
		case memberKind:
			if e.Kind, err = p.parseKind(); err == nil {
				if fields, ok = kindOrder(e.Kind); !ok {
					return pr, false
				}
			}
		case memberJob:
			e.Job, err = p.parseName(pathJob, nameJob)
			pr.job = true
		default:
			err = p.parseField(e, m, fieldPaths[m])
		}
		if err != nil {
			return pr, false
		}
		switch {
		case p.at(','):
			p.pos++
		case p.at('}') && p.pos == len(line)-1 && fields != nil:
			setKindDefaults(e)
			return pr, true
		default:
			return pr, false
		}
	}
}

// parseKind parses the value of kind. It first tries the two kinds of the
// lines before (logs alternate between a few kinds, a subtask's start and
// its end), which need no scan for the string's end.
func (p *jsonParser) parseKind() (Kind, *SyntaxError) {
	for _, k := range p.kinds {
		if p.quoted(string(k)) {
			return k, nil
		}
	}
	b, err := p.parseStringBytes(pathKind)
	if err != nil {
		return "", err
	}
	k := kindNamed(b)
	if _, known := k.fieldSet(); known {
		p.kinds[0], p.kinds[1] = k, p.kinds[0]
	}
	return k, nil
}
