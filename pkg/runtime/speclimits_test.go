package runtime

import (
	"errors"
	"strings"
	"testing"
)

// hostileSpecs are specs whose parsing costs memory quadratic in their
// nesting: each must be refused before it is parsed, with one line.
func hostileSpecs() map[string]string {
	const n = 100_000
	return map[string]string{
		"brackets": "job: x\nvertices: " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n",
		"braces":   "job: x\nvertices: " + strings.Repeat("{a: ", n/2) + "1" + strings.Repeat("}", n/2) + "\n",
		"dashes":   "job: x\nvertices:\n" + strings.Repeat("- ", n) + "x\n",
		"quoted":   "job: x\nvertices: " + strings.Repeat(`["]", `, n/4) + "1" + strings.Repeat("]", n/4) + "\n",
	}
}

func TestParseSpec_Hostile(t *testing.T) {
	t.Parallel()
	for name, spec := range hostileSpecs() {
		t.Run(name, func(t *testing.T) {
			_, err := ParseSpec("deep.yaml", []byte(spec))
			if !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), "nests more than 64 levels") {
				t.Fatalf("err = %v, want the nesting limit", err)
			}
		})
	}
	big := goodSpec + "# " + strings.Repeat("x", MaxSpecBytes) + "\n"
	if _, err := ParseSpec("big.yaml", []byte(big)); !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), "larger than the limit") {
		t.Fatalf("err = %v, want the size limit", err)
	}
}

func TestParseSpec_DepthWithinLimit(t *testing.T) {
	t.Parallel()
	// Nesting up to the limit is parsed: the limit refuses nothing a
	// spec needs.
	args := strings.Repeat("[", 50) + strings.Repeat("]", 50)
	spec := strings.Replace(goodSpec, "args: {to: 99, splits: 4}", "args: {to: 99, splits: 4, x: "+args+"}", 1)
	if d, _ := yamlDepth([]byte(spec)); d < 50 || d > MaxSpecDepth {
		t.Fatalf("depth = %d, want between 50 and %d", d, MaxSpecDepth)
	}
	if d, _ := yamlDepth([]byte(goodSpec)); d > 8 {
		t.Fatalf("depth of a plain spec = %d, want at most 8", d)
	}
}
