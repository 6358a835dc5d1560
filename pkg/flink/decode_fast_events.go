package flink

import (
	"encoding/binary"
	"net/netip"

	"github.com/jobevent/jobevent/pkg/flink/javaser"
)

// The typed reader's reading of each payload stream, class by class, in
// the field order of decode_shapes.go. Where one expression reads several
// fields (ID{Lower: f.int64(), Upper: f.int64()}), Go calls the reads left
// to right, which is their order in the stream.

// finished reads the event stream of a type 1 record.
func (f *fastDecoder) finished(b []byte) (*VertexFinished, bool) {
	if i := f.finishedT.find(b); i >= 0 {
		return finishedFromTemplate(b, &f.finishedT.t[i], &f.finishedT.v[i]), true
	}
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
	if f.failed || !f.javaValid() {
		return ev, false
	}
	f.addFinishedTemplate(b, ev)
	return ev, true
}

func (f *fastDecoder) attemptID() (id ExecutionAttemptID) {
	if f.begin(&shapeAttemptID) {
		f.mark()
		id.AttemptNumber = f.int32()
		id.ExecutionGraphID = f.id()
		id.Vertex = f.vertexID()
		f.end()
	}
	return id
}

func (f *fastDecoder) vertexID() (id ExecutionVertexID) {
	if f.begin(&shapeVertexID) {
		f.mark()
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
	f.mark()
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
	f.mark()
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
		if err == nil && javaCheck(v, "java.net.InetAddress", false) != nil {
			f.failed = true // the generic reader says what Java says
		}
		return f.asInetAddress(v)
	}
	a := f.int32()
	if fam := f.int32(); fam != 1 && fam != 2 {
		f.failed = true // InetAddress.readObject refuses it
	}
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
	if i := f.coordsT.find(b); i >= 0 {
		return coordinatorsFromTemplate(b, &f.coordsT.t[i]), true
	}
	f.reset(b)
	n := f.hashMap()
	out := make([]CoordinatorSnapshot, 0, min(n, len(b)/8))
	for i := 0; i < n && !f.failed; i++ {
		s := CoordinatorSnapshot{OperatorID: f.id()}
		if !f.failed {
			var err error
			s.State, err = f.d.ReadByteArray()
			f.check(err)
			if err == nil { // its bytes are the last the array holds
				f.marks = append(f.marks, int(f.d.Offset())-len(s.State))
			}
		}
		out = append(out, s)
	}
	f.endMap()
	if f.failed || !f.javaValid() {
		return out, false
	}
	f.addCoordinatorsTemplate(b, out)
	return out, true
}

// vertexReset reads the stream of a type 2 record.
func (f *fastDecoder) vertexReset(b []byte) (*VertexReset, bool) {
	f.reset(b)
	if !f.begin(&shapeReset) {
		return nil, false
	}
	n := f.arrayList()
	ev := &VertexReset{Vertices: make([]ExecutionVertexID, 0, min(n, len(b)/8))}
	for i := 0; i < n && !f.failed; i++ {
		ev.Vertices = append(ev.Vertices, f.vertexID())
	}
	f.endMap()
	f.end()
	return ev, !f.failed && f.javaValid()
}

// jobVertexInitialized reads the stream of a type 3 record.
func (f *fastDecoder) jobVertexInitialized(b []byte) (*JobVertexInitialized, bool) {
	f.reset(b)
	f.ranges = f.ranges[:0]
	if !f.begin(&shapeInitialized) {
		return nil, false
	}
	ev := &JobVertexInitialized{Parallelism: f.int32(), JobVertexID: f.id()}
	null, kind, n := f.null(), mapKind{}, 0
	if !null {
		kind, n = f.anyMap()
	}
	ev.Inputs = make([]VertexInput, 0, min(n, len(b)/8))
	for i := 0; i < n && !f.failed; i++ {
		in := VertexInput{DataSetID: f.id()}
		if f.begin(&shapeJobVertexInput) {
			m := f.arrayList()
			in.Subtasks = make([]SubtaskInput, 0, min(m, len(b)/8))
			for j := 0; j < m && !f.failed; j++ {
				in.Subtasks = append(in.Subtasks, f.subtaskInput())
			}
			f.endMap()
			f.end()
		}
		ev.Inputs = append(ev.Inputs, in)
	}
	if !null {
		f.endAnyMap(kind)
	}
	f.end()
	return ev, !f.failed && f.javaValid()
}

// subtaskInput reads an ExecutionVertexInputInfo in Flink 1.20's form or
// 2.x's.
func (f *fastDecoder) subtaskInput() (s SubtaskInput) {
	if f.failed {
		return s
	}
	h, err := f.d.BeginObject()
	if err != nil {
		f.failed = true
		return s
	}
	switch {
	case f.match(&shapeVertexInput120, h.Class):
		s.SubtaskIndex = f.int32()
		g := ConsumedGroup{Partitions: f.indexRange(), Subpartitions: f.indexRange()}
		s.Groups = []ConsumedGroup{g}
	case f.match(&shapeVertexInput2, h.Class):
		s.SubtaskIndex = f.int32()
		kind, n := f.anyMap()
		s.Groups = make([]ConsumedGroup, 0, min(n, 1<<16))
		for i := 0; i < n && !f.failed; i++ {
			s.Groups = append(s.Groups, ConsumedGroup{Partitions: f.indexRange(), Subpartitions: f.indexRange()})
		}
		f.endAnyMap(kind)
	default:
		f.failed = true
	}
	f.end()
	return s
}

// indexRange reads an IndexRange, or a reference to one read before.
func (f *fastDecoder) indexRange() IndexRange {
	if f.failed {
		return IndexRange{}
	}
	if f.d.PeekCode() == javaser.CodeReference {
		h, _, built, err := f.d.ReadReference()
		for _, r := range f.ranges {
			if err == nil && !built && r.handle == h {
				return r.r
			}
		}
		f.failed = true
		return IndexRange{}
	}
	h, err := f.d.BeginObject()
	if err != nil || !f.match(&shapeIndexRange, h.Class) {
		f.failed = true
		return IndexRange{}
	}
	r := IndexRange{End: f.int32(), Start: f.int32()}
	f.end()
	f.ranges = append(f.ranges, handleRange{h.Handle, r})
	return r
}
