package runtime

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/parser"

	"github.com/jobevent/jobevent/pkg/format"
)

// ErrSpec is wrapped by every error of a job spec: errors.Is(err, ErrSpec)
// tells bad input from I/O failures.
var ErrSpec = errors.New("jobevent/runtime: invalid job spec")

// maxKeyGroups bounds max_parallelism, as Flink's 32768.
const maxKeyGroups = 1 << 15

// Spec is a parsed and validated job spec. Relative paths in it are
// relative to the spec file's directory once the job is submitted
// (LoadSubmission, ResolvePaths).
//
//	job: wordcount
//	vertices:
//	  - id: source
//	    operator: text
//	    args: {input: ../text, split_size: 4k}
//	    parallelism: 3
//	  - id: count
//	    operator: count
//	    parallelism: auto
//	    max_parallelism: 8
//	edges:
//	  - {from: source, to: count, pattern: all_to_all}
//	settings:
//	  execution.batch.job-recovery.snapshot.min-pause: 0s
type Spec struct {
	Job      string
	Vertices []VertexSpec
	Edges    []EdgeSpec
	Settings Settings
	// Raw is the spec as written; it is stored in the log as job.yaml.
	Raw []byte
	// File names the spec in error messages.
	File string
	// Submission is what the log records beside the spec at submission
	// (the submission section of its job.yaml); zero for a spec file.
	Submission Submission
	// submissionLine is the line of the submission section, 0 when there
	// is none.
	submissionLine int

	edgeLines []int
	// unitless is the error of the first duration setting written
	// without a unit: LoadSpec refuses the spec with it, ParseSpec (which
	// also reads the job.yaml of logs written before) does not.
	unitless error
}

// VertexSpec is one vertex of a spec.
type VertexSpec struct {
	ID       string
	Operator string
	Args     Args
	// Parallelism is the fixed parallelism, or 0 for auto.
	Parallelism    int32
	MaxParallelism int32
	// Coordinator is the coordinator kind recorded in job_submitted:
	// CoordinatorNone for transforms, and for sources what the source's
	// enumerator really supports, downgraded to no_batch_snapshot when
	// the spec says so.
	Coordinator string
	// Line is the line of the vertex in the spec, for messages.
	Line int

	op Operator
}

// EdgeSpec is one edge of a spec.
type EdgeSpec struct {
	From, To, Pattern string
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$`)

// LoadSpec reads and parses the spec file at path, the spec of a job to
// submit: a duration setting written as a bare number ("heartbeat.interval:
// 2") is refused, naming its unit, where ParseSpec would take it as
// milliseconds.
func LoadSpec(path string) (*Spec, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read job spec: %w", err)
	}
	defer f.Close()
	// One byte more than the limit is enough for ParseSpec to refuse it.
	data, err := io.ReadAll(io.LimitReader(f, MaxSpecBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read job spec: %w", err)
	}
	spec, err := ParseSpec(filepath.Base(path), data)
	if err != nil {
		return nil, err
	}
	if spec.unitless != nil {
		return nil, spec.unitless
	}
	return spec, nil
}

// ParseSpec parses and validates a spec. name is used in error messages
// ("wordcount.yaml:7: vertices[1].parallelism: want a number or "auto"").
// A spec larger than MaxSpecBytes or nesting deeper than MaxSpecDepth is
// refused before it is parsed.
func ParseSpec(name string, data []byte) (*Spec, error) {
	if err := checkSpecShape(name, data); err != nil {
		return nil, err
	}
	file, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, yamlSyntaxError(name, err)
	}
	if len(file.Docs) != 1 || file.Docs[0].Body == nil {
		return nil, &specError{File: name, Msg: "want one YAML document with job, vertices and edges"}
	}
	s := &Spec{Raw: append([]byte(nil), data...), File: name, Settings: DefaultSettings()}
	root := yamlField{file: name, node: file.Docs[0].Body}
	if err := s.decode(root); err != nil {
		return nil, err
	}
	if err := s.validateGraph(); err != nil {
		return nil, err
	}
	if err := s.checkLimits(); err != nil {
		return nil, err
	}
	return s, nil
}

type yamlSyntax = yaml.SyntaxError

func yamlSyntaxError(name string, err error) error {
	var se *yamlSyntax
	if errors.As(err, &se) && se.Token != nil && se.Token.Position != nil {
		return &specError{File: name, Line: se.Token.Position.Line, Msg: se.Message}
	}
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return &specError{File: name, Msg: msg}
}

func (s *Spec) decode(root yamlField) error {
	keys, vals, err := root.mapping()
	if err != nil {
		return err
	}
	var sawJob, sawVertices bool
	for i, k := range keys {
		f := vals[i]
		switch k {
		case "job":
			sawJob = true
			if s.Job, err = f.str(); err != nil {
				return err
			}
			if !nameRE.MatchString(s.Job) {
				return f.errorf("want a name of letters, digits, '_', '.' and '-' (at most 128), got %q", s.Job)
			}
		case "vertices":
			sawVertices = true
			if err := s.decodeVertices(f); err != nil {
				return err
			}
		case "edges":
			if err := s.decodeEdges(f); err != nil {
				return err
			}
		case "settings":
			if err := s.decodeSettings(f); err != nil {
				return err
			}
		case "submission":
			s.submissionLine = max(f.line(), 1)
			if err := s.decodeSubmission(f); err != nil {
				return err
			}
		default:
			return f.errorf("unknown field (want job, vertices, edges, settings)")
		}
	}
	switch {
	case !sawJob:
		return root.child("job", nil).errorf("missing")
	case !sawVertices || len(s.Vertices) == 0:
		return root.child("vertices", nil).errorf("want at least one vertex")
	}
	return s.finishVertices()
}

func (s *Spec) decodeVertices(f yamlField) error {
	items, err := f.sequence()
	if err != nil {
		return err
	}
	for _, item := range items {
		v, err := decodeVertex(item)
		if err != nil {
			return err
		}
		s.Vertices = append(s.Vertices, v)
	}
	return nil
}

func decodeVertex(item yamlField) (VertexSpec, error) {
	v := VertexSpec{Line: item.line()}
	keys, vals, err := item.mapping()
	if err != nil {
		return v, err
	}
	auto := false
	for i, k := range keys {
		f := vals[i]
		switch k {
		case "id":
			if v.ID, err = f.str(); err != nil {
				return v, err
			}
			if !nameRE.MatchString(v.ID) {
				return v, f.errorf("want an id of letters, digits, '_', '.' and '-', got %q", v.ID)
			}
		case "operator":
			if v.Operator, err = f.str(); err != nil {
				return v, err
			}
		case "args":
			raw, err := f.value()
			if err != nil {
				return v, err
			}
			m, ok := raw.(map[string]any)
			if raw != nil && !ok {
				return v, f.errorf("want a mapping of arguments")
			}
			v.Args = Args(m)
		case "parallelism":
			if s, serr := f.str(); serr == nil && s == "auto" {
				auto = true
				continue
			}
			n, err := f.integer()
			if err != nil || n < 1 || n > maxKeyGroups {
				return v, f.errorf("want a number (1 to %d) or \"auto\"", maxKeyGroups)
			}
			v.Parallelism = int32(n)
		case "max_parallelism":
			n, err := f.integer()
			if err != nil || n < 1 || n > maxKeyGroups {
				return v, f.errorf("want a number from 1 to %d", maxKeyGroups)
			}
			v.MaxParallelism = int32(n)
		case "coordinator":
			if v.Coordinator, err = f.str(); err != nil {
				return v, err
			}
			if v.Coordinator != format.CoordinatorBatchSnapshot && v.Coordinator != format.CoordinatorNoBatchSnapshot {
				return v, f.errorf("want %s or %s, got %q", format.CoordinatorBatchSnapshot, format.CoordinatorNoBatchSnapshot, v.Coordinator)
			}
		default:
			return v, f.errorf("unknown field (want id, operator, args, parallelism, max_parallelism, coordinator)")
		}
	}
	switch {
	case v.ID == "":
		return v, item.child("id", nil).errorf("missing")
	case v.Operator == "":
		return v, item.child("operator", nil).errorf("missing")
	case v.Parallelism == 0 && !auto:
		return v, item.child("parallelism", nil).errorf("missing (want a number or \"auto\")")
	case v.Parallelism > 0 && v.MaxParallelism > 0 && v.MaxParallelism < v.Parallelism:
		return v, item.child("max_parallelism", nil).errorf("%d is below parallelism %d", v.MaxParallelism, v.Parallelism)
	}
	factory, ok := lookupOperator(v.Operator)
	if !ok {
		return v, item.child("operator", nil).errorf("unknown operator %q (known: %s)", v.Operator, strings.Join(Operators(), ", "))
	}
	if v.Args == nil {
		v.Args = Args{}
	}
	op, err := factory(v.Args)
	if err != nil {
		return v, &specError{File: item.file, Line: v.Line, Field: item.path, Msg: fmt.Sprintf("operator %s: %v", v.Operator, err)}
	}
	v.op = op
	return v, nil
}

// finishVertices checks what needs every vertex: unique ids, defaults that
// depend on the settings, and the coordinator of each source.
func (s *Spec) finishVertices() error {
	seen := map[string]bool{}
	for i := range s.Vertices {
		v := &s.Vertices[i]
		f := yamlField{file: s.File, path: fmt.Sprintf("vertices[%d]", i)}
		lineErr := func(field, format string, args ...any) error {
			return &specError{File: s.File, Line: v.Line, Field: f.path + field, Msg: fmt.Sprintf(format, args...)}
		}
		if seen[v.ID] {
			return lineErr(".id", "duplicate vertex id %q", v.ID)
		}
		seen[v.ID] = true
		if v.MaxParallelism == 0 {
			v.MaxParallelism = v.Parallelism
			if v.Parallelism == 0 {
				v.MaxParallelism = s.Settings.DefaultMaxParallelism
			}
		}
		src, isSource := v.op.(Source)
		if !isSource {
			if v.Coordinator != "" {
				return lineErr(".coordinator", "only sources have a coordinator; %s is not a source", v.Operator)
			}
			v.Coordinator = format.CoordinatorNone
			continue
		}
		if v.Parallelism == 0 {
			return lineErr(".parallelism", "a source needs a fixed parallelism, not auto")
		}
		kind, err := sourceCoordinator(src, int(v.Parallelism))
		if err != nil {
			return lineErr("", "operator %s: %v", v.Operator, err)
		}
		switch {
		case v.Coordinator == format.CoordinatorBatchSnapshot && kind != format.CoordinatorBatchSnapshot:
			return lineErr(".coordinator", "source %s cannot snapshot its split assignment: only no_batch_snapshot is possible", v.Operator)
		case v.Coordinator == format.CoordinatorNoBatchSnapshot:
			// A downgrade, for drills and to rehearse legacy sources.
		default:
			v.Coordinator = kind
		}
	}
	return nil
}

// sourceCoordinator says what kind of coordinator a source really has.
func sourceCoordinator(src Source, parallelism int) (string, error) {
	enum, err := src.NewEnumerator(parallelism)
	if err != nil {
		return "", err
	}
	if _, ok := enum.(BatchSnapshotter); ok {
		return format.CoordinatorBatchSnapshot, nil
	}
	return format.CoordinatorNoBatchSnapshot, nil
}

func (s *Spec) decodeEdges(f yamlField) error {
	items, err := f.sequence()
	if err != nil {
		return err
	}
	for _, item := range items {
		keys, vals, err := item.mapping()
		if err != nil {
			return err
		}
		var e EdgeSpec
		for i, k := range keys {
			var dst *string
			switch k {
			case "from":
				dst = &e.From
			case "to":
				dst = &e.To
			case "pattern":
				dst = &e.Pattern
			default:
				return vals[i].errorf("unknown field (want from, to, pattern)")
			}
			if *dst, err = vals[i].str(); err != nil {
				return err
			}
		}
		for _, req := range []struct{ name, v string }{{"from", e.From}, {"to", e.To}, {"pattern", e.Pattern}} {
			if req.v == "" {
				return &specError{File: s.File, Line: item.line(), Field: item.path + "." + req.name, Msg: "missing"}
			}
		}
		if e.Pattern != format.PatternPointwise && e.Pattern != format.PatternAllToAll {
			return &specError{File: s.File, Line: item.line(), Field: item.path + ".pattern",
				Msg: fmt.Sprintf("want %s or %s, got %q", format.PatternPointwise, format.PatternAllToAll, e.Pattern)}
		}
		s.Edges = append(s.Edges, e)
		s.edgeLines = append(s.edgeLines, item.line())
	}
	return nil
}

func (s *Spec) decodeSettings(f yamlField) error {
	keys, vals, err := f.mapping()
	if err != nil {
		return err
	}
	for i, k := range keys {
		v, err := vals[i].str()
		if err != nil {
			return err
		}
		if err := s.Settings.Set(k, v); err != nil {
			return vals[i].errorf("%v", err)
		}
		if err := unitlessDuration(k, v); err != nil && s.unitless == nil {
			s.unitless = vals[i].errorf("%v", err)
		}
	}
	return nil
}
