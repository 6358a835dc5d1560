package replay_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// step is one step of the recovery rule: its number, its name and the
// planner method that applies it.
type step struct {
	n            int
	name, method string
}

// docSteps returns the numbered steps of the rule in a docs page: the
// lines "N. **Name** (`planner.method`)", with an ASCII or a full-width
// parenthesis.
func docSteps(t *testing.T, path string) []step {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?m)^([0-9])\\. \\*\\*(\\w+)\\*\\*\\s?[(（]`planner\\.(\\w+)`[)）]")
	var out []step
	for _, m := range re.FindAllStringSubmatch(string(b), -1) {
		out = append(out, step{n: int(m[1][0] - '0'), name: m[2], method: m[3]})
	}
	return out
}

// TestPlan_StepsAsDocumented: docs/recovery.md and recovery.zh.md name the
// method of each step of the rule; plan (the body of Plan, PlanRecovery and
// PlanDryRun) calls exactly those methods, in that order, and each
// method's comment says which step it is.
func TestPlan_StepsAsDocumented(t *testing.T) {
	want := docSteps(t, "../../docs/recovery.md")
	if len(want) != 5 {
		t.Fatalf("docs/recovery.md names %d steps, want 5: %v", len(want), want)
	}
	for k, s := range want {
		if s.n != k+1 {
			t.Fatalf("docs/recovery.md: step %d numbered %d", k+1, s.n)
		}
	}
	if zh := docSteps(t, "../../docs/recovery.zh.md"); !reflect.DeepEqual(zh, want) {
		t.Fatalf("docs/recovery.zh.md steps = %v, want %v", zh, want)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "plan.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	docs := map[string]string{}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		if fn.Recv != nil && fn.Doc != nil {
			docs[fn.Name.Name] = fn.Doc.Text()
		}
		if fn.Recv == nil && fn.Name.Name == "plan" {
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok {
					if sel, ok := c.Fun.(*ast.SelectorExpr); ok {
						if id, ok := sel.X.(*ast.Ident); ok && id.Name == "p" {
							calls = append(calls, sel.Sel.Name)
						}
					}
				}
				return true
			})
		}
	}
	var methods []string
	for _, s := range want {
		methods = append(methods, s.method)
		prefix := fmt.Sprintf("%s is step %d, %s", s.method, s.n, s.name)
		if !strings.HasPrefix(docs[s.method], prefix) {
			t.Errorf("the comment of planner.%s does not start with %q", s.method, prefix)
		}
	}
	if !reflect.DeepEqual(calls, methods) {
		t.Fatalf("plan calls %v, want the documented steps %v", calls, methods)
	}
}
