package flink

import (
	"encoding/binary"
	"net/netip"

	"github.com/jobevent/jobevent/pkg/flink/javaser"
)

// The typed reader's reading of each payload stream, class by class, in
// the field order of decode_shapes.go.

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
