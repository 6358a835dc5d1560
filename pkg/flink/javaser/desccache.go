package javaser

import (
	"bytes"
	"encoding/binary"
	"slices"
	"sync"
)

// Every stream of a Flink job-events log repeats the same class
// descriptors (each record is a stream of its own), and reading them is
// most of the work. The descriptor cache shares them between streams: a
// TC_CLASSDESC content whose bytes, first handle and options equal those of
// one read before, and whose references to handles assigned before it
// (field type strings, superclass descriptors) resolve to equal strings and
// to the same descriptors, reads the same way, so the cached descriptor and
// the handles it assigned are used instead. A descriptor that refers to
// anything else before it is not cached. Cached descriptors are shared by
// every Value that uses them; decoded values are read-only.
//
// The cache is bounded (entries, bytes of one entry, bytes in all); once
// full it keeps what it holds.
const (
	maxCachedDescs      = 1 << 12
	maxCachedPerName    = 8
	maxCachedDescBytes  = 1 << 12
	maxCachedTotalBytes = 8 << 20
)

type descEntry struct {
	raw     []byte  // the content, from its type code
	base    int     // the handle index of its first handle
	refs    []ref   // the handles before base it refers to
	handles []Value // the handles it assigned, in order
	depth   int     // the nesting it reaches below its start
	desc    *ClassDesc
	opts    Options
}

// ref is a handle that a cached descriptor refers to and its value then: a
// string or a *ClassDesc.
type ref struct {
	index int
	value Value
}

var descCache struct {
	sync.RWMutex
	byName map[string][]*descEntry
	n      int
	bytes  int
}

// nameAt returns the raw class name bytes of the TC_CLASSDESC at start.
func (d *Decoder) nameAt(start int) []byte {
	if len(d.buf)-start < 3 {
		return nil
	}
	n := int(binary.BigEndian.Uint16(d.buf[start+1:]))
	if len(d.buf)-start-3 < n {
		return nil
	}
	return d.buf[start+3 : start+3+n]
}

// localDescs is the size of a Decoder's own table of the cache entries it
// used last, indexed by first handle and name: a Decoder that reads stream
// after stream (Reset) finds its descriptors there without the cache's
// lock and map.
const localDescs = 512

func localSlot(base int, name []byte) int {
	h := uint32(base)*0x9e3779b1 ^ uint32(len(name))*0x85ebca6b ^ uint32(name[len(name)-1])<<8 ^ uint32(name[len(name)/2])
	return int((h * 0xc2b2ae35 >> 23) % localDescs)
}

// cachedDesc returns the descriptor cached for the content at start, having
// assigned its handles and moved past it, or nil.
func (d *Decoder) cachedDesc(start int) *ClassDesc {
	name := d.nameAt(start)
	if len(name) == 0 {
		return nil
	}
	slot := localSlot(len(d.handles), name)
	if d.local != nil {
		if e := d.local[slot]; e != nil && d.matches(e, start) {
			return d.useDesc(e, start)
		}
	}
	descCache.RLock()
	entries := descCache.byName[string(name)]
	descCache.RUnlock()
	for _, e := range entries {
		if d.matches(e, start) {
			if d.local != nil {
				d.local[slot] = e
			}
			return d.useDesc(e, start)
		}
	}
	return nil
}

// matches reports whether e is the entry of the content at start.
func (d *Decoder) matches(e *descEntry, start int) bool {
	return e.base == len(d.handles) && e.opts == d.opts && bytes.HasPrefix(d.buf[start:], e.raw) && d.sameRefs(e.refs)
}

// useDesc assigns the handles of e, which matches the content at start,
// and moves past it; it returns nil, for the content to be read, when
// that would exceed a limit.
func (d *Decoder) useDesc(e *descEntry, start int) *ClassDesc {
	if d.depth+e.depth > d.opts.MaxDepth || len(d.handles)+len(e.handles) > d.opts.MaxHandles {
		return nil // read it, and fail, as without the cache
	}
	if d.parsing > 0 {
		for _, r := range e.refs {
			d.refs = append(d.refs, r.index)
		}
	}
	d.handles = append(d.handles, e.handles...)
	d.peak = max(d.peak, d.depth+e.depth)
	d.pos = start + len(e.raw)
	return e.desc
}

// sameRefs reports whether the handles refs lists hold the same values.
func (d *Decoder) sameRefs(refs []ref) bool {
	for _, r := range refs {
		if d.handles[r.index] != r.value {
			return false
		}
	}
	return true
}

// storeDesc caches the descriptor just read from start, which assigned the
// handles from base and referred to the handles in log.
func (d *Decoder) storeDesc(start, base, depth int, cd *ClassDesc, log []int) {
	name := string(d.nameAt(start))
	if d.pos-start > maxCachedDescBytes {
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
	e := &descEntry{
		raw:     bytes.Clone(d.buf[start:d.pos]),
		base:    base,
		refs:    refs,
		handles: slices.Clone(d.handles[base:]),
		depth:   depth,
		desc:    cd,
		opts:    d.opts,
	}
	descCache.Lock()
	defer descCache.Unlock()
	if descCache.byName == nil {
		descCache.byName = make(map[string][]*descEntry)
	}
	if descCache.n >= maxCachedDescs || descCache.bytes+len(e.raw) > maxCachedTotalBytes ||
		len(descCache.byName[name]) >= maxCachedPerName {
		return
	}
	descCache.byName[name] = append(descCache.byName[name], e)
	descCache.n++
	descCache.bytes += len(e.raw)
}
