// Package scenario reads and rewrites scenario files: test cases written
// in the data-driven style of github.com/cockroachdb/datadriven (the
// style of Pebble's tests), which a person reads top to bottom:
//
//	# Prose: what the case shows. Lines starting with # and blank
//	# lines are comments, kept as they are.
//
//	log
//	{"seq":1,"kind":"job_submitted",...}
//	----
//
//	plan --lost-worker w1
//	----
//	{
//	  "job": "etl",
//	  ...
//	}
//
// A block is a command line (a command and its arguments, split at
// spaces), input lines up to a line "----", then the expected output: the
// lines after "----", up to the first blank line or the end of the file.
// The test runs each command on its input and compares what it gives with
// the expected output; with -update it sets Block.Expected and writes the
// file back, leaving every other byte as it was.
package scenario

import (
	"bytes"
	"fmt"
	"os"
	"strings"
)

// Separator is the line between a block's input and its expected output.
const Separator = "----"

// A File is a scenario file: comments and blocks, in order.
type File struct {
	// Path is the file the scenario was read from.
	Path string
	// Blocks are the blocks of the file, in order.
	Blocks []*Block

	parts []part
}

// A Block is one command of a scenario file, with its input and expected
// output.
type Block struct {
	// Line is the 1-based line of the command in the file.
	Line int
	// Cmd is the command, the first word of the command line; Args are the
	// other words.
	Cmd  string
	Args []string
	// Input and Expected are the lines before and after the separator,
	// each with its newline ("" when there are none).
	Input    string
	Expected string

	cmdLine string
}

// part is a stretch of the file: comment lines (text) or a block.
type part struct {
	text  string
	block *Block
}

// ReadFile reads and parses the scenario file at path.
func ReadFile(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse parses data, a scenario file read from path (which only names it
// in errors). A block without its separator is an error naming its line.
func Parse(path string, data []byte) (*File, error) {
	f := &File{Path: path}
	lines := strings.SplitAfter(string(data), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var text strings.Builder
	for i := 0; i < len(lines); {
		line := strings.TrimRight(lines[i], "\n")
		if line == "" || strings.HasPrefix(line, "#") {
			text.WriteString(lines[i])
			i++
			continue
		}
		if text.Len() > 0 {
			f.parts = append(f.parts, part{text: text.String()})
			text.Reset()
		}
		b, next, err := parseBlock(lines, i)
		if err != nil {
			return nil, fmt.Errorf("%s:%w", path, err)
		}
		f.Blocks = append(f.Blocks, b)
		f.parts = append(f.parts, part{block: b})
		i = next
	}
	if text.Len() > 0 {
		f.parts = append(f.parts, part{text: text.String()})
	}
	return f, nil
}

// parseBlock parses the block whose command is lines[i] and returns it
// with the index of the line after it.
func parseBlock(lines []string, i int) (*Block, int, error) {
	words := strings.Fields(lines[i])
	b := &Block{Line: i + 1, Cmd: words[0], Args: words[1:], cmdLine: lines[i]}
	if !strings.HasSuffix(b.cmdLine, "\n") {
		b.cmdLine += "\n"
	}
	var input strings.Builder
	for i++; ; i++ {
		if i == len(lines) {
			return nil, 0, fmt.Errorf("%d: %s: no %q line before the end of the file", b.Line, b.Cmd, Separator)
		}
		if strings.TrimRight(lines[i], "\n") == Separator {
			break
		}
		input.WriteString(lines[i])
	}
	var expected strings.Builder
	for i++; i < len(lines) && strings.TrimRight(lines[i], "\n") != ""; i++ {
		expected.WriteString(lines[i])
	}
	b.Input, b.Expected = input.String(), expected.String()
	return b, i, nil
}

// Bytes returns the file as text: the bytes it was parsed from, with each
// block's Expected as it is now. An Expected that holds a blank line
// (which would end the block) or lacks its final newline is an error.
func (f *File) Bytes() ([]byte, error) {
	var buf bytes.Buffer
	for _, p := range f.parts {
		if p.block == nil {
			buf.WriteString(p.text)
			continue
		}
		b := p.block
		if err := b.checkExpected(); err != nil {
			return nil, fmt.Errorf("%s:%d: %s: %w", f.Path, b.Line, b.Cmd, err)
		}
		buf.WriteString(b.cmdLine)
		buf.WriteString(b.Input)
		buf.WriteString(Separator + "\n")
		buf.WriteString(b.Expected)
	}
	return buf.Bytes(), nil
}

// checkExpected reports whether Expected can be written back as it is.
func (b *Block) checkExpected() error {
	if b.Expected == "" {
		return nil
	}
	if !strings.HasSuffix(b.Expected, "\n") {
		return fmt.Errorf("expected output %q does not end with a newline", b.Expected)
	}
	if strings.HasPrefix(b.Expected, "\n") || strings.Contains(b.Expected, "\n\n") {
		return fmt.Errorf("expected output holds a blank line, which would end the block")
	}
	return nil
}

// Rewrite writes the file back to its Path with the blocks' Expected as
// they are now.
func (f *File) Rewrite() error {
	data, err := f.Bytes()
	if err != nil {
		return err
	}
	return os.WriteFile(f.Path, data, 0o644)
}

// Block returns the first block whose command is cmd, or nil.
func (f *File) Block(cmd string) *Block {
	for _, b := range f.Blocks {
		if b.Cmd == cmd {
			return b
		}
	}
	return nil
}

// Pos returns "path:line" of b in f, for messages.
func (f *File) Pos(b *Block) string { return fmt.Sprintf("%s:%d", f.Path, b.Line) }
