package format

import (
	"encoding/binary"
	"io"

	"github.com/parquet-go/parquet-go"
)

// colCursor walks the values of one leaf column across pages.
type colCursor struct {
	pages  parquet.Pages
	page   parquet.Page
	path   string
	kind   parquet.Kind
	maxDef byte
	maxRep byte

	def, rep []byte // levels of the page; nil when the column has none
	li, n    int    // next level (or value, for flat required columns) and their count

	vi    int // next value
	nvals int
	i32   []int32
	i64   []int64
	bits  []byte
	data  []byte
	offs  []uint32
	idx   []int32 // dictionary indexes when the page is dictionary encoded

	dictOf   parquet.Dictionary
	dictStr  []string
	dictSets []fieldSet // of dictStr read as kinds; 0 for an unknown kind
	dictI32  []int32
	dictI64  []int64
}

func (c *colCursor) open(chunk parquet.ColumnChunk) {
	c.close()
	c.pages = chunk.Pages()
	c.li, c.n = 0, 0
}

func (c *colCursor) close() {
	if c.page != nil {
		parquet.Release(c.page)
		c.page = nil
	}
	if c.pages != nil {
		_ = c.pages.Close()
		c.pages = nil
	}
}

// load makes sure a level (or value) is available.
func (c *colCursor) load() {
	for c.li >= c.n {
		if c.page != nil {
			parquet.Release(c.page)
			c.page = nil
		}
		page, err := c.pages.ReadPage()
		if err == io.EOF {
			corruptf("column %s ends before the rows do", c.path)
		}
		if err != nil {
			corruptf("column %s: %v", c.path, err)
		}
		c.setPage(page)
	}
}

func (c *colCursor) setPage(page parquet.Page) {
	c.page = page
	c.n, c.li, c.vi = int(page.NumValues()), 0, 0
	c.def, c.rep = nil, nil
	if c.maxDef > 0 {
		c.def = page.DefinitionLevels()
		if len(c.def) != c.n {
			corruptf("column %s: %d definition levels for %d values", c.path, len(c.def), c.n)
		}
	}
	if c.maxRep > 0 {
		c.rep = page.RepetitionLevels()
		if len(c.rep) != c.n {
			corruptf("column %s: %d repetition levels for %d values", c.path, len(c.rep), c.n)
		}
	}
	values := page.Data()
	c.idx = nil
	if dict := page.Dictionary(); dict != nil {
		c.idx = values.Int32()
		c.nvals = len(c.idx)
		c.loadDictionary(dict)
		return
	}
	switch c.kind {
	case parquet.Int32:
		c.i32 = values.Int32()
		c.nvals = len(c.i32)
	case parquet.Int64:
		c.i64 = values.Int64()
		c.nvals = len(c.i64)
	case parquet.Boolean:
		c.bits = values.Boolean()
		c.nvals = 8 * len(c.bits)
	case parquet.ByteArray:
		c.data, c.offs = values.ByteArray()
		c.nvals = max(len(c.offs)-1, 0)
	}
}

func (c *colCursor) loadDictionary(dict parquet.Dictionary) {
	if dict == c.dictOf {
		return
	}
	c.dictOf, c.dictSets = dict, nil
	values := dict.Page().Data()
	switch c.kind {
	case parquet.Int32:
		c.dictI32 = values.Int32()
	case parquet.Int64:
		c.dictI64 = values.Int64()
	case parquet.ByteArray:
		data, offs := values.ByteArray()
		c.dictStr = make([]string, max(len(offs)-1, 0))
		for i := range c.dictStr {
			c.dictStr[i] = string(data[offs[i]:offs[i+1]])
		}
	default:
		corruptf("column %s: dictionary encoding of %s", c.path, c.kind)
	}
}

// level consumes the next level pair.
func (c *colCursor) level() (rep, def byte) {
	if c.li >= c.n {
		c.load()
	}
	if c.rep != nil {
		rep = c.rep[c.li]
	}
	if c.def != nil {
		def = c.def[c.li]
	}
	c.li++
	if def > c.maxDef || rep > c.maxRep {
		corruptf("column %s: levels %d/%d above %d/%d", c.path, rep, def, c.maxRep, c.maxDef)
	}
	return rep, def
}

// pageLevels returns the definition levels of the next rows of a flat
// optional column that are on the current page, at most n of them, and
// consumes them; their values are read with the value methods before the
// next call. Levels above the maximum are corruption.
func (c *colCursor) pageLevels(n int) []byte {
	if c.li >= c.n {
		c.load()
	}
	m := min(n, c.n-c.li)
	defs := c.def[c.li : c.li+m]
	c.li += m
	if c.maxDef == 1 && atMostOne(defs) { // a top-level optional column
		return defs
	}
	for _, d := range defs {
		if d > c.maxDef {
			corruptf("column %s: definition level %d above %d", c.path, d, c.maxDef)
		}
	}
	return defs
}

// atMostOne reports whether every byte of b is 0 or 1, looking at eight
// at a time.
func atMostOne(b []byte) bool {
	var or uint64
	for ; len(b) >= 8; b = b[8:] {
		or |= binary.LittleEndian.Uint64(b)
	}
	for _, x := range b {
		or |= uint64(x)
	}
	return or&^0x0101010101010101 == 0
}

// pageRun consumes the next rows of a required flat column that are on the
// current page, at most n of them, and returns how many; their values are
// read with the value methods before the next call.
func (c *colCursor) pageRun(n int) int {
	if c.li >= c.n {
		c.load()
	}
	m := min(n, c.n-c.li)
	c.li += m
	return m
}

// nullRun reports whether the next n levels are on the current page and
// are all NULL rows (repetition and definition level 0); skip consumes
// them.
func (c *colCursor) nullRun(n int) bool {
	if c.li >= c.n {
		c.load()
	}
	if c.n-c.li < n {
		return false
	}
	return zeros(c.def[c.li:c.li+n]) && (c.rep == nil || zeros(c.rep[c.li:c.li+n]))
}

// zeros reports whether every byte of b is 0.
func zeros(b []byte) bool { return all(b, 0) }

// all reports whether every byte of b is v, looking at eight at a time.
func all(b []byte, v byte) bool {
	vs := uint64(v) * 0x0101010101010101
	var diff uint64
	for ; len(b) >= 8; b = b[8:] {
		diff |= binary.LittleEndian.Uint64(b) ^ vs
	}
	for _, x := range b {
		diff |= uint64(x ^ v)
	}
	return diff == 0
}

func (c *colCursor) skip(n int) { c.li += n }

// nullNext consumes the next level if it is a NULL row (repetition and
// definition level 0) and reports whether it did.
func (c *colCursor) nullNext() bool {
	if c.li >= c.n {
		c.load()
	}
	if c.def[c.li] != 0 || (c.rep != nil && c.rep[c.li] != 0) {
		return false
	}
	c.li++
	return true
}

// continues reports whether the next value of a repeated column continues
// the current row.
func (c *colCursor) continues() bool {
	if c.li >= c.n {
		if c.page != nil {
			parquet.Release(c.page)
			c.page = nil
		}
		page, err := c.pages.ReadPage()
		if err == io.EOF {
			return false
		}
		if err != nil {
			corruptf("column %s: %v", c.path, err)
		}
		c.setPage(page)
		if c.n == 0 {
			return c.continues()
		}
	}
	return c.rep[c.li] > 0
}

func (c *colCursor) value() int {
	if c.vi >= c.nvals {
		corruptf("column %s: more levels than values", c.path)
	}
	c.vi++
	return c.vi - 1
}

func (c *colCursor) int32v() int32 {
	i := c.value()
	if c.idx != nil {
		return c.dictI32[c.dictIndex(i, len(c.dictI32))]
	}
	return c.i32[i]
}

func (c *colCursor) int64v() int64 {
	i := c.value()
	if c.idx != nil {
		return c.dictI64[c.dictIndex(i, len(c.dictI64))]
	}
	return c.i64[i]
}

func (c *colCursor) boolv() bool {
	i := c.value()
	return c.bits[i/8]&(1<<(i%8)) != 0
}

func (c *colCursor) str() string {
	i := c.value()
	if c.idx != nil {
		return c.dictStr[c.dictIndex(i, len(c.dictStr))]
	}
	return string(c.data[c.offs[i]:c.offs[i+1]])
}

func (c *colCursor) bytesv() []byte {
	i := c.value()
	if c.idx != nil {
		corruptf("column %s: dictionary encoded bytes", c.path)
	}
	b := c.data[c.offs[i]:c.offs[i+1]]
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}

// kindSets returns the field set of each dictionary entry read as a
// kind, computed once per dictionary.
func (c *colCursor) kindSets() []fieldSet {
	if c.dictSets == nil {
		c.dictSets = make([]fieldSet, len(c.dictStr))
		for i, s := range c.dictStr {
			c.dictSets[i], _ = Kind(s).fieldSet()
		}
	}
	return c.dictSets
}

func (c *colCursor) dictIndex(i, n int) int {
	j := int(c.idx[i])
	if j < 0 || j >= n {
		corruptf("column %s: dictionary index %d of %d", c.path, j, n)
	}
	return j
}
