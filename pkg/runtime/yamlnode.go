package runtime

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
)

// specError is an error in a job spec: the file, the line and the field
// it concerns. Its text reads "wordcount.yaml:7: vertices[1].parallelism:
// want a number or "auto"".
type specError struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (e *specError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Field != "" {
		b.WriteString(": ")
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns ErrSpec, so that errors.Is(err, ErrSpec) holds for every
// spec error.
func (e *specError) Unwrap() error { return ErrSpec }

// yamlField is a node of the spec's YAML tree together with the field path
// that leads to it ("vertices[1].parallelism"), for error messages.
type yamlField struct {
	file string
	path string
	node ast.Node
}

func (f yamlField) line() int {
	if f.node == nil || f.node.GetToken() == nil || f.node.GetToken().Position == nil {
		return 0
	}
	return f.node.GetToken().Position.Line
}

func (f yamlField) errorf(format string, args ...any) error {
	return &specError{File: f.file, Line: f.line(), Field: f.path, Msg: fmt.Sprintf(format, args...)}
}

// unwrap strips tags and anchors from a node; aliases are refused by the
// callers that need a concrete value.
func unwrapNode(n ast.Node) ast.Node {
	for {
		switch v := n.(type) {
		case *ast.TagNode:
			n = v.Value
		case *ast.AnchorNode:
			n = v.Value
		default:
			return n
		}
	}
}

func (f yamlField) isNull() bool {
	n := unwrapNode(f.node)
	if n == nil {
		return true
	}
	_, ok := n.(*ast.NullNode)
	return ok
}

// child returns the field at key of a mapping path.
func (f yamlField) child(key string, n ast.Node) yamlField {
	p := key
	if f.path != "" {
		p = f.path + "." + key
	}
	return yamlField{file: f.file, path: p, node: n}
}

// mapping returns the key/value pairs of a mapping node, in order, and
// refuses duplicate keys and non-string keys.
func (f yamlField) mapping() ([]string, []yamlField, error) {
	n := unwrapNode(f.node)
	var pairs []*ast.MappingValueNode
	switch v := n.(type) {
	case nil, *ast.NullNode:
		return nil, nil, nil
	case *ast.MappingNode:
		pairs = v.Values
	case *ast.MappingValueNode:
		pairs = []*ast.MappingValueNode{v}
	default:
		return nil, nil, f.errorf("want a mapping, got %s", describeNode(n))
	}
	keys := make([]string, 0, len(pairs))
	vals := make([]yamlField, 0, len(pairs))
	seen := map[string]bool{}
	for _, kv := range pairs {
		kf := yamlField{file: f.file, path: f.path, node: kv.Key}
		key, ok := scalarString(kv.Key)
		if !ok {
			return nil, nil, kf.errorf("want a string key, got %s", describeNode(kv.Key))
		}
		if seen[key] {
			return nil, nil, f.child(key, kv.Key).errorf("duplicate key")
		}
		seen[key] = true
		keys = append(keys, key)
		vals = append(vals, f.child(key, kv.Value))
	}
	return keys, vals, nil
}

// sequence returns the items of a sequence node.
func (f yamlField) sequence() ([]yamlField, error) {
	n := unwrapNode(f.node)
	switch v := n.(type) {
	case nil, *ast.NullNode:
		return nil, nil
	case *ast.SequenceNode:
		out := make([]yamlField, len(v.Values))
		for i, item := range v.Values {
			out[i] = yamlField{file: f.file, path: fmt.Sprintf("%s[%d]", f.path, i), node: item}
		}
		return out, nil
	default:
		return nil, f.errorf("want a list, got %s", describeNode(n))
	}
}

// str returns a scalar as a string (numbers and booleans as written).
func (f yamlField) str() (string, error) {
	n := unwrapNode(f.node)
	switch n.(type) {
	case *ast.StringNode, *ast.LiteralNode, *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
		s, _ := scalarString(n)
		return s, nil
	}
	return "", f.errorf("want a string, got %s", describeNode(n))
}

// integer returns an integer scalar.
func (f yamlField) integer() (int64, error) {
	n := unwrapNode(f.node)
	if v, ok := n.(*ast.IntegerNode); ok {
		switch x := v.GetValue().(type) {
		case int64:
			return x, nil
		case uint64:
			if x <= 1<<63-1 {
				return int64(x), nil
			}
		case int:
			return int64(x), nil
		}
		return 0, f.errorf("number %s out of range", v.GetToken().Value)
	}
	return 0, f.errorf("want an integer, got %s", describeNode(n))
}

// boolean returns a boolean scalar.
func (f yamlField) boolean() (bool, error) {
	n := unwrapNode(f.node)
	if v, ok := n.(*ast.BoolNode); ok {
		return v.Value, nil
	}
	if s, ok := scalarString(n); ok {
		if b, err := strconv.ParseBool(s); err == nil {
			return b, nil
		}
	}
	return false, f.errorf("want true or false, got %s", describeNode(n))
}

// value converts a node to a plain Go value for operator arguments:
// string, int64, float64, bool, nil, []any or map[string]any.
func (f yamlField) value() (any, error) {
	n := unwrapNode(f.node)
	switch v := n.(type) {
	case nil, *ast.NullNode:
		return nil, nil
	case *ast.IntegerNode:
		return f.integer()
	case *ast.FloatNode:
		return v.Value, nil
	case *ast.BoolNode:
		return v.Value, nil
	case *ast.StringNode, *ast.LiteralNode:
		s, _ := scalarString(n)
		return s, nil
	case *ast.SequenceNode:
		items, err := f.sequence()
		if err != nil {
			return nil, err
		}
		out := make([]any, len(items))
		for i, it := range items {
			if out[i], err = it.value(); err != nil {
				return nil, err
			}
		}
		return out, nil
	case *ast.MappingNode, *ast.MappingValueNode:
		keys, vals, err := f.mapping()
		if err != nil {
			return nil, err
		}
		out := make(map[string]any, len(keys))
		for i, k := range keys {
			if out[k], err = vals[i].value(); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return nil, f.errorf("unsupported value %s", describeNode(n))
}

func scalarString(n ast.Node) (string, bool) {
	switch v := unwrapNode(n).(type) {
	case *ast.StringNode:
		return v.Value, true
	case *ast.LiteralNode:
		return v.Value.Value, true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
		return v.GetToken().Value, true
	}
	return "", false
}

// describeNode names the kind of a node for "want X, got Y" messages.
func describeNode(n ast.Node) string {
	switch v := n.(type) {
	case nil, *ast.NullNode:
		return "nothing"
	case *ast.StringNode:
		return fmt.Sprintf("string %q", v.Value)
	case *ast.IntegerNode:
		return "number " + v.GetToken().Value
	case *ast.FloatNode:
		return "number " + v.GetToken().Value
	case *ast.BoolNode:
		return "boolean " + v.GetToken().Value
	case *ast.SequenceNode:
		return "a list"
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.AliasNode:
		return "an alias (anchors and aliases are not supported)"
	}
	return n.Type().String()
}
