package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/pkg/blob"
)

// The examples tests check every command line that a user may paste into
// bash from the help of each command, README.md, CHANGELOG.md and docs/:
// a URL holding ? or & must be quoted (bash ends the command at an unquoted
// &, and globs with ?), and a log URL must be one the tool accepts.

// repoRoot is the repository, relative to this package.
const repoRoot = "../.."

// exampleLine is one command line and where it was shown.
type exampleLine struct {
	where string // file:line, or "jobevent CMD --help:line"
	text  string
}

func TestExamples_PasteIntoShell(t *testing.T) {
	lines := helpExamples(t)
	if len(lines) < 20 {
		t.Fatalf("%d command lines in the help of the commands, want at least 20", len(lines))
	}
	docs, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range append([]string{"README.md", "CHANGELOG.md"}, relAll(t, docs)...) {
		data, err := os.ReadFile(filepath.Join(repoRoot, name))
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, markdownExamples(name, string(data))...)
	}
	for _, l := range lines {
		for _, problem := range checkExample(l.text) {
			t.Errorf("%s: %s\n\t%s", l.where, problem, l.text)
		}
	}
}

// TestCheckExample checks the checker: what bash would break, or the tool
// would refuse, is found; quoted URLs pass.
func TestCheckExample(t *testing.T) {
	tests := []struct {
		line string
		want []string // substrings of the problems, in order; none for a good line
	}{
		{`jobevent ls file:///var/lib/jobevent`, nil},
		{`jobevent ls 's3://ops-logs?prefix=jobs/&region=eu-west-1' --format json | jq -r '.logs[] | .log'`, nil},
		{`jobevent dump "file://$PWD/logs?prefix=failover/" --epoch 2   # it's fine`, nil},
		{`LOG='s3://b?endpoint=http://127.0.0.1:9000&use_path_style=true&prefix=jobs/'`, nil},
		{`jobevent dump s3://b\?prefix=a/ --events=mem://x`, nil},
		{`jobevent ls s3://ops-logs?prefix=jobs/&region=eu-west-1 --format json`, []string{"unquoted ? and &"}},
		{`jobevent replay file://./jobevents?prefix=wordcount/ --dry-run`, []string{"unquoted ?"}},
		{`jobevent worker --events=s3://ops?prefix=wc/`, []string{"unquoted ?"}},
		{`jobevent worker --events 's3://ops/jobs?prefix=wordcount/'`, []string{`refused by jobevent: log URL "s3://ops/jobs?prefix=wordcount/": a path after the bucket is not allowed`}},
		{`aws s3 sync "s3://flink-ha/default/$JOB/" ./x && jobevent ls 's3://flink-ha?prefix=default/'`, nil},
		{`jobevent dump x --format json | jobevent import - "mem://a/b"`, []string{"refused by jobevent"}},
		{`jobevent dump s3://ops/jobs?prefix=wc/`, []string{"unquoted ?", "refused by jobevent"}},
		{`jobevent dump 's3://ops?prefix=wc/`, []string{"unterminated quote"}},
	}
	for _, tc := range tests {
		got := checkExample(tc.line)
		if len(got) != len(tc.want) {
			t.Errorf("checkExample(%q) = %q, want %d problems", tc.line, got, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("checkExample(%q)[%d] = %q, want it to contain %q", tc.line, i, got[i], w)
			}
		}
	}
}

func TestMarkdownExamples(t *testing.T) {
	doc := "Run `jobevent ls s3://a?prefix=x/` or `go test`.\n" +
		"```sh\n" +
		"jobevent dump a \\\n" +
		"  --epoch 2\n" +
		"# a comment\n" +
		"```\n" +
		"```sh\n" +
		"$ jobevent validate x\n" +
		"1 log: no findings\n" +
		"```\n" +
		"```\n" +
		"jobevent: s3://ops-logs: no AWS credentials\n" +
		"JOBEVENT_TOKEN=x jobevent worker --events y\n" +
		"```\n" +
		"```yaml\n" +
		"job: x\n" +
		"```\n"
	got := markdownExamples("d.md", doc)
	want := []exampleLine{
		{"d.md:1", "jobevent ls s3://a?prefix=x/"},
		{"d.md:3", "jobevent dump a --epoch 2"},
		{"d.md:5", "# a comment"},
		{"d.md:8", "jobevent validate x"},
		{"d.md:13", "JOBEVENT_TOKEN=x jobevent worker --events y"},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("markdownExamples = %q, want %q", got, want)
	}
}

// helpExamples returns the command lines of the help of the app and of
// every command, as --help prints it.
func helpExamples(t *testing.T) []exampleLine {
	t.Helper()
	var lines []exampleLine
	var walk func(path []string, cmds []*cli.Command)
	add := func(path []string) {
		args := append(slices.Clone(path), "--help")
		r := runCLI(t, args...).wantCode(t, 0)
		where := strings.Join(append([]string{"jobevent"}, args...), " ")
		lines = append(lines, blockExamples(where, 0, strings.Split(r.stdout, "\n"), false)...)
	}
	walk = func(path []string, cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Name == "help" {
				continue
			}
			p := append(slices.Clone(path), c.Name)
			add(p)
			walk(p, c.Subcommands)
		}
	}
	add(nil)
	walk(nil, commands())
	return lines
}

// markdownExamples returns the command lines of a Markdown file: every
// line of ```sh, ```bash and ```shell blocks (or, in those that show a
// prompt, the lines after "$ "), lines starting "$ " or running jobevent in
// other blocks, and inline code that runs jobevent. A line ending in \
// goes on on the next one.
func markdownExamples(name, doc string) []exampleLine {
	var lines []exampleLine
	src := strings.Split(doc, "\n")
	for i := 0; i < len(src); i++ {
		fence, lang, ok := openFence(src[i])
		if !ok {
			for _, span := range inlineCode(src[i]) {
				if text, ok := commandLine(span, false); ok {
					lines = append(lines, exampleLine{fmt.Sprintf("%s:%d", name, i+1), text})
				}
			}
			continue
		}
		start := i + 1
		for i++; i < len(src) && strings.TrimSpace(src[i]) != fence; i++ {
		}
		block := src[start:min(i, len(src))]
		shell := lang == "sh" || lang == "bash" || lang == "shell"
		shell = shell && !slices.ContainsFunc(block, func(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), "$ ") })
		lines = append(lines, blockExamples(name, start, block, shell)...)
	}
	return lines
}

// blockExamples returns the command lines of block, whose first line is
// line first+1 of where; all says whether every line is one.
func blockExamples(where string, first int, block []string, all bool) []exampleLine {
	var lines []exampleLine
	for j := 0; j < len(block); j++ {
		at := first + j + 1
		text, ok := commandLine(block[j], all)
		if !ok {
			continue
		}
		for strings.HasSuffix(text, `\`) && j+1 < len(block) {
			j++
			text = strings.TrimSuffix(text, `\`) + strings.TrimSpace(block[j])
		}
		lines = append(lines, exampleLine{fmt.Sprintf("%s:%d", where, at), text})
	}
	return lines
}

// openFence reports whether line opens a fenced code block, and returns
// the fence that closes it and the block's language.
func openFence(line string) (fence, lang string, ok bool) {
	t := strings.TrimSpace(line)
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(t, f) {
			return f, strings.ToLower(strings.TrimSpace(strings.TrimPrefix(t, f))), true
		}
	}
	return "", "", false
}

// inlineCode returns the `code spans` of a line.
func inlineCode(line string) []string {
	parts := strings.Split(line, "`")
	var spans []string
	for i := 1; i < len(parts)-1; i += 2 {
		spans = append(spans, parts[i])
	}
	return spans
}

// commandLine returns line without its prompt when it is a command line:
// it starts with "$ ", runs jobevent (after NAME=value assignments), or is
// any non-empty line of a shell block (all).
func commandLine(line string, all bool) (string, bool) {
	text := strings.TrimSpace(line)
	if rest, ok := strings.CutPrefix(text, "$ "); ok {
		return strings.TrimSpace(rest), true
	}
	if text == "" {
		return "", false
	}
	if all {
		return text, true
	}
	words, _ := shellWords(text)
	for _, w := range words {
		if !assignment.MatchString(w.value) {
			return text, w.value == "jobevent"
		}
	}
	return "", false
}

var (
	assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
	urlScheme  = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://`)
	shellVar   = regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?`)
)

// checkExample returns what is wrong with a command line: a URL with an
// unquoted ? or &, or a log URL that jobevent refuses (in the arguments of
// jobevent, or assigned to a variable).
func checkExample(line string) []string {
	words, err := shellWords(line)
	if err != nil {
		return []string{err.Error()}
	}
	var problems []string
	command := ""
	for _, w := range words {
		switch {
		case slices.Contains([]string{"|", "||", "&&", ";", "&"}, w.value) && !slices.Contains(w.quoted, true):
			command = ""
		case command == "" && !assignment.MatchString(w.value):
			command = w.value
		}
		loc := urlScheme.FindStringIndex(w.value)
		if loc == nil {
			continue
		}
		if bare := w.unquoted("?&"); bare != "" {
			problems = append(problems, fmt.Sprintf("unquoted %s in URL %s: bash splits or globs it; quote the URL with '...'",
				strings.Join(strings.Split(bare, ""), " and "), w.value))
		}
		u := w.value[loc[0]:]
		scheme := strings.ToLower(strings.TrimSuffix(w.value[loc[0]:loc[1]], "://"))
		if !slices.Contains(blob.Schemes, scheme) || (command != "jobevent" && !assignment.MatchString(w.value)) {
			continue
		}
		u = shellVar.ReplaceAllStringFunc(u, func(v string) string {
			if strings.Trim(v, "${}") == "PWD" {
				return "/home/user"
			}
			return "x"
		})
		if _, err := blob.ParseURL(u); err != nil {
			problems = append(problems, fmt.Sprintf("URL refused by jobevent: %v", err))
		}
	}
	return problems
}

// exampleWord is a word of a command line after quote removal.
type exampleWord struct {
	value  string
	quoted []bool // per byte of value: whether it stood in quotes or after \
}

// unquoted returns, once each and in the order of chars, the characters of
// chars that occur in w outside quotes.
func (w exampleWord) unquoted(chars string) string {
	var found strings.Builder
	for _, c := range chars {
		for i := 0; i < len(w.value); i++ {
			if rune(w.value[i]) == c && !w.quoted[i] {
				found.WriteRune(c)
				break
			}
		}
	}
	return found.String()
}

// shellWords splits a command line into words as bash does, simply:
// blanks separate words, '...' and "..." quote, \ escapes the next
// character, and a # that starts a word starts a comment.
func shellWords(line string) ([]exampleWord, error) {
	var words []exampleWord
	var cur exampleWord
	inWord := false
	add := func(c byte, quoted bool) {
		cur.value += string(c)
		cur.quoted = append(cur.quoted, quoted)
		inWord = true
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur)
				cur, inWord = exampleWord{}, false
			}
		case c == '#' && !inWord:
			return words, nil
		case c == '\\' && i+1 < len(line):
			i++
			add(line[i], true)
		case c == '\'' || c == '"':
			end := strings.IndexByte(line[i+1:], c)
			if end < 0 {
				return nil, fmt.Errorf("unterminated quote %c", c)
			}
			for _, q := range []byte(line[i+1 : i+1+end]) {
				add(q, true)
			}
			inWord = true
			i += end + 1
		default:
			add(c, false)
		}
	}
	if inWord {
		words = append(words, cur)
	}
	return words, nil
}

// relAll returns paths relative to the repository.
func relAll(t *testing.T, paths []string) []string {
	t.Helper()
	rel := make([]string, len(paths))
	for i, p := range paths {
		r, err := filepath.Rel(repoRoot, p)
		if err != nil {
			t.Fatal(err)
		}
		rel[i] = filepath.ToSlash(r)
	}
	return rel
}
