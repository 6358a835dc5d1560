package runtime

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/internal/golden"
)

// TestOperatorReference: docs/operators.md is what OperatorReference
// generates from the registry, so the reference cannot drift from the
// operators (go test ./pkg/runtime -run TestOperatorReference -update
// rewrites it).
func TestOperatorReference(t *testing.T) {
	t.Parallel()
	golden.Compare(t, filepath.Join("..", "..", "docs", "operators.md"), []byte(OperatorReference()))
}

// TestOperatorDocs: every built-in operator is documented; it accepts every
// argument its documentation lists and refuses one it does not; and its
// example parses as a vertex of a job spec.
func TestOperatorDocs(t *testing.T) {
	t.Parallel()
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
