package flink

import (
	"encoding/binary"
	"net/netip"
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
}

var fastDecoders = sync.Pool{New: func() any { return new(fastDecoder) }}

func (f *fastDecoder) reset(b []byte) {
	f.failed = f.d.Reset(b) != nil
	f.inetHandle = -1
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
	f.int32() // loadFactor
	f.int32() // threshold
	return f.blockInt32s(8)
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

// finished reads the event stream of a type 1 record.
func (f *fastDecoder) finished(b []byte) (*VertexFinished, bool) {
	f.reset(b)
	if !f.begin(&shapeFinished) {
		return nil, false
	}
	ev := &VertexFinished{}
	ev.AttemptID = f.attemptID()
	ev.IOMetrics = f.ioMetrics()
	ev.Location = f.location()
	ev.Accumulators = f.accumulators()
	f.end()
	return ev, !f.failed
}

func (f *fastDecoder) attemptID() (id ExecutionAttemptID) {
	if f.begin(&shapeAttemptID) {
		id.AttemptNumber = f.int32()
		id.ExecutionGraphID = f.id()
		id.Vertex = f.vertexID()
		f.end()
	}
	return id
}

func (f *fastDecoder) vertexID() (id ExecutionVertexID) {
	if f.begin(&shapeVertexID) {
		id.SubtaskIndex = f.int32()
		id.JobVertexID = f.id()
		f.end()
	}
	return id
}

func (f *fastDecoder) ioMetrics() (m IOMetrics) {
	if !f.begin(&shapeIOMetrics) {
		return m
	}
	m.AccumulateBackPressuredTime = f.int64()
	m.AccumulateBusyTime = f.float64()
	m.AccumulateIdleTime = f.int64()
	m.NumBytesIn = f.int64()
	m.NumBytesOut = f.int64()
	m.NumRecordsIn = f.int64()
	m.NumRecordsOut = f.int64()
	if !f.null() {
		n := f.hashMap()
		for i := 0; i < n && !f.failed; i++ {
			var pb PartitionBytes
			if f.begin(&shapePartitionID) {
				pb.Partition.PartitionNum = f.int32()
				pb.Partition.DataSetID = f.id()
				f.end()
			}
			if f.begin(&shapePartitionBytes) {
				var err error
				pb.SubpartitionBytes, err = f.d.ReadInt64Array()
				f.check(err)
				f.end()
			}
			m.ResultPartitionBytes = append(m.ResultPartitionBytes, pb)
		}
		f.endMap()
	}
	f.end()
	return m
}

func (f *fastDecoder) location() (loc TaskManagerLocation) {
	if !f.begin(&shapeLocation) {
		return loc
	}
	loc.DataPort = f.int32()
	f.hostNameSupplier()
	ia := f.inetAddress()
	loc.Addr, loc.HostName = ia.Addr, ia.HostName
	loc.NodeID = f.string()
	if f.begin(&shapeResourceID) {
		loc.ResourceMetadata = f.string()
		loc.ResourceID = f.string()
		f.end()
	}
	f.skip() // stringRepresentation
	f.end()
	return loc
}

// hostNameSupplier reads TaskManagerLocation.hostNameSupplier, which holds
// the InetAddress that the inetAddress field then refers to.
func (f *fastDecoder) hostNameSupplier() {
	if f.failed || f.d.PeekCode() != javaser.CodeObject {
		f.skip()
		return
	}
	h, err := f.d.BeginObject()
	switch {
	case err != nil:
		f.failed = true
	case f.match(&shapeDefaultSupplier, h.Class):
		f.skip() // fqdnHostName
		f.skip() // hostName
		f.inetAddress()
		f.end()
	case f.match(&shapeIPOnlySupplier, h.Class):
		f.inetAddress()
		f.end()
	default:
		_, err := f.d.FinishObject(h)
		f.check(err)
	}
}

// inetAddress reads an InetAddress field as javaser.AsInetAddress does:
// an Inet4Address without building its Value (and remembered for the
// references to it), anything else with the generic reader.
func (f *fastDecoder) inetAddress() javaser.InetAddress {
	if f.failed {
		return javaser.InetAddress{}
	}
	if f.d.PeekCode() == javaser.CodeReference {
		h, v, built, err := f.d.ReadReference()
		switch {
		case err != nil || (!built && h != f.inetHandle):
			f.failed = true
		case !built:
			return f.inet
		}
		return f.asInetAddress(v)
	}
	h, err := f.d.BeginObject()
	if err != nil {
		f.failed = true
		return javaser.InetAddress{}
	}
	if !f.match(&shapeInet4, h.Class) {
		v, err := f.d.FinishObject(h)
		f.check(err)
		return f.asInetAddress(v)
	}
	a := f.int32()
	f.int32() // family
	ia := javaser.InetAddress{HostName: f.string()}
	if !f.failed {
		f.check(f.d.SkipAnnotation())
	}
	f.end()
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(a))
	ia.Addr = netip.AddrFrom4(b)
	f.inet, f.inetHandle = ia, h.Handle
	return ia
}

func (f *fastDecoder) asInetAddress(v javaser.Value) javaser.InetAddress {
	if f.failed {
		return javaser.InetAddress{}
	}
	ia, err := javaser.AsInetAddress(v)
	f.check(err)
	return ia
}

// accumulators reads the userAccumulators ConcurrentHashMap: its segments
// are skipped, its keys and values read with the generic reader.
func (f *fastDecoder) accumulators() []Accumulator {
	if f.null() || !f.begin(&shapeConcurrentMap) {
		return nil
	}
	f.int32() // segmentMask
	f.int32() // segmentShift
	f.skip()  // segments
	out := []Accumulator{}
	for !f.failed {
		k, v := f.value(), f.value()
		if k == nil {
			if v != nil {
				f.failed = true
			}
			break
		}
		name, ok := k.(string)
		if !ok {
			f.failed = true
			break
		}
		a := Accumulator{Name: name, Value: v}
		if o, ok := v.(*javaser.Object); ok {
			a.Class = o.Class.Name
		}
		out = append(out, a)
	}
	f.endMap()
	return out
}

// coordinatorSnapshots reads the HashMap<OperatorID, byte[]> stream of a
// type 1 record.
func (f *fastDecoder) coordinatorSnapshots(b []byte) ([]CoordinatorSnapshot, bool) {
	f.reset(b)
	n := f.hashMap()
	out := make([]CoordinatorSnapshot, 0, min(n, len(b)/8))
	for i := 0; i < n && !f.failed; i++ {
		s := CoordinatorSnapshot{OperatorID: f.id()}
		if !f.failed {
			var err error
			s.State, err = f.d.ReadByteArray()
			f.check(err)
		}
		out = append(out, s)
	}
	f.endMap()
	return out, !f.failed
}

// vertexReset reads the stream of a type 2 record.
func (f *fastDecoder) vertexReset(b []byte) (*VertexReset, bool) {
	f.reset(b)
	if !f.begin(&shapeReset) || !f.begin(&shapeArrayList) {
		return nil, false
	}
	f.int32() // size
	n := f.blockInt32s(4)
	ev := &VertexReset{Vertices: make([]ExecutionVertexID, 0, min(n, len(b)/8))}
	for i := 0; i < n && !f.failed; i++ {
		ev.Vertices = append(ev.Vertices, f.vertexID())
	}
	f.endMap()
	f.end()
	return ev, !f.failed
}
