package flink

import (
	"encoding/binary"
	"math"
	"sync"

	"github.com/jobevent/jobevent/pkg/flink/javaser"
)

// The typed reader: most of a job-events log is type 1 records whose
// streams hold the same few classes, so it reads those classes' fields
// straight into the event structs through javaser's typed methods, with
// no Values in between. It reads only the exact forms in decode_shapes.go
// and references it can resolve; on anything else it gives up, and the
// stream is read again by the generic reader (javaser.DecodeObject and the
// conversions in decode.go), so that both ways give the same event or the
// same error. Values it has no struct for (user accumulators) it reads with
// the generic reader in place.

// fastDecoder is the typed reader's state, kept across streams. A
// fastDecoder is not safe for concurrent use.
type fastDecoder struct {
	d javaser.Decoder
	// failed is set when the stream is not of a form the typed reader
	// reads; every read after it does nothing.
	failed bool
	// seen holds, per shape, the last descriptor found to match it:
	// descriptors are immutable and the descriptor cache hands out the
	// same ones stream after stream.
	seen [numShapes]*javaser.ClassDesc
	// inet is the InetAddress read last without its Value, and inetHandle
	// its handle (-1 if none), for the reference that follows it.
	inet       javaser.InetAddress
	inetHandle int
	// ranges are the IndexRanges of a type 3 stream read so far, by
	// handle, for the references to them.
	ranges []handleRange
	// validDescs are descriptors javaValid found to pass Java's checks.
	validDescs map[*javaser.ClassDesc]bool
	// lastValid are the descriptors of the last streams javaValid passed
	// (a record holds streams of several forms), in handle order, the
	// oldest at nextValid; descs is the buffer it lists a stream's in.
	lastValid [4][]*javaser.ClassDesc
	nextValid int
	descs     []*javaser.ClassDesc
	// marks are the offsets of the holes of the stream read last, and
	// finishedT, coordsT and shuffle the streams read before that the
	// next ones may repeat (decode_template.go).
	marks     []int
	finishedT templates[VertexFinished]
	coordsT   templates[struct{}]
	shuffle   shuffleSnapshot
}

type handleRange struct {
	handle int
	r      IndexRange
}

var fastDecoders = sync.Pool{New: func() any { return new(fastDecoder) }}

func (f *fastDecoder) reset(b []byte) {
	f.failed = f.d.Reset(b) != nil
	f.inetHandle = -1
	f.marks = f.marks[:0]
}

func (f *fastDecoder) check(err error) {
	if err != nil {
		f.failed = true
	}
}

// match reports whether cd has shape s.
func (f *fastDecoder) match(s *shape, cd *javaser.ClassDesc) bool {
	if f.seen[s.id] == cd {
		return true
	}
	if !s.matches(cd) {
		return false
	}
	f.seen[s.id] = cd
	return true
}

// begin begins the object that must come next, of shape s.
func (f *fastDecoder) begin(s *shape) bool {
	if f.failed {
		return false
	}
	h, err := f.d.BeginObject()
	if err != nil || !f.match(s, h.Class) {
		f.failed = true
		return false
	}
	return true
}

// end ends the object begun last.
func (f *fastDecoder) end() {
	if !f.failed {
		f.d.EndObject()
	}
}

func (f *fastDecoder) int32() int32 {
	if f.failed {
		return 0
	}
	v, err := f.d.ReadInt32()
	f.check(err)
	return v
}

func (f *fastDecoder) int64() int64 {
	if f.failed {
		return 0
	}
	v, err := f.d.ReadInt64()
	f.check(err)
	return v
}

func (f *fastDecoder) float64() float64 {
	if f.failed {
		return 0
	}
	v, err := f.d.ReadFloat64()
	f.check(err)
	return v
}

// string reads a String field; null is "".
func (f *fastDecoder) string() string {
	if f.failed {
		return ""
	}
	s, _, err := f.d.ReadString()
	f.check(err)
	return s
}

// value reads the next content with the generic reader.
func (f *fastDecoder) value() javaser.Value {
	if f.failed {
		return nil
	}
	v, err := f.d.ReadValue()
	f.check(err)
	return v
}

// skip reads a field whose value is not used.
func (f *fastDecoder) skip() {
	if !f.failed {
		f.check(f.d.SkipValue())
	}
}

// null reads a null if one comes next and reports whether it did.
func (f *fastDecoder) null() bool {
	if f.failed || f.d.PeekCode() != javaser.CodeNull {
		return false
	}
	_, err := f.d.ReadValue()
	f.check(err)
	return true
}

// id reads an object of a subclass of AbstractID that adds no fields.
func (f *fastDecoder) id() ID {
	if f.failed {
		return ID{}
	}
	h, err := f.d.BeginObject()
	if err != nil {
		f.failed = true
		return ID{}
	}
	if cd := h.Class; cd.Flags != serializable || len(cd.Fields) != 0 || cd.Super == nil ||
		!f.match(&shapeAbstractID, cd.Super) {
		f.failed = true
		return ID{}
	}
	f.mark()
	id := ID{Lower: f.int64(), Upper: f.int64()}
	f.end()
	return id
}

// hashMap begins a java.util.HashMap and reads its size; the caller reads
// the keys and values and calls endMap.
func (f *fastDecoder) hashMap() int {
	if !f.begin(&shapeHashMap) {
		return 0
	}
	return f.hashMapSize()
}

// hashMapSize reads the fields of a HashMap begun and the size its
// writeObject wrote.
func (f *fastDecoder) hashMapSize() int {
	if lf := math.Float32frombits(uint32(f.int32())); lf <= 0 || lf != lf {
		f.failed = true // HashMap.readObject refuses it: the generic reader says why
	}
	f.int32() // threshold
	return f.blockInt32s(8)
}

// mapKind is the class of a map anyMap began.
type mapKind struct {
	class   int  // mapHash, ...
	wrapped bool // in Collections.unmodifiableMap
}

const (
	mapHash = iota
	mapLinked
	mapEmpty
	mapSingleton
)

// anyMap begins a HashMap, a LinkedHashMap, Collections.emptyMap() or
// Collections.singletonMap(), maybe in Collections.unmodifiableMap(), as
// javaser.AsMap reads them, and returns its kind and size; the caller
// reads the keys and values (for a singleton map, its k and v fields) and
// calls endAnyMap.
func (f *fastDecoder) anyMap() (mapKind, int) {
	var k mapKind
	if f.failed {
		return k, 0
	}
	h, err := f.d.BeginObject()
	if err == nil && f.match(&shapeUnmodifiableMap, h.Class) {
		k.wrapped = true
		h, err = f.d.BeginObject()
	}
	if err != nil {
		f.failed = true
		return k, 0
	}
	switch cd := h.Class; {
	case f.match(&shapeHashMap, cd):
		return k, f.hashMapSize()
	case cd.Super != nil && shapeLinkedHashMap.matchesOwn(cd) && f.match(&shapeHashMap, cd.Super):
		k.class = mapLinked
		return k, f.hashMapSize()
	case f.match(&shapeEmptyMap, cd):
		k.class = mapEmpty
		return k, 0
	case f.match(&shapeSingletonMap, cd):
		k.class = mapSingleton
		return k, 1
	}
	f.failed = true
	return k, 0
}

// endAnyMap ends a map begun by anyMap.
func (f *fastDecoder) endAnyMap(k mapKind) {
	switch k.class {
	case mapHash:
		f.endMap()
	case mapLinked:
		if !f.failed {
			f.check(f.d.ReadEndBlockData())
		}
		if !f.failed {
			_, err := f.d.ReadBool() // accessOrder
			f.check(err)
		}
		f.end()
	default:
		f.end()
	}
	if k.wrapped {
		f.end()
	}
}

// arrayList begins a java.util.ArrayList and reads its size; the caller
// reads the elements and calls endMap.
func (f *fastDecoder) arrayList() int {
	if !f.begin(&shapeArrayList) {
		return 0
	}
	if f.int32() < 0 { // size, written again in the block
		f.failed = true // ArrayList.readObject refuses it
	}
	return f.blockInt32s(4)
}

// blockInt32s reads block data of n bytes (an int capacity, if n is 8,
// then an int size) and returns the size, which must not be negative.
func (f *fastDecoder) blockInt32s(n int) int {
	if f.failed {
		return 0
	}
	b, err := f.d.ReadBlockData()
	if err != nil || len(b) != n {
		f.failed = true
		return 0
	}
	size := int32(binary.BigEndian.Uint32(b[n-4:]))
	if size < 0 {
		f.failed = true
		return 0
	}
	return int(size)
}

// endMap reads the end of a writeObject method's data and ends the object.
func (f *fastDecoder) endMap() {
	if !f.failed {
		f.check(f.d.ReadEndBlockData())
	}
	f.end()
}
