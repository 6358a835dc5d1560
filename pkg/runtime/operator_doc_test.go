package runtime

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateDocs = flag.Bool("update", false, "rewrite docs/operators.md from the operator registry")

// TestOperatorReference: docs/operators.md is what OperatorReference
// generates from the registry, so the reference cannot drift from the
// operators.
func TestOperatorReference(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "operators.md")
	got := OperatorReference()
	if *updateDocs {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("docs/operators.md is not what the registry generates: run go test ./pkg/runtime -run TestOperatorReference -update and review the diff")
	}
}

// TestOperatorDocs: every built-in operator is documented; it accepts every
// argument its documentation lists and refuses one it does not; and its
// example parses as a vertex of a job spec.
func TestOperatorDocs(t *testing.T) {
	for _, name := range Operators() {
		if strings.HasPrefix(name, "test_") {
			continue // registered by this package's tests
		}
		t.Run(name, func(t *testing.T) {
			doc, ok := Doc(name)
			if !ok {
				t.Fatalf("operator %s has no documentation (RegisterDoc)", name)
			}
			factory, _ := lookupOperator(name)
			for _, a := range doc.Args {
				// A value of a type no argument takes: the error must be
				// about the value, not about an unknown argument.
				_, err := factory(Args{a.Name: []any{}})
				if err != nil && strings.Contains(err.Error(), "unknown argument") {
					t.Errorf("documented argument %s refused: %v", a.Name, err)
				}
			}
			if _, err := factory(Args{"undocumented_arg": 1}); err == nil || !strings.Contains(err.Error(), "undocumented_arg") {
				t.Errorf("an undocumented argument: %v, want it refused by name", err)
			}
			spec := "job: doc-example\nvertices:\n" + indent(doc.Example, "  ") + "\n"
			if doc.Kind == "transform" {
				id := strings.TrimSpace(strings.TrimPrefix(strings.SplitN(doc.Example, "\n", 2)[0], "- id:"))
				spec = "job: doc-example\nvertices:\n  - id: input\n    operator: sequence\n    args: {to: 9}\n    parallelism: 1\n" +
					indent(doc.Example, "  ") + "\nedges:\n  - {from: input, to: " + id + ", pattern: all_to_all}\n"
			}
			if _, err := ParseSpec(name+"-example.yaml", []byte(spec)); err != nil {
				t.Errorf("the example does not parse:\n%s\n%v", spec, err)
			}
		})
	}
}
