package javaser

import (
	"encoding/binary"
	"strconv"
)

// annotationReader reads the annotation of one class of an object as its
// readObject method would: primitives from the block data, objects in
// between.
type annotationReader struct {
	o     *Object
	items []Value
	i     int
	block []byte
}

func (r *annotationReader) int32(what string) (int32, error) {
	if len(r.block) == 0 && r.i < len(r.items) {
		if b, ok := r.items[r.i].(BlockData); ok {
			r.block = b
			r.i++
		}
	}
	if len(r.block) < 4 {
		return 0, badForm(r.o, "no int %s in the written data", what)
	}
	v := int32(binary.BigEndian.Uint32(r.block))
	r.block = r.block[4:]
	return v, nil
}

func (r *annotationReader) object() (Value, error) {
	if len(r.block) > 0 || r.i >= len(r.items) {
		return nil, badForm(r.o, "written data ends where an object was expected")
	}
	v := r.items[r.i]
	if _, ok := v.(BlockData); ok {
		return nil, badForm(r.o, "primitive data where an object was expected")
	}
	r.i++
	return v, nil
}

// left returns how many items remain unread.
func (r *annotationReader) left() int { return len(r.items) - r.i }

// countedObjects reads the annotation of class in o: skip ints, an int
// count, then count*per objects (ArrayList, LinkedList: count elements;
// HashMap, Hashtable: capacity, count, then pairs; TreeMap: count, pairs).
func countedObjects(o *Object, class string, skip, per int) ([]Value, error) {
	cd := o.ClassData(class)
	if cd == nil {
		return nil, badForm(o, "no data of %s", class)
	}
	r := &annotationReader{o: o, items: cd.Annotation}
	for range skip {
		if _, err := r.int32("capacity"); err != nil {
			return nil, err
		}
	}
	n, err := r.int32("size")
	if err != nil {
		return nil, err
	}
	if n < 0 || int64(n)*int64(per) > int64(r.left()) {
		return nil, badForm(o, "size %d, but %d objects written", n, r.left())
	}
	out := make([]Value, int(n)*per)
	for i := range out {
		if out[i], err = r.object(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// sizedEntries reads the pairs of a map whose writeObject writes skip ints,
// a count and the pairs.
func sizedEntries(o *Object, class string, skip int) ([]Entry, error) {
	vals, err := countedObjects(o, class, skip, 2)
	if err != nil {
		return nil, err
	}
	return pairs(o, vals)
}

func pairs(o *Object, vals []Value) ([]Entry, error) {
	if len(vals)%2 != 0 {
		return nil, badForm(o, "%d keys and values", len(vals))
	}
	out := make([]Entry, len(vals)/2)
	for i := range out {
		out[i] = Entry{vals[2*i], vals[2*i+1]}
	}
	return out, nil
}

// concurrentEntries reads ConcurrentHashMap's writeObject form: its
// segments as fields, then keys and values as objects, ended by two nulls.
func concurrentEntries(o *Object) ([]Entry, error) {
	cd := o.ClassData("java.util.concurrent.ConcurrentHashMap")
	if cd == nil {
		return nil, badForm(o, "no data of java.util.concurrent.ConcurrentHashMap")
	}
	r := &annotationReader{o: o, items: cd.Annotation}
	out := []Entry{}
	for {
		k, err := r.object()
		if err != nil {
			return nil, err
		}
		v, err := r.object()
		if err != nil {
			return nil, err
		}
		if k == nil {
			if v != nil {
				return nil, badForm(o, "a value without a key")
			}
			return out, nil
		}
		out = append(out, Entry{k, v})
	}
}

// collSer reads java.util.CollSer, the serial form of the immutable
// collections of List.of, Set.of and Map.of: a tag field, then an int
// count and that many objects. tags lists the kinds accepted.
func collSer(o *Object, tags ...int32) ([]Value, error) {
	tag, _ := fieldOf(o, "java.util.CollSer", "tag").(int32)
	for _, t := range tags {
		if tag&0xff == t {
			return countedObjects(o, "java.util.CollSer", 0, 1)
		}
	}
	return nil, notAdapted(o, "this kind of immutable collection")
}

// maxCopies bounds the list AsList makes of Collections.nCopies, whose
// length is a field and not backed by the input.
const maxCopies = 1 << 16

// copies reads Collections$CopiesList (Collections.nCopies).
func copies(o *Object) ([]Value, error) {
	n, ok := fieldOf(o, "java.util.Collections$CopiesList", "n").(int32)
	if !ok || n < 0 {
		return nil, badForm(o, "no count n")
	}
	if n > maxCopies {
		return nil, &DecodeError{Offset: o.Offset, Kind: ErrLimit, Detail: "limit: nCopies list of " + strconv.Itoa(int(n)) + " elements"}
	}
	e := fieldOf(o, "java.util.Collections$CopiesList", "element")
	out := make([]Value, n)
	for i := range out {
		out[i] = e
	}
	return out, nil
}
