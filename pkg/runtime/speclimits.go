package runtime

import (
	"fmt"

	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/token"
)

// MaxSpecBytes bounds the size of a job spec, and of the job.yaml a
// recovering master or a worker reads from the log: a spec of 5,000
// vertices is well under it.
const MaxSpecBytes = 1 << 20

// MaxSpecDepth bounds how deeply a job spec's YAML nests (flow brackets,
// "- - -" entries and indented blocks together). A spec needs about five
// levels; the YAML parser's memory grows with the square of the depth, so
// a 200 KB spec of nested brackets would otherwise take gigabytes.
const MaxSpecDepth = 64

// checkSpecShape refuses a spec that is too large or nests too deeply,
// before it is parsed. The YAML lexer it uses is linear in the input.
func checkSpecShape(name string, data []byte) error {
	if len(data) > MaxSpecBytes {
		return &specError{File: name, Msg: fmt.Sprintf("spec is larger than the limit of %d bytes (1 MiB)", MaxSpecBytes)}
	}
	depth, line := yamlDepth(data)
	if depth > MaxSpecDepth {
		return &specError{File: name, Line: line, Msg: fmt.Sprintf("YAML nests more than %d levels deep", MaxSpecDepth)}
	}
	return nil
}

// yamlDepth returns the deepest nesting of data's YAML, and the first line
// where it is reached: open flow collections plus the block levels (a
// stack of the columns of "-" entries and of the first token of each line).
func yamlDepth(data []byte) (depth, line int) {
	flow := 0
	var cols []int
	lastLine := 0
	for _, tk := range lexer.Tokenize(string(data)) {
		if tk.Position == nil {
			continue
		}
		switch tk.Type {
		case token.SequenceStartType, token.MappingStartType:
			flow++
		case token.SequenceEndType, token.MappingEndType:
			flow = max(flow-1, 0)
		}
		if flow == 0 && (tk.Type == token.SequenceEntryType || tk.Position.Line != lastLine) {
			c := tk.Position.Column
			for len(cols) > 0 && cols[len(cols)-1] >= c {
				cols = cols[:len(cols)-1]
			}
			cols = append(cols, c)
		}
		lastLine = tk.Position.Line
		if d := flow + len(cols); d > depth {
			depth, line = d, tk.Position.Line
		}
	}
	return depth, line
}
