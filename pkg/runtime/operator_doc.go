package runtime

import (
	"fmt"
	"sort"
	"strings"
)

// OperatorDoc documents an operator for people writing job specs. The
// reference docs/operators.md is generated from the documentation of the
// registered operators (OperatorReference), and tests check that each
// operator accepts exactly the arguments its documentation lists and that
// every example parses.
type OperatorDoc struct {
	// Summary says what the operator does, in a sentence or two.
	Summary string
	// Kind is "source" or "transform" (sinks are transforms).
	Kind string
	// Args lists every argument the operator takes.
	Args []ArgDoc
	// Example is a vertex of a spec using the operator, as YAML lines
	// under `vertices:` (starting with "- id:").
	Example string
}

// ArgDoc documents one argument of an operator.
type ArgDoc struct {
	Name string
	// Type is how the value is written: string, integer, size (4k, 1mb),
	// duration (2s, 5 min).
	Type string
	// Default is the value when the argument is absent; "" means it is
	// required.
	Default string
	Doc     string
}

var operatorDocs = struct {
	m map[string]OperatorDoc
}{m: map[string]OperatorDoc{}}

// RegisterDoc documents the operator registered under name, for the
// reference that OperatorReference generates. Like Register, it is meant
// for init functions; it panics when name is empty or documented twice.
func RegisterDoc(name string, doc OperatorDoc) {
	registry.Lock()
	defer registry.Unlock()
	if name == "" {
		panic("jobevent/runtime: RegisterDoc with an empty name")
	}
	if _, dup := operatorDocs.m[name]; dup {
		panic("jobevent/runtime: operator " + name + " documented twice")
	}
	operatorDocs.m[name] = doc
}

// Doc returns the documentation of operator name, ok false when it has
// none.
func Doc(name string) (OperatorDoc, bool) {
	registry.RLock()
	defer registry.RUnlock()
	d, ok := operatorDocs.m[name]
	return d, ok
}

func init() {
	for name, doc := range builtinDocs {
		RegisterDoc(name, doc)
	}
}

// builtinDocs documents the built-in operators.
var builtinDocs = map[string]OperatorDoc{
	"sequence": {
		Kind:    "source",
		Summary: "Emits the integers from `from` to `to` as records (n, n), handed out in splits of consecutive numbers. Its enumerator snapshots its assignment (`batch_snapshot`).",
		Args: []ArgDoc{
			{"from", "integer", "0", "the first number"},
			{"to", "integer", "", "the last number, inclusive"},
			{"splits", "integer", "the vertex's parallelism", "how many splits the range is cut into (1 to 1,048,576)"},
		},
		Example: "- id: numbers\n  operator: sequence\n  args: {from: 1, to: 100000, splits: 16}\n  parallelism: 4",
	},
	"text": {
		Kind:    "source",
		Summary: "Reads the text objects under `input` (a bucket URL or a local directory) and emits one record (null, line) per line, in splits of about `split_size` bytes cut at line ends. Its enumerator snapshots its assignment (`batch_snapshot`).",
		Args: []ArgDoc{
			{"input", "string", "", "a bucket URL or a directory"},
			{"split_size", "size", "1mb", "the bytes of one split"},
			{"suffix", "string", "(every object)", "read only the objects whose names end so, e.g. .txt"},
		},
		Example: "- id: lines\n  operator: text\n  args: {input: /srv/text, split_size: 4k, suffix: .txt}\n  parallelism: 3",
	},
	"map": {
		Kind:    "transform",
		Summary: "Applies a function to every record: `identity` (k, v) → (k, v); `mod` (k, v) → (v mod n, v) for an integer v; `key_by_value` (k, v) → (v, v); `swap` (k, v) → (v, k); `lower` (k, v) → (k, lowercase v).",
		Args: []ArgDoc{
			{"fn", "string", "", "identity, mod, key_by_value, swap or lower"},
			{"n", "integer", "none (fn: mod needs it)", "the modulus, for fn: mod"},
		},
		Example: "- id: bucket\n  operator: map\n  args: {fn: mod, n: 10}\n  parallelism: 4",
	},
	"flat_map": {
		Kind:    "transform",
		Summary: "Splits every record's value into several records: `words` (k, \"A b,c\") → (\"a\", 1), (\"b\", 1), (\"c\", 1), runs of letters and digits lowercased; `fields` (k, \"A b\") → (\"A\", 1), (\"b\", 1), split at white space.",
		Args: []ArgDoc{
			{"fn", "string", "", "words or fields"},
		},
		Example: "- id: words\n  operator: flat_map\n  args: {fn: words}\n  parallelism: 3",
	},
	"filter": {
		Kind:    "transform",
		Summary: "Keeps the records that pass a test: `even` and `odd` (the integer value), `nonempty` (the value), `min_length` (the key is at least n bytes long).",
		Args: []ArgDoc{
			{"fn", "string", "", "even, odd, nonempty or min_length"},
			{"n", "integer", "1", "the least key length, for fn: min_length"},
		},
		Example: "- id: evens\n  operator: filter\n  args: {fn: even}\n  parallelism: 2",
	},
	"count": {
		Kind:    "transform",
		Summary: "Counts the records of each key and emits (key, count), keys in order (null first, then integers, then strings). Put it after an all-to-all edge so that each key reaches one subtask.",
		Example: "- id: count\n  operator: count\n  parallelism: auto\n  max_parallelism: 8",
	},
	"sum": {
		Kind:    "transform",
		Summary: "Sums the integer values of each key and emits (key, sum), keys in order as count does.",
		Example: "- id: total\n  operator: sum\n  parallelism: 2",
	},
	"sleep": {
		Kind:    "transform",
		Summary: "Passes its input through after waiting `duration`: a slow stage for drills and demonstrations.",
		Args: []ArgDoc{
			{"duration", "duration", "", "how long each subtask waits, e.g. 2s"},
		},
		Example: "- id: slow\n  operator: sleep\n  args: {duration: 2s}\n  parallelism: 2",
	},
	"sink": {
		Kind:    "transform",
		Summary: "Writes its input as text lines \"key<TAB>value\" (\"value\" for a null key) to `output` (a bucket URL or a directory). Each attempt writes a staging object `.staging/<job>/<vertex>/<subtask>-<attempt>`; when the job finishes, the master commits the winning attempt of each subtask to `<name>-<subtask %05d>`, so the output is the same whatever the failovers.",
		Args: []ArgDoc{
			{"output", "string", "", "a bucket URL or a directory"},
			{"name", "string", "part", "the prefix of the committed object names"},
		},
		Example: "- id: out\n  operator: sink\n  args: {output: /srv/out/wordcount, name: counts}\n  parallelism: 2",
	},
}

// OperatorReference returns the reference of every documented operator as
// Markdown, operators in name order: docs/operators.md is its output.
func OperatorReference() string {
	var b strings.Builder
	b.WriteString(operatorPreamble)
	registry.RLock()
	names := make([]string, 0, len(operatorDocs.m))
	for name := range operatorDocs.m {
		names = append(names, name)
	}
	registry.RUnlock()
	sort.Strings(names)
	for _, name := range names {
		d, _ := Doc(name)
		fmt.Fprintf(&b, "## `%s` (%s)\n\n%s\n\n", name, d.Kind, d.Summary)
		if len(d.Args) == 0 {
			b.WriteString("Arguments: none.\n\n")
		} else {
			b.WriteString("| argument | type | default | meaning |\n|---|---|---|---|\n")
			for _, a := range d.Args {
				def := a.Default
				if def == "" {
					def = "required"
				}
				fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", a.Name, a.Type, def, a.Doc)
			}
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "```yaml\nvertices:\n%s\n```\n\n", indent(d.Example, "  "))
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

func indent(s, by string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = by + l
	}
	return strings.Join(lines, "\n")
}

const operatorPreamble = `# Operators

The operators a job spec's vertices can run, with their arguments. This page is generated from
the operator registry (` + "`runtime.OperatorReference`" + `): run ` + "`go test ./pkg/runtime -run TestOperatorReference -update`" + `
after changing an operator, and review the diff. A library user registers more operators with
` + "`runtime.Register`" + ` and documents them with ` + "`runtime.RegisterDoc`" + `.

Every vertex of a spec has these fields:

| field | meaning |
|---|---|
| ` + "`id`" + ` | the vertex's name: letters, digits, ` + "`_ . -`" + `, up to 128 characters |
| ` + "`operator`" + ` | one of the operators below |
| ` + "`args`" + ` | the operator's arguments (a mapping) |
| ` + "`parallelism`" + ` | a number from 1 to 32,768, or ` + "`auto`" + `: decided when every producer has finished, from the bytes of its input and ` + "`execution.batch.adaptive.auto-parallelism.avg-data-volume-per-task`" + ` |
| ` + "`max_parallelism`" + ` | the most subtasks it may have (default: its parallelism, or ` + "`execution.batch.adaptive.auto-parallelism.max-parallelism`" + ` for auto) |
| ` + "`coordinator`" + ` | sources only: ` + "`no_batch_snapshot`" + ` downgrades a source to one whose split assignment is not snapshotted, to rehearse legacy sources |

Edges are ` + "`{from: A, to: B, pattern: all_to_all}`" + ` or ` + "`pointwise`" + `. Settings are in docs/recovery.md.

`
