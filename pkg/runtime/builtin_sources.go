package runtime

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

func init() {
	Register("sequence", newSequence)
	Register("text", newTextSource)
}

// sequence is the number-sequence source: the integers from..to
// (inclusive) in splits ranges; each record is (n, n).
type sequence struct {
	from, to int64
	splits   int
}

func newSequence(args Args) (Operator, error) {
	if err := args.Check("from", "to", "splits"); err != nil {
		return nil, err
	}
	from, err := args.Int("from", 0)
	if err != nil {
		return nil, err
	}
	if _, ok := args["to"]; !ok {
		return nil, errors.New("args.to: missing (the last number, inclusive)")
	}
	to, err := args.Int("to", 0)
	if err != nil {
		return nil, err
	}
	splits, err := args.Int("splits", 0)
	if err != nil {
		return nil, err
	}
	switch {
	case to < from:
		return nil, fmt.Errorf("args.to: %d is below from %d", to, from)
	case splits < 0 || splits > 1<<20:
		return nil, fmt.Errorf("args.splits: want 1 to %d", 1<<20)
	case splits > 0 && uint64(to-from)+1 < uint64(splits):
		return nil, fmt.Errorf("args.splits: %d splits of %d numbers", splits, to-from+1)
	}
	return &sequence{from: from, to: to, splits: int(splits)}, nil
}

func (s *sequence) Name() string { return "sequence" }

type seqSplit struct {
	K    int   `json:"k"`
	From int64 `json:"from"`
	To   int64 `json:"to"`
}

func (s *sequence) NewEnumerator(parallelism int) (SplitEnumerator, error) {
	n := s.splits
	if n == 0 {
		n = parallelism
	}
	return &seqEnumerator{seq: s, n: n, assign: newSplitAssigner(parallelism)}, nil
}

func (s *sequence) ReadSplit(ctx context.Context, task *Task, split []byte, out Emitter) error {
	var sp seqSplit
	if err := json.Unmarshal(split, &sp); err != nil {
		return fmt.Errorf("sequence split: %w", err)
	}
	for n := sp.From; n <= sp.To; n++ {
		if (n-sp.From)&4095 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if err := out.Emit(Record{Key: Int(n), Value: Int(n)}); err != nil {
			return err
		}
		if n == sp.To { // to may be MaxInt64
			break
		}
	}
	return nil
}

type seqEnumerator struct {
	seq    *sequence
	n      int
	assign *splitAssigner
}

func (e *seqEnumerator) Start(context.Context, *VertexContext) error {
	total := uint64(e.seq.to-e.seq.from) + 1
	splits := make([]json.RawMessage, e.n)
	for k := range splits {
		lo := e.seq.from + int64(total*uint64(k)/uint64(e.n))
		hi := e.seq.from + int64(total*uint64(k+1)/uint64(e.n)) - 1
		b, _ := json.Marshal(seqSplit{K: k, From: lo, To: hi})
		splits[k] = b
	}
	e.assign.setSplits(splits)
	return nil
}

func (e *seqEnumerator) NextSplit(subtask int) ([]byte, bool, error) {
	b, ok := e.assign.next(subtask)
	return b, ok, nil
}

func (e *seqEnumerator) AddSplitsBack(subtask int) { e.assign.addBack(subtask) }
func (e *seqEnumerator) Snapshot() ([]byte, error) { return e.assign.snapshot() }
func (e *seqEnumerator) Restore(state []byte) error {
	return e.assign.restore(state)
}

// textSource reads the lines of the objects in a bucket, split by object
// and byte range; a line belongs to the split holding its first byte, so
// no line is cut across splits. Each record is (null, line).
type textSource struct {
	input     string
	splitSize int64
	suffix    string
}

func newTextSource(args Args) (Operator, error) {
	if err := args.Check("input", "split_size", "suffix"); err != nil {
		return nil, err
	}
	input, err := args.String("input", "")
	if err != nil {
		return nil, err
	}
	if input == "" {
		return nil, errors.New("args.input: missing (a bucket URL or a local directory)")
	}
	size, err := args.Size("split_size", 1<<20)
	if err != nil {
		return nil, err
	}
	if size < 1 {
		return nil, errors.New("args.split_size: want a positive size")
	}
	suffix, err := args.String("suffix", "")
	if err != nil {
		return nil, err
	}
	return &textSource{input: input, splitSize: size, suffix: suffix}, nil
}

func (s *textSource) Name() string { return "text" }

// PathArgs names the input argument (PathArgs).
func (s *textSource) PathArgs() (inputs, outputs []string) { return []string{"input"}, nil }

// Preflight checks that the input exists and holds objects to read.
func (s *textSource) Preflight(ctx context.Context, vc *VertexContext) error {
	e := &textEnumerator{src: s, assign: &splitAssigner{}}
	return e.Start(ctx, vc)
}

type textSplit struct {
	Key   string `json:"key"`
	Start int64  `json:"start"`
	End   int64  `json:"end"`
}

func (s *textSource) NewEnumerator(parallelism int) (SplitEnumerator, error) {
	return &textEnumerator{src: s, assign: newSplitAssigner(parallelism)}, nil
}

func (s *textSource) ReadSplit(ctx context.Context, task *Task, split []byte, out Emitter) error {
	var sp textSplit
	if err := json.Unmarshal(split, &sp); err != nil {
		return fmt.Errorf("text split: %w", err)
	}
	b, err := task.OpenBucket(ctx, s.input, false)
	if err != nil {
		return err
	}
	off := max(sp.Start-1, 0)
	r, err := b.NewRangeReader(ctx, sp.Key, off, -1, nil)
	if err != nil {
		return fmt.Errorf("read %s: %w", sp.Key, err)
	}
	defer r.Close()
	br := bufio.NewReaderSize(r, 64<<10)
	pos := off
	if sp.Start > 0 {
		// Skip the line that began before the split: it belongs to the
		// split before.
		skipped, err := br.ReadSlice('\n')
		for errors.Is(err, bufio.ErrBufferFull) {
			pos += int64(len(skipped))
			skipped, err = br.ReadSlice('\n')
		}
		pos += int64(len(skipped))
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", sp.Key, err)
		}
	}
	for pos < sp.End {
		line, err := br.ReadString('\n')
		if len(line) > 0 {
			pos += int64(len(line))
			task.AddInput(1, int64(len(line)))
			text := strings.TrimRight(line, "\r\n")
			if err := out.Emit(Record{Value: Str(text)}); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", sp.Key, err)
		}
	}
	return nil
}

type textEnumerator struct {
	src    *textSource
	assign *splitAssigner
}

// Start lists the input objects, in key order, and cuts them into splits.
func (e *textEnumerator) Start(ctx context.Context, vc *VertexContext) error {
	b, err := vc.OpenBucket(ctx, e.src.input, false)
	if err != nil {
		return err
	}
	var splits []json.RawMessage
	it := b.List(nil)
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("list %s: %w", e.src.input, err)
		}
		name := obj.Key[strings.LastIndex(obj.Key, "/")+1:]
		if obj.IsDir || strings.HasPrefix(name, ".") || !strings.HasSuffix(obj.Key, e.src.suffix) {
			continue
		}
		for start := int64(0); start < obj.Size; start += e.src.splitSize {
			raw, _ := json.Marshal(textSplit{Key: obj.Key, Start: start, End: min(start+e.src.splitSize, obj.Size)})
			splits = append(splits, raw)
		}
	}
	if len(splits) == 0 {
		return fmt.Errorf("no input objects in %s", e.src.input)
	}
	e.assign.setSplits(splits)
	return nil
}

func (e *textEnumerator) NextSplit(subtask int) ([]byte, bool, error) {
	b, ok := e.assign.next(subtask)
	return b, ok, nil
}

func (e *textEnumerator) AddSplitsBack(subtask int) { e.assign.addBack(subtask) }
func (e *textEnumerator) Snapshot() ([]byte, error) { return e.assign.snapshot() }
func (e *textEnumerator) Restore(state []byte) error {
	return e.assign.restore(state)
}
