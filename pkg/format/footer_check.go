package format

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// checkFooter walks the Thrift compact encoding of a segment's footer (its
// FileMetaData) and refuses one whose lists, sets, maps or byte strings
// claim more elements or bytes than the footer has left, or that nests
// deeper than maxFooterDepth. Parquet's reader allocates what a footer
// claims before it reads the elements, so a footer damaged where no
// checksum guards it (a file without ChecksumKey) could otherwise ask for
// gigabytes. It checks the encoding's sizes alone, not what the fields
// mean; OpenFile does that.
func checkFooter(footer []byte) error {
	w := footerWalker{b: footer}
	if err := w.structure(0); err != nil {
		return fmt.Errorf("footer byte %d: %w: %w", w.pos, err, ErrCorrupt)
	}
	return nil
}

// maxFooterDepth bounds the nesting of a footer's structures and lists: a
// FileMetaData nests a few levels.
const maxFooterDepth = 64

var errFooterEnd = errors.New("ends inside a value")

// footerWalker reads Thrift's compact protocol, skipping values.
type footerWalker struct {
	b   []byte
	pos int
}

func (w *footerWalker) left() int { return len(w.b) - w.pos }

func (w *footerWalker) byte() (byte, error) {
	if w.pos >= len(w.b) {
		return 0, errFooterEnd
	}
	w.pos++
	return w.b[w.pos-1], nil
}

func (w *footerWalker) varint() (uint64, error) {
	v, n := binary.Uvarint(w.b[w.pos:])
	switch {
	case n == 0:
		return 0, errFooterEnd
	case n < 0:
		return 0, errors.New("varint longer than 64 bits")
	}
	w.pos += n
	return v, nil
}

func (w *footerWalker) skip(n uint64) error {
	if n > uint64(w.left()) {
		return fmt.Errorf("%d bytes claimed, %d left", n, w.left())
	}
	w.pos += int(n)
	return nil
}

// structure skips a structure's fields up to its stop byte.
func (w *footerWalker) structure(depth int) error {
	if depth > maxFooterDepth {
		return fmt.Errorf("nested deeper than %d", maxFooterDepth)
	}
	for {
		h, err := w.byte()
		if err != nil {
			return err
		}
		if h == 0 { // stop
			return nil
		}
		if h>>4 == 0 { // the field id follows, as a zigzag varint
			if _, err := w.varint(); err != nil {
				return err
			}
		}
		if err := w.value(h&0x0f, depth, true); err != nil {
			return err
		}
	}
}

// value skips a value of compact type t: of a field (whose booleans are
// in its header) or an element.
func (w *footerWalker) value(t byte, depth int, field bool) error {
	switch t {
	case 1, 2: // boolean
		if field {
			return nil
		}
		return w.skip(1)
	case 3: // i8
		return w.skip(1)
	case 4, 5, 6: // i16, i32, i64
		_, err := w.varint()
		return err
	case 7: // double
		return w.skip(8)
	case 8: // binary
		n, err := w.varint()
		if err != nil {
			return err
		}
		return w.skip(n)
	case 9, 10: // list, set
		h, err := w.byte()
		if err != nil {
			return err
		}
		n := uint64(h >> 4)
		if n == 15 {
			if n, err = w.varint(); err != nil {
				return err
			}
		}
		if n > uint64(w.left()) { // every element takes a byte at least
			return fmt.Errorf("list of %d elements in %d bytes", n, w.left())
		}
		for range n {
			if err := w.value(h&0x0f, depth+1, false); err != nil {
				return err
			}
		}
		return nil
	case 11: // map
		n, err := w.varint()
		if err != nil || n == 0 {
			return err
		}
		kv, err := w.byte()
		if err != nil {
			return err
		}
		if n > uint64(w.left())/2 { // every pair takes two bytes at least
			return fmt.Errorf("map of %d entries in %d bytes", n, w.left())
		}
		for range n {
			if err := w.value(kv>>4, depth+1, false); err != nil {
				return err
			}
			if err := w.value(kv&0x0f, depth+1, false); err != nil {
				return err
			}
		}
		return nil
	case 12: // struct
		return w.structure(depth + 1)
	case 13: // uuid
		return w.skip(16)
	}
	return fmt.Errorf("unknown type %d", t)
}
