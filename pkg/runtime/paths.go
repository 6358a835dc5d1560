package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/goccy/go-yaml/parser"
)

// PathArgs is implemented by operators whose arguments name a location: a
// bucket URL or a local directory. A relative local path in such an
// argument is resolved against the spec file's directory when the job is
// submitted (Spec.ResolvePaths), so that the job.yaml stored in the log
// names the same place from any working directory or machine.
type PathArgs interface {
	// PathArgs returns the names of the arguments that hold an input
	// location and those that hold an output location.
	PathArgs() (inputs, outputs []string)
}

// LoadSubmission reads the spec file at path, as LoadSpec does, and
// resolves the relative local paths of its inputs and outputs against the
// file's directory (ResolvePaths): the spec of a job being submitted.
func LoadSubmission(path string) (*Spec, error) {
	spec, err := LoadSpec(path)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("read job spec: %w", err)
	}
	if err := spec.ResolvePaths(filepath.Dir(abs)); err != nil {
		return nil, err
	}
	return spec, nil
}

// ResolvePaths makes every relative local path among the spec's input and
// output arguments (PathArgs) absolute, against dir, in the vertices and in
// Raw (the job.yaml stored in the log); the rest of Raw, comments
// included, is kept as written. Bucket URLs (with "://") and absolute paths
// are left alone.
func (s *Spec) ResolvePaths(dir string) error { return s.resolve(dir, true) }

// ResolveInputs is ResolvePaths for the input arguments only: outputs stay
// relative (a drill gives each run a directory of its own to write them
// in).
func (s *Spec) ResolveInputs(dir string) error { return s.resolve(dir, false) }

func (s *Spec) resolve(dir string, outputs bool) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("resolve the paths of %s: %w", s.File, err)
	}
	raw := s.Raw
	for i := range s.Vertices {
		v := &s.Vertices[i]
		pa, ok := v.op.(PathArgs)
		if !ok {
			continue
		}
		ins, outs := pa.PathArgs()
		names := ins
		if outputs {
			names = append(append([]string(nil), ins...), outs...)
		}
		changed := false
		for _, name := range names {
			p, ok := v.Args[name].(string)
			if !ok || !isRelativePath(p) {
				continue
			}
			abs := filepath.Join(dir, filepath.FromSlash(p))
			var err error
			if raw, err = replaceArg(s.File, raw, i, name, abs); err != nil {
				return err
			}
			v.Args[name] = abs
			changed = true
		}
		if changed {
			factory, _ := lookupOperator(v.Operator)
			op, err := factory(v.Args)
			if err != nil {
				return &specError{File: s.File, Line: v.Line, Field: fmt.Sprintf("vertices[%d]", i), Msg: fmt.Sprintf("operator %s: %v", v.Operator, err)}
			}
			v.op = op
		}
	}
	s.Raw = raw
	return nil
}

// isRelativePath reports whether p is a relative local path (not a URL).
func isRelativePath(p string) bool {
	return p != "" && !strings.Contains(p, "://") && !filepath.IsAbs(p)
}

// replaceArg returns raw with the scalar of vertices[vertex].args.name
// replaced by value, as a double-quoted YAML string. The scalar is found by
// its line and column in the parsed spec and checked against the text.
func replaceArg(file string, raw []byte, vertex int, name, value string) ([]byte, error) {
	fail := func(why string) error {
		return &specError{File: file, Field: fmt.Sprintf("vertices[%d].args.%s", vertex, name), Msg: "cannot rewrite the path to " + value + ": " + why}
	}
	f, err := parser.ParseBytes(raw, 0)
	if err != nil || len(f.Docs) != 1 {
		return nil, fail("the spec does not parse")
	}
	root := yamlField{file: file, node: f.Docs[0].Body}
	node, err := lookupPath(root, "vertices", vertex, "args", name)
	if err != nil {
		return nil, fail(err.Error())
	}
	tok := unwrapNode(node.node).GetToken()
	if tok == nil || tok.Position == nil {
		return nil, fail("no position")
	}
	lines := bytes.SplitAfter(raw, []byte("\n"))
	ln, col := tok.Position.Line-1, tok.Position.Column-1
	if ln < 0 || ln >= len(lines) || col < 0 || col > len(lines[ln]) {
		return nil, fail("position out of range")
	}
	line := lines[ln]
	end, ok := scalarEnd(line, col, tok.Value)
	if !ok {
		return nil, fail("the scalar is not where the parser says")
	}
	quoted, _ := json.Marshal(value) // a JSON string is a YAML double-quoted scalar
	var out bytes.Buffer
	for i, l := range lines {
		if i == ln {
			out.Write(l[:col])
			out.Write(quoted)
			out.Write(l[end:])
			continue
		}
		out.Write(l)
	}
	return out.Bytes(), nil
}

// scalarEnd returns the end offset in line of the scalar that starts at
// col and whose value is value: plain, single- or double-quoted.
func scalarEnd(line []byte, col int, value string) (int, bool) {
	rest := line[col:]
	switch {
	case bytes.HasPrefix(rest, []byte(value)) && value != "":
		return col + len(value), true
	case len(rest) > 0 && (rest[0] == '"' || rest[0] == '\''):
		q := rest[0]
		i := bytes.IndexByte(rest[1:], q)
		if i < 0 || string(rest[1:1+i]) != value {
			return 0, false
		}
		return col + i + 2, true
	}
	return 0, false
}

// lookupPath walks a path of mapping keys (string) and sequence indexes
// (int) from f.
func lookupPath(f yamlField, path ...any) (yamlField, error) {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			keys, vals, err := f.mapping()
			if err != nil {
				return f, err
			}
			found := false
			for i, key := range keys {
				if key == k {
					f, found = vals[i], true
					break
				}
			}
			if !found {
				return f, fmt.Errorf("no field %s", k)
			}
		case int:
			items, err := f.sequence()
			if err != nil {
				return f, err
			}
			if k >= len(items) {
				return f, fmt.Errorf("no item %d", k)
			}
			f = items[k]
		}
	}
	return f, nil
}
