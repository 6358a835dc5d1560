package format

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
// and with its colon.
var canonicalKeys = func() (k [numMembers]string) {
	for f, name := range fieldNames {
		k[f] = `"` + name + `":`
	}
	k[memberSeq], k[memberTime], k[memberEpoch] = `"seq":`, `"time":`, `"epoch":`
	k[memberKind], k[memberJob] = `"kind":`, `"job":`
	return k
}()

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
			cand := memberJob
			if next < len(canonicalHead) {
				cand = canonicalHead[next]
			} else {
				cand = fields[next-len(canonicalHead)]
			}
			if key := canonicalKeys[cand]; len(line)-p.pos > len(key) && string(line[p.pos:p.pos+len(key)]) == key {
				p.pos += len(key)
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
			var b []byte
			if b, err = p.parseStringBytes(pathKind); err == nil {
				e.Kind = kindNamed(b)
				fields, ok = kindOrder(e.Kind)
				if !ok {
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
