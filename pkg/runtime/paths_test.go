package runtime

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSpec_ResolvePaths: relative inputs and outputs become absolute
// against the spec's directory, in the vertices and in Raw, whose other
// text (comments, URLs, absolute paths) is kept.
func TestSpec_ResolvePaths(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	raw := `# a comment that stays
job: paths
vertices:
  - {id: a, operator: text, args: {input: ../text, split_size: 512}, parallelism: 1}
  - id: b
    operator: text
    args:
      input: "in dir/x"   # quoted, with a space
    parallelism: 1
  - {id: c, operator: text, args: {input: 'mem://bucket'}, parallelism: 1}
  - {id: m, operator: map, args: {fn: identity}, parallelism: 1}
  - {id: s, operator: sink, args: {output: out/wc, name: part}, parallelism: 1}
  - {id: t, operator: sink, args: {output: /abs/out}, parallelism: 1}
edges:
  - {from: a, to: m, pattern: pointwise}
  - {from: b, to: s, pattern: pointwise}
  - {from: c, to: t, pattern: pointwise}
`
	spec, err := ParseSpec("paths.yaml", []byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := spec.ResolvePaths(dir); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"a": filepath.Join(filepath.Dir(dir), "text"),
		"b": filepath.Join(dir, "in dir", "x"),
		"c": "mem://bucket",
		"s": filepath.Join(dir, "out", "wc"),
		"t": "/abs/out",
	}
	stored, err := ParseSpec("job.yaml", spec.Raw)
	if err != nil {
		t.Fatalf("the rewritten job.yaml does not parse: %v\n%s", err, spec.Raw)
	}
	for _, s := range []*Spec{spec, stored} {
		for _, v := range s.Vertices {
			arg := "input"
			if v.Operator == "sink" {
				arg = "output"
			}
			if w, ok := want[v.ID]; ok && v.Args[arg] != w {
				t.Errorf("vertex %s: %s = %v, want %s", v.ID, arg, v.Args[arg], w)
			}
		}
	}
	for _, keep := range []string{"# a comment that stays", "# quoted, with a space", "'mem://bucket'", "split_size: 512", "name: part"} {
		if !strings.Contains(string(spec.Raw), keep) {
			t.Errorf("job.yaml lost %q:\n%s", keep, spec.Raw)
		}
	}
}

// TestSpec_ResolveInputs leaves the outputs relative.
func TestSpec_ResolveInputs(t *testing.T) {
	t.Parallel()
	spec := textJob(t, "in", "out")
	if err := spec.ResolveInputs("/base"); err != nil {
		t.Fatal(err)
	}
	if in, out := spec.Vertices[0].Args["input"], spec.Vertices[1].Args["output"]; in != "/base/in" || out != "out" {
		t.Fatalf("input %v, output %v; want /base/in and out", in, out)
	}
}
