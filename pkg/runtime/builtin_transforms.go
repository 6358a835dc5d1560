package runtime

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"
)

func init() {
	Register("map", newMap)
	Register("flat_map", newFlatMap)
	Register("filter", newFilter)
	Register("count", func(args Args) (Operator, error) { return newAggregate("count", args) })
	Register("sum", func(args Args) (Operator, error) { return newAggregate("sum", args) })
	Register("sleep", newSleep)
}

// recordFunc is a per-record function of map, flat_map and filter.
type recordFunc func(r Record, emit func(Record) error) error

// perRecord is a transform applying a recordFunc to every input record.
type perRecord struct {
	name string
	fn   recordFunc
}

func (p *perRecord) Name() string { return p.name }

func (p *perRecord) Run(ctx context.Context, task *Task, in Input, out Emitter) error {
	for {
		r, ok, err := in.Next(ctx)
		if err != nil || !ok {
			return err
		}
		if err := p.fn(r, out.Emit); err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
	}
}

// newMap builds the map operator. args.fn is one of
//
//	identity         (k, v) → (k, v)
//	mod (args.n)     (k, v) → (v mod n, v), v an integer
//	key_by_value     (k, v) → (v, v)
//	swap             (k, v) → (v, k)
//	lower            (k, v) → (k, lowercase v)
func newMap(args Args) (Operator, error) {
	if err := args.Check("fn", "n"); err != nil {
		return nil, err
	}
	fn, err := args.String("fn", "")
	if err != nil {
		return nil, err
	}
	var f func(Record) (Record, error)
	switch fn {
	case "identity":
		f = func(r Record) (Record, error) { return r, nil }
	case "mod":
		n, err := args.Int("n", 0)
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return nil, errors.New("args.n: want a positive modulus")
		}
		f = func(r Record) (Record, error) {
			if !r.Value.IsInt() {
				return r, fmt.Errorf("mod of a non-integer value %q", r.Value.String())
			}
			k := r.Value.Int64() % n
			if k < 0 {
				k += n
			}
			return Record{Key: Int(k), Value: r.Value}, nil
		}
	case "key_by_value":
		f = func(r Record) (Record, error) { return Record{Key: r.Value, Value: r.Value}, nil }
	case "swap":
		f = func(r Record) (Record, error) { return Record{Key: r.Value, Value: r.Key}, nil }
	case "lower":
		f = func(r Record) (Record, error) {
			if r.Value.IsString() {
				r.Value = Str(strings.ToLower(r.Value.Text()))
			}
			return r, nil
		}
	default:
		return nil, fmt.Errorf("args.fn: want identity, mod, key_by_value, swap or lower, got %q", fn)
	}
	return &perRecord{name: "map", fn: func(r Record, emit func(Record) error) error {
		out, err := f(r)
		if err != nil {
			return err
		}
		return emit(out)
	}}, nil
}

// newFlatMap builds the flat_map operator. args.fn is one of
//
//	words    (k, "A b,c") → ("a", 1), ("b", 1), ("c", 1): runs of letters
//	         and digits, lowercased
//	fields   (k, "A b")   → ("A", 1), ("b", 1): split at white space
func newFlatMap(args Args) (Operator, error) {
	if err := args.Check("fn"); err != nil {
		return nil, err
	}
	fn, err := args.String("fn", "")
	if err != nil {
		return nil, err
	}
	var split func(string) []string
	switch fn {
	case "words":
		split = func(s string) []string {
			return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
				return !unicode.IsLetter(r) && !unicode.IsDigit(r)
			})
		}
	case "fields":
		split = strings.Fields
	default:
		return nil, fmt.Errorf("args.fn: want words or fields, got %q", fn)
	}
	return &perRecord{name: "flat_map", fn: func(r Record, emit func(Record) error) error {
		for _, w := range split(r.Value.String()) {
			if err := emit(Record{Key: Str(w), Value: Int(1)}); err != nil {
				return err
			}
		}
		return nil
	}}, nil
}

// newFilter builds the filter operator. args.fn is one of even, odd (the
// integer value), nonempty (the value), min_length (args.n: the key's
// length in bytes is at least n).
func newFilter(args Args) (Operator, error) {
	if err := args.Check("fn", "n"); err != nil {
		return nil, err
	}
	fn, err := args.String("fn", "")
	if err != nil {
		return nil, err
	}
	var keep func(Record) bool
	switch fn {
	case "even":
		keep = func(r Record) bool { return r.Value.IsInt() && r.Value.Int64()%2 == 0 }
	case "odd":
		keep = func(r Record) bool { return r.Value.IsInt() && r.Value.Int64()%2 != 0 }
	case "nonempty":
		keep = func(r Record) bool { return r.Value.String() != "" }
	case "min_length":
		n, err := args.Int("n", 1)
		if err != nil {
			return nil, err
		}
		keep = func(r Record) bool { return int64(len(r.Key.String())) >= n }
	default:
		return nil, fmt.Errorf("args.fn: want even, odd, nonempty or min_length, got %q", fn)
	}
	return &perRecord{name: "filter", fn: func(r Record, emit func(Record) error) error {
		if keep(r) {
			return emit(r)
		}
		return nil
	}}, nil
}

// aggregate is key-by with count or sum: it reads every input record,
// groups by key, and emits (key, count) or (key, sum of integer values)
// in key order, so that its output does not depend on the input order.
type aggregate struct {
	name string
}

func newAggregate(name string, args Args) (Operator, error) {
	if err := args.Check(); err != nil {
		return nil, err
	}
	return &aggregate{name: name}, nil
}

func (a *aggregate) Name() string { return a.name }

func (a *aggregate) Run(ctx context.Context, task *Task, in Input, out Emitter) error {
	ints := map[int64]int64{}
	strs := map[string]int64{}
	var nulls int64
	var sawNull bool
	for {
		r, ok, err := in.Next(ctx)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		add := int64(1)
		if a.name == "sum" {
			if !r.Value.IsInt() {
				return fmt.Errorf("sum of a non-integer value %q", r.Value.String())
			}
			add = r.Value.Int64()
		}
		switch {
		case r.Key.IsInt():
			ints[r.Key.Int64()] += add
		case r.Key.IsString():
			strs[r.Key.Text()] += add
		default:
			nulls += add
			sawNull = true
		}
	}
	if sawNull {
		if err := out.Emit(Record{Value: Int(nulls)}); err != nil {
			return err
		}
	}
	ik := make([]int64, 0, len(ints))
	for k := range ints {
		ik = append(ik, k)
	}
	sort.Slice(ik, func(i, j int) bool { return ik[i] < ik[j] })
	for _, k := range ik {
		if err := out.Emit(Record{Key: Int(k), Value: Int(ints[k])}); err != nil {
			return err
		}
	}
	sk := make([]string, 0, len(strs))
	for k := range strs {
		sk = append(sk, k)
	}
	sort.Strings(sk)
	for _, k := range sk {
		if err := out.Emit(Record{Key: Str(k), Value: Int(strs[k])}); err != nil {
			return err
		}
	}
	return nil
}

// sleep passes its input through after waiting args.duration: a stage
// that takes time, for drills.
type sleep struct {
	d time.Duration
}

func newSleep(args Args) (Operator, error) {
	if err := args.Check("duration"); err != nil {
		return nil, err
	}
	d, err := args.Duration("duration", 0)
	if err != nil {
		return nil, err
	}
	if _, ok := args["duration"]; !ok {
		return nil, errors.New("args.duration: missing (e.g. 2s)")
	}
	return &sleep{d: d}, nil
}

func (s *sleep) Name() string { return "sleep" }

func (s *sleep) Run(ctx context.Context, task *Task, in Input, out Emitter) error {
	t := time.NewTimer(s.d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
	}
	for {
		r, ok, err := in.Next(ctx)
		if err != nil || !ok {
			return err
		}
		if err := out.Emit(r); err != nil {
			return err
		}
	}
}
