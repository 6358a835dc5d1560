package replay

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/jobevent/jobevent/pkg/format"
)

// MaxEventEdits bounds the edit distance DiffEvents searches for past the
// common prefix and suffix of two logs. Beyond it, the rest of the middle
// is reported as replaced, event by event, rather than aligned; the search
// costs O((N+M)·MaxEventEdits) time and O(MaxEventEdits²) memory.
const MaxEventEdits = 2048

// DiffEvents aligns the events of two logs, ignoring seq and time, and
// reports what one has that the other has not: the longest common
// subsequence of their events (Myers' O(ND) diff over the events'
// canonical JSON). An event deleted and one inserted at the same place,
// of the same kind and subtask, are reported field by field (path `event
// subtask_finished map/0 worker`); others whole (path `event
// subtask_started map/0`, the event's JSON as the value, null on the side
// that lacks it).
//
// DiffEvents holds both logs in memory: it is the one operation allowed
// to. It returns the first error of a or b other than io.EOF.
func DiffEvents(a, b Source) (*DiffResult, error) {
	intern := make(map[string]int)
	ea, ka, err := readKeyed(a, intern)
	if err != nil {
		return nil, fmt.Errorf("replay: diff events: log a: %w", err)
	}
	eb, kb, err := readKeyed(b, intern)
	if err != nil {
		return nil, fmt.Errorf("replay: diff events: log b: %w", err)
	}
	res := &DiffResult{Differences: []Difference{}}
	for _, h := range alignHunks(ka, kb) {
		reportHunk(res, ea[h.a0:h.a1], eb[h.b0:h.b1])
	}
	return res, nil
}

// keyed is an event with its content key.
type keyed struct {
	seq  int64
	kind format.Kind
	ref  string // vertex/subtask, vertex, or ""
	json []byte // canonical JSON without seq and time
}

// readKeyed reads src whole; content keys are interned to ints, shared
// by both logs, for the diff.
func readKeyed(src Source, intern map[string]int) ([]keyed, []int, error) {
	var out []keyed
	var keys []int
	for {
		e, err := src.Next()
		if errors.Is(err, io.EOF) {
			return out, keys, nil
		}
		if err != nil {
			return nil, nil, err
		}
		seq := e.Seq
		e.Seq, e.Time = 0, time.Time{}
		line := format.AppendJSON(nil, &e)
		line = line[:len(line)-1] // the '\n'
		k, ok := intern[string(line)]
		if !ok {
			k = len(intern)
			intern[string(line)] = k
		}
		out = append(out, keyed{seq: seq, kind: e.Kind, ref: eventRef(&e), json: line})
		keys = append(keys, k)
	}
}

func eventRef(e *format.Event) string {
	switch e.Kind {
	case format.KindSubtaskStarted, format.KindSubtaskFinished, format.KindSubtaskFailed:
		return refName(e.Vertex, e.Subtask)
	case format.KindVertexInitialized:
		return e.Vertex
	}
	return ""
}

// reportHunk adds the differences of one hunk: the events a removes and b
// adds at one place.
func reportHunk(res *DiffResult, da, db []keyed) {
	used := make([]bool, len(db))
	for i := range da {
		j := matchInHunk(&da[i], db, used)
		if j < 0 {
			res.Differences = append(res.Differences, Difference{Path: eventPath(&da[i]), A: json.RawMessage(da[i].json), SeqA: da[i].seq})
			continue
		}
		used[j] = true
		fieldDiffs(res, &da[i], &db[j])
	}
	for j := range db {
		if !used[j] {
			res.Differences = append(res.Differences, Difference{Path: eventPath(&db[j]), B: json.RawMessage(db[j].json), SeqB: db[j].seq})
		}
	}
}

func eventPath(e *keyed) string {
	if e.ref == "" {
		return "event " + string(e.kind)
	}
	return "event " + string(e.kind) + " " + e.ref
}

// matchInHunk returns the first unused event of db of the same kind and
// subtask as x, or -1.
func matchInHunk(x *keyed, db []keyed, used []bool) int {
	for j := range db {
		if !used[j] && db[j].kind == x.kind && db[j].ref == x.ref {
			return j
		}
	}
	return -1
}

// fieldDiffs reports the fields in which two events of one kind differ.
func fieldDiffs(res *DiffResult, x, y *keyed) {
	var fx, fy map[string]json.RawMessage
	if json.Unmarshal(x.json, &fx) != nil || json.Unmarshal(y.json, &fy) != nil {
		res.Differences = append(res.Differences, Difference{Path: eventPath(x), A: json.RawMessage(x.json), B: json.RawMessage(y.json), SeqA: x.seq, SeqB: y.seq})
		return
	}
	for _, name := range append([]string{"epoch", "job"}, x.kind.Fields()...) {
		vx, okX := fx[name]
		vy, okY := fy[name]
		if okX == okY && string(vx) == string(vy) {
			continue
		}
		d := Difference{Path: eventPath(x) + " " + name, SeqA: x.seq, SeqB: y.seq}
		if okX {
			d.A = vx
		}
		if okY {
			d.B = vy
		}
		res.Differences = append(res.Differences, d)
	}
}
