package replay

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// WritePlanJSON writes p to w with the bytes encoding/json writes for it
// (indented by two spaces, then a newline), streamed through
// a buffer instead of built whole and then indented: the plan of a job of
// a million subtasks is over 100 MB of JSON. A vertex or subtask row whose
// vertex has a name in names (a Flink log's, from its plan) gets a "name"
// after its "vertex"; the others have none. It is the one writer of a
// plan's JSON.
func WritePlanJSON(w io.Writer, p *RecoveryPlan, names map[string]string) error {
	if p.Subtasks == nil {
		return writePlanJSON(w, p, names, nil)
	}
	return writePlanJSON(w, p, names, func(j *planJSON) Summary {
		return j.rows(func(row func(*SubtaskPlan)) Summary {
			for k := range p.Subtasks {
				row(&p.Subtasks[k])
			}
			return p.Summary
		})
	})
}

// writePlanJSON writes the plan whose head is p (all but its subtask rows
// and summary) with the subtasks array that rows writes to j and the
// summary it returns; a nil rows writes "subtasks": null and p's summary.
func writePlanJSON(w io.Writer, p *RecoveryPlan, names map[string]string, rows func(j *planJSON) Summary) error {
	j := planJSON{out: planOut{w: w}, buf: make([]byte, 0, planJSONBuffer+4<<10), names: names}
	j.raw("{\n  \"job\": ")
	j.str(p.Job)
	j.raw(",\n  \"last_seq\": ")
	j.int(p.LastSeq)
	j.raw(",\n  \"epoch\": ")
	j.int(int64(p.Epoch))
	j.raw(",\n  \"vertices\": ")
	planArray(&j, p.Vertices, j.vertex)
	j.raw(",\n  \"subtasks\": ")
	sum := p.Summary
	if rows == nil {
		j.raw("null")
	} else {
		sum = rows(&j)
	}
	j.raw(",\n  \"summary\": {\n    \"keep\": ")
	j.int(int64(sum.Keep))
	j.raw(",\n    \"rerun\": ")
	j.int(int64(sum.Rerun))
	j.raw(",\n    \"run\": ")
	j.int(int64(sum.Run))
	j.raw("\n  }")
	if p.Ended != "" {
		j.raw(",\n  \"ended\": ")
		j.str(p.Ended)
	}
	if p.FullRestart != "" {
		j.raw(",\n  \"full_restart\": ")
		j.str(p.FullRestart)
	}
	j.raw("\n}\n")
	if err := j.out.close(j.buf); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	return nil
}

// rows writes a subtasks array of the rows that each hands to its
// argument, in order, and returns the summary each returns.
func (j *planJSON) rows(each func(row func(*SubtaskPlan)) Summary) Summary {
	k := 0
	sum := each(func(s *SubtaskPlan) {
		j.open(k)
		j.subtask(s)
		if len(j.buf) >= planJSONBuffer {
			j.flush()
		}
		k++
	})
	j.endArray(k)
	return sum
}

// endArray ends an array of n objects opened with open.
func (j *planJSON) endArray(n int) {
	if n == 0 {
		j.raw("[]")
	} else {
		j.raw("\n  ]")
	}
}

// planJSON writes the parts of a plan's JSON through a buffer to out.
type planJSON struct {
	out planOut
	buf []byte

	// The last vertex id written and its encoding, with its name when it
	// has one: the rows of a plan repeat it.
	vertexID  string
	vertexEnc []byte

	names map[string]string // vertex names, or nil
}

// vertexKey writes a row's vertex id, and its name when it has one.
func (j *planJSON) vertexKey(id string) {
	if id != j.vertexID || j.vertexEnc == nil {
		j.vertexID, j.vertexEnc = id, appendJSONString(nil, id)
		if n := j.names[id]; n != "" {
			j.vertexEnc = appendJSONString(append(j.vertexEnc, ",\n      \"name\": "...), n)
		}
	}
	j.buf = append(j.buf, j.vertexEnc...)
}

// planJSONBuffer is how many bytes planJSON gathers before a write.
const planJSONBuffer = 64 << 10

// planArray writes xs as a member array of the plan (null when nil), each
// element with elem.
func planArray[T any](j *planJSON, xs []T, elem func(*T)) {
	switch {
	case xs == nil:
		j.raw("null")
	case len(xs) == 0:
		j.raw("[]")
	default:
		for k := range xs {
			j.open(k)
			elem(&xs[k])
		}
		j.raw("\n  ]")
	}
}

// open starts element k of an array of objects whose first key is
// "vertex" (vertices and subtasks), up to that key's value.
func (j *planJSON) open(k int) {
	if k == 0 {
		j.raw("[\n    {\n      \"vertex\": ")
	} else {
		j.raw(",\n    {\n      \"vertex\": ")
	}
}

// vertex writes the rest of a vertex's object: the fields of
// VertexPlan.MarshalJSON after "vertex".
func (j *planJSON) vertex(v *VertexPlan) {
	j.vertexKey(v.Vertex)
	j.raw(",\n      \"parallelism\": ")
	if v.Initialized {
		j.int(int64(v.Parallelism))
	} else {
		j.raw("null")
	}
	j.raw(",\n      \"initialized\": ")
	j.bool(v.Initialized)
	j.raw(",\n      \"deferred\": ")
	j.bool(v.Deferred)
	j.raw("\n    }")
}

// subtask writes the rest of a subtask's object, after "vertex". The
// keys and the constant values around them are written in as few appends
// as they can be: a large plan has millions of rows.
func (j *planJSON) subtask(s *SubtaskPlan) {
	j.vertexKey(s.Vertex)
	j.raw(",\n      \"subtask\": ")
	j.int(int64(s.Subtask))
	switch s.Decision {
	case DecisionKeep:
		j.raw(",\n      \"decision\": \"keep\",\n      \"attempt\": ")
	case DecisionRerun:
		j.raw(",\n      \"decision\": \"rerun\",\n      \"attempt\": ")
	case DecisionRun:
		j.raw(",\n      \"decision\": \"run\",\n      \"attempt\": ")
	default:
		j.raw(",\n      \"decision\": ")
		j.str(string(s.Decision))
		j.raw(",\n      \"attempt\": ")
	}
	j.int(int64(s.Attempt))
	switch {
	case s.Reasons == nil:
		j.raw(",\n      \"reasons\": null\n    }")
	case len(s.Reasons) == 0:
		j.raw(",\n      \"reasons\": []\n    }")
	default:
		for k, r := range s.Reasons {
			if k == 0 {
				j.raw(",\n      \"reasons\": [\n        ")
			} else {
				j.raw(",\n        ")
			}
			j.str(r)
		}
		j.raw("\n      ]\n    }")
	}
}

// flush hands the buffer to out and goes on with an empty one.
func (j *planJSON) flush() {
	if len(j.buf) > 0 {
		j.buf = j.out.write(j.buf)
	}
}

// planOut writes a plan's JSON to w, the buffers after the first on a
// goroutine of its own: the next rows of a large plan are written into
// one buffer while the last ones are written out of another, on a second
// core (a write to a file or pipe costs about a third of formatting the
// rows). It keeps the first error; once there is one, it writes no more.
type planOut struct {
	w    io.Writer
	full chan []byte   // buffers to write, in order; nil until the first
	free chan []byte   // written buffers, to fill again
	done chan struct{} // closed when the writing goroutine ends
	err  error         // the first write error: read once done is closed
}

// planOutBuffers is how many buffers a planOut writes at once or has
// filled, waiting to be written, beside the one being filled.
const planOutBuffers = 2

// write hands the full buffer b to be written and returns an empty one to
// fill next.
func (o *planOut) write(b []byte) []byte {
	if o.full == nil {
		o.full = make(chan []byte, planOutBuffers)
		o.free = make(chan []byte, planOutBuffers+1)
		o.done = make(chan struct{})
		for range planOutBuffers {
			o.free <- make([]byte, 0, cap(b))
		}
		go o.run()
	}
	o.full <- b
	return <-o.free
}

// run writes the buffers handed to write, in order.
func (o *planOut) run() {
	defer close(o.done)
	for b := range o.full {
		if o.err == nil {
			_, o.err = o.w.Write(b)
		}
		o.free <- b[:0]
	}
}

// close writes b, the last buffer, after those handed to write, and
// returns the first write error.
func (o *planOut) close(b []byte) error {
	if o.full == nil { // a small plan: all of it is in b
		if len(b) == 0 {
			return nil
		}
		_, err := o.w.Write(b)
		return err
	}
	o.full <- b
	close(o.full)
	<-o.done
	return o.err
}

func (j *planJSON) raw(s string) { j.buf = append(j.buf, s...) }

func (j *planJSON) int(n int64) { j.buf = strconv.AppendInt(j.buf, n, 10) }

func (j *planJSON) bool(b bool) { j.buf = strconv.AppendBool(j.buf, b) }

// str writes s as a JSON string, escaped as encoding/json escapes it.
func (j *planJSON) str(s string) { j.buf = appendJSONString(j.buf, s) }

// appendJSONString appends s as encoding/json writes it.
func appendJSONString(b []byte, s string) []byte {
	if plainJSON(s) {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	enc, _ := json.Marshal(s) // a string always marshals
	return append(b, enc...)
}

// plainJSON reports whether encoding/json writes s between quotes as it
// is: printable ASCII without a quote, a backslash, or the <, > and & it
// escapes by default.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c > 0x7e, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}
