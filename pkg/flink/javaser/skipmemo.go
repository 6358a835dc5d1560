package javaser

import (
	"bytes"
	"slices"
)

// A Decoder that reads stream after stream (Reset) remembers the last few
// contents it skipped (SkipValue) whose bytes are long enough to be worth
// it: a content with the same bytes, read at the same handle number and
// nesting, whose references to handles before it resolve to equal strings
// and the same descriptors, reads the same way, so its handles are
// assigned and the decoder moves past it. A Flink log repeats the same
// empty ConcurrentHashMap, 16 segments, in every finished event.
const (
	skipMemos        = 4
	minSkipMemoBytes = 64
	maxSkipMemoBytes = 4 << 10
)

type skipMemo struct {
	raw     []byte // the content
	base    int    // the handle index of its first handle
	depth   int    // the nesting it was read at
	refs    []ref  // the handles before base it refers to
	handles []Value
}

// skipped reports whether the content at start is one remembered, having
// then assigned its handles and moved past it.
func (d *Decoder) skipped(start int) bool {
	for i := range d.memos {
		m := &d.memos[i]
		if m.raw == nil || m.base != len(d.handles) || m.depth != d.depth || !bytes.HasPrefix(d.buf[start:], m.raw) ||
			!d.sameRefs(m.refs) || len(d.handles)+len(m.handles) > d.opts.MaxHandles {
			continue
		}
		d.handles = append(d.handles, m.handles...)
		d.pos = start + len(m.raw)
		return true
	}
	return false
}

// memoSkip remembers the content just skipped from start, which assigned
// the handles from base and referred to the handles in log.
func (d *Decoder) memoSkip(start, base int, log []int) {
	if n := d.pos - start; n < minSkipMemoBytes || n > maxSkipMemoBytes {
		return
	}
	var refs []ref
	for _, i := range log {
		if i >= base || slices.ContainsFunc(refs, func(r ref) bool { return r.index == i }) {
			continue
		}
		switch d.handles[i].(type) {
		case string, *ClassDesc:
			refs = append(refs, ref{i, d.handles[i]})
		default:
			return
		}
	}
	m := &d.memos[d.nextMemo%skipMemos]
	d.nextMemo++
	*m = skipMemo{raw: bytes.Clone(d.buf[start:d.pos]), base: base, depth: d.depth, refs: refs,
		handles: slices.Clone(d.handles[base:])}
}
