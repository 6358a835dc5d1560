package serve

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/jobevent/jobevent/pkg/blob"
)

// A job's id (the README's "jobevent serve" section) is its log's prefix relative to its ROOT
// without the trailing slash, percent-encoded as one path segment
// ("jobs%2Fwordcount"); with several ROOTs the ROOT's index (from 0) and
// a colon come first ("1:jobs%2Fwordcount"). A log at the ROOT itself is
// ".". Only prefixes below a ROOT can be named: an id is resolved by
// appending it to the ROOT's bucket, and an id with an empty, "." or ".."
// segment, a backslash or a control character names nothing.

// job is a resolved id: the log argument every answer opens.
type job struct {
	id  string // as the API lists it, percent-encoded
	arg string // the log's URL
}

// jobID returns the id of the log sum of root i.
func (s *Server) jobID(i int, sum *blob.Summary) string {
	rel := strings.TrimSuffix(strings.TrimPrefix(sum.Prefix, s.roots[i].bucket.Prefix()), "/")
	if rel == "" {
		rel = "."
	}
	return s.encode(i, rel)
}

// resolve returns the job named by id, decoded (a path value), or false
// when it names nothing a ROOT holds.
func (s *Server) resolve(id string) (*job, bool) {
	i := 0
	if len(s.roots) > 1 {
		n, rest, ok := strings.Cut(id, ":")
		if !ok {
			return nil, false
		}
		var err error
		if i, err = strconv.Atoi(n); err != nil || i < 0 || i >= len(s.roots) || n != strconv.Itoa(i) {
			return nil, false
		}
		id = rest
	}
	b := s.roots[i].bucket
	if id == "." {
		return &job{id: s.encode(i, id), arg: b.URL()}, true
	}
	if !validRel(id) {
		return nil, false
	}
	return &job{id: s.encode(i, id), arg: b.Sub(id + "/").URL()}, true
}

func (s *Server) encode(i int, rel string) string {
	id := url.PathEscape(rel)
	if len(s.roots) > 1 {
		id = strconv.Itoa(i) + ":" + id
	}
	return id
}

// validRel reports whether rel is a relative prefix without the trailing
// slash that stays below its ROOT.
func validRel(rel string) bool {
	if rel == "" || strings.ContainsAny(rel, "\\?#") {
		return false
	}
	for _, r := range rel {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	for _, seg := range strings.Split(rel, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}
