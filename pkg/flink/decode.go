package flink

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/jobevent/jobevent/pkg/flink/javaser"
)

// errSkipRecord marks a type 2 or 3 payload that decodes to null: Flink's
// reader takes it for no event and reads on.
var errSkipRecord = errors.New("record holds a null event")

// DecodePayload decodes the payload of a record of type typ (1, 2 or 3) as
// Flink's serializers for that type read it (version 1). Errors name the
// part of the payload and the offset in it; an error matching
// javaser.ErrTruncated from a type 2 or 3 payload is what Flink takes for
// the end of the file. It is safe for concurrent use.
func DecodePayload(typ int32, payload []byte) (Event, error) {
	f := fastDecoders.Get().(*fastDecoder)
	ev, err := decodePayload(typ, payload, f)
	fastDecoders.Put(f)
	return ev, err
}

// decodePayload decodes a payload with the typed reader f where it can,
// and with the generic reader alone when f is nil.
func decodePayload(typ int32, payload []byte, f *fastDecoder) (Event, error) {
	switch typ {
	case TypeVertexFinished:
		return decodeFinished(payload, f)
	case TypeVertexReset, TypeJobVertexInitialized:
		if f != nil && typ == TypeVertexReset {
			if ev, ok := f.vertexReset(payload); ok {
				return ev, nil
			}
		}
		if f != nil && typ == TypeJobVertexInitialized {
			if ev, ok := f.jobVertexInitialized(payload); ok {
				return ev, nil
			}
		}
		v, err := javaser.DecodeObject(payload, nil)
		if err != nil {
			return nil, err
		}
		if v == nil {
			return nil, errSkipRecord
		}
		root := classInitialized
		if typ == TypeVertexReset {
			root = classReset
		}
		if err := javaCheck(v, root, false); err != nil {
			return nil, err
		}
		if typ == TypeVertexReset {
			return resetEvent(v)
		}
		return initializedEvent(v)
	}
	return nil, fmt.Errorf("unknown record type %d", typ)
}

// blob returns the next int32-length-prefixed part of a type 1 payload.
func blob(p []byte, off *int, what string) ([]byte, error) {
	if len(p)-*off < 4 {
		return nil, fmt.Errorf("%s length at payload byte %d: payload ends", what, *off)
	}
	n := int32(binary.BigEndian.Uint32(p[*off:]))
	*off += 4
	if n < 0 || int(n) > len(p)-*off {
		return nil, fmt.Errorf("%s length %d at payload byte %d: %d bytes left", what, n, *off-4, len(p)-*off)
	}
	b := p[*off : *off+int(n)]
	*off += int(n)
	return b, nil
}

// decodeFinished reads ExecutionVertexFinishedEvent.Serializer's form:
// the event, the coordinator snapshots and, if its length is positive, the
// shuffle master snapshot, each an int32 length and a Java stream.
func decodeFinished(p []byte, f *fastDecoder) (*VertexFinished, error) {
	off := 0
	b1, err := blob(p, &off, "event")
	if err != nil {
		return nil, err
	}
	var ev *VertexFinished
	ok := false
	if f != nil {
		ev, ok = f.finished(b1)
	}
	if !ok {
		if ev, err = decodeFinishedEvent(b1); err != nil {
			return nil, fmt.Errorf("event stream at payload byte 4: %w", err)
		}
	}
	at := off + 4
	b2, err := blob(p, &off, "coordinator snapshots")
	if err != nil {
		return nil, err
	}
	ok = false
	if f != nil {
		ev.CoordinatorSnapshots, ok = f.coordinatorSnapshots(b2)
	}
	if !ok {
		if ev.CoordinatorSnapshots, err = coordinatorSnapshots(b2); err != nil {
			return nil, fmt.Errorf("coordinator snapshots stream at payload byte %d: %w", at, err)
		}
	}
	if len(p)-off < 4 {
		return nil, fmt.Errorf("shuffle master snapshot length at payload byte %d: payload ends", off)
	}
	if int32(binary.BigEndian.Uint32(p[off:])) <= 0 {
		return ev, nil // no snapshot: Flink reads a length <= 0 as none
	}
	at = off + 4
	b3, err := blob(p, &off, "shuffle master snapshot")
	if err != nil {
		return nil, err
	}
	ev.SnapshotPoint = true
	if f != nil {
		ev.ShuffleMasterSnapshot, ev.ShuffleMasterSnapshotClass, err = f.shuffleMasterSnapshot(b3)
	} else {
		ev.ShuffleMasterSnapshot, ev.ShuffleMasterSnapshotClass, err = shuffleMasterSnapshot(b3, nil)
	}
	if err != nil {
		return nil, fmt.Errorf("shuffle master snapshot stream at payload byte %d: %w", at, err)
	}
	return ev, nil
}

// shuffleMasterSnapshot reads a shuffle master snapshot stream, with d or
// (nil) a Decoder of its own, and returns its value and class name.
func shuffleMasterSnapshot(b []byte, d *javaser.Decoder) (javaser.Value, string, error) {
	var v javaser.Value
	var err error
	if d != nil {
		v, err = d.DecodeObject(b)
	} else {
		v, err = javaser.DecodeObject(b, nil)
	}
	if err == nil {
		err = javaCheck(v, "", true)
	}
	if err != nil {
		return nil, "", err
	}
	if o, ok := v.(*javaser.Object); ok {
		return v, o.Class.Name, nil
	}
	return v, "", nil
}

// decodeFinishedEvent reads the event stream of a type 1 record with the
// generic reader.
func decodeFinishedEvent(b []byte) (*VertexFinished, error) {
	v, err := javaser.DecodeObject(b, nil)
	if err != nil {
		return nil, err
	}
	if err := javaCheck(v, classFinished, false); err != nil {
		return nil, err
	}
	return finishedEvent(v)
}

func finishedEvent(v javaser.Value) (*VertexFinished, error) {
	e, err := asObj(v, classFinished, shortName(classFinished))
	if err != nil {
		return nil, err
	}
	ev := &VertexFinished{}
	a, err := e.object("executionAttemptId", classAttemptID)
	if err != nil {
		return nil, err
	}
	if ev.AttemptID, err = attemptID(a); err != nil {
		return nil, err
	}
	loc, err := e.object("taskManagerLocation", classLocation)
	if err != nil {
		return nil, err
	}
	if ev.Location, err = location(loc); err != nil {
		return nil, err
	}
	m, err := e.object("ioMetrics", classIOMetrics)
	if err != nil {
		return nil, err
	}
	if ev.IOMetrics, err = ioMetrics(m); err != nil {
		return nil, err
	}
	ev.Accumulators, err = accumulators(e)
	return ev, err
}

func attemptID(a obj) (ExecutionAttemptID, error) {
	var id ExecutionAttemptID
	var err error
	if id.AttemptNumber, err = a.int32("attemptNumber"); err != nil {
		return id, err
	}
	if id.ExecutionGraphID, err = a.id("executionGraphId"); err != nil {
		return id, err
	}
	v, err := a.object("executionVertexId", classVertexID)
	if err != nil {
		return id, err
	}
	id.Vertex, err = vertexID(v)
	return id, err
}

func vertexID(v obj) (ExecutionVertexID, error) {
	var id ExecutionVertexID
	var err error
	if id.SubtaskIndex, err = v.int32("subtaskIndex"); err != nil {
		return id, err
	}
	id.JobVertexID, err = v.id("jobVertexId")
	return id, err
}

func location(l obj) (TaskManagerLocation, error) {
	var loc TaskManagerLocation
	var err error
	if loc.DataPort, err = l.int32("dataPort"); err != nil {
		return loc, err
	}
	if loc.NodeID, err = l.string("nodeId"); err != nil {
		return loc, err
	}
	r, err := l.object("resourceID", classResourceID)
	if err != nil {
		return loc, err
	}
	if loc.ResourceID, err = r.string("resourceId"); err != nil {
		return loc, err
	}
	if loc.ResourceMetadata, err = r.string("metadata"); err != nil {
		return loc, err
	}
	v, p, err := l.value("inetAddress")
	if err != nil {
		return loc, err
	}
	if v == nil {
		return loc, nil // null: Java reads on
	}
	ia, err := javaser.AsInetAddress(v)
	if err != nil {
		return loc, fmt.Errorf("%s: %w", p, err)
	}
	loc.Addr, loc.HostName = ia.Addr, ia.HostName
	return loc, nil
}

func ioMetrics(m obj) (IOMetrics, error) {
	var io IOMetrics
	longs := []struct {
		name string
		dst  *int64
	}{
		{"numRecordsIn", &io.NumRecordsIn}, {"numRecordsOut", &io.NumRecordsOut},
		{"numBytesIn", &io.NumBytesIn}, {"numBytesOut", &io.NumBytesOut},
		{"accumulateBackPressuredTime", &io.AccumulateBackPressuredTime},
		{"accumulateIdleTime", &io.AccumulateIdleTime},
	}
	var err error
	for _, l := range longs {
		if *l.dst, err = m.int64(l.name); err != nil {
			return io, err
		}
	}
	if io.AccumulateBusyTime, err = m.float64("accumulateBusyTime"); err != nil {
		return io, err
	}
	entries, p, err := m.mapEntries("resultPartitionBytes")
	if err != nil {
		return io, err
	}
	for i, e := range entries {
		pb, err := partitionBytes(e, fmt.Sprintf("%s[%d]", p, i))
		if err != nil {
			return io, err
		}
		io.ResultPartitionBytes = append(io.ResultPartitionBytes, pb)
	}
	return io, nil
}

func partitionBytes(e javaser.Entry, path string) (PartitionBytes, error) {
	var pb PartitionBytes
	k, err := asObj(e.Key, classPartitionID, path+".key")
	if err != nil {
		return pb, err
	}
	if pb.Partition.PartitionNum, err = k.int32("partitionNum"); err != nil {
		return pb, err
	}
	if pb.Partition.DataSetID, err = k.id("intermediateDataSetID"); err != nil {
		return pb, err
	}
	val, err := asObj(e.Value, classPartitionBytes, path+".value")
	if err != nil {
		return pb, err
	}
	a, p, err := val.value("subpartitionBytes")
	if err != nil {
		return pb, err
	}
	arr, ok := a.(*javaser.Array)
	if !ok {
		return pb, fmt.Errorf("%s is %s, want a long[]", p, describe(a))
	}
	if pb.SubpartitionBytes, ok = arr.Data.([]int64); !ok {
		return pb, fmt.Errorf("%s is %s, want a long[]", p, describe(a))
	}
	return pb, nil
}

func accumulators(e obj) ([]Accumulator, error) {
	entries, p, err := e.mapEntries("userAccumulators")
	if err != nil || entries == nil {
		return nil, err
	}
	out := make([]Accumulator, 0, len(entries))
	for i, en := range entries {
		name, ok := en.Key.(string)
		if !ok {
			return nil, fmt.Errorf("%s[%d].key is %s, want a string", p, i, describe(en.Key))
		}
		a := Accumulator{Name: name, Value: en.Value}
		if o, ok := en.Value.(*javaser.Object); ok {
			a.Class = o.Class.Name
		}
		out = append(out, a)
	}
	return out, nil
}

// coordinatorSnapshots reads the HashMap<OperatorID, byte[]> stream.
func coordinatorSnapshots(b []byte) ([]CoordinatorSnapshot, error) {
	v, err := javaser.DecodeObject(b, nil)
	if err != nil {
		return nil, err
	}
	if err := javaCheck(v, "java.util.Map", false); err != nil {
		return nil, err
	}
	entries, err := javaser.AsMap(v)
	if err != nil {
		return nil, err
	}
	out := make([]CoordinatorSnapshot, 0, len(entries))
	for i, e := range entries {
		path := fmt.Sprintf("coordinator snapshot %d", i)
		id, err := abstractID(e.Key, path+" key")
		if err != nil {
			return nil, err
		}
		arr, ok := e.Value.(*javaser.Array)
		var state []byte
		if ok {
			state, ok = arr.Data.([]byte)
		}
		if !ok {
			return nil, fmt.Errorf("%s value is %s, want a byte[]", path, describe(e.Value))
		}
		out = append(out, CoordinatorSnapshot{OperatorID: id, State: state})
	}
	return out, nil
}

func resetEvent(v javaser.Value) (*VertexReset, error) {
	e, err := asObj(v, classReset, shortName(classReset))
	if err != nil {
		return nil, err
	}
	elems, p, err := e.list("executionVertexIds")
	if err != nil {
		return nil, err
	}
	ev := &VertexReset{Vertices: make([]ExecutionVertexID, 0, len(elems))}
	for i, el := range elems {
		o, err := asObj(el, classVertexID, fmt.Sprintf("%s[%d]", p, i))
		if err != nil {
			return nil, err
		}
		id, err := vertexID(o)
		if err != nil {
			return nil, err
		}
		ev.Vertices = append(ev.Vertices, id)
	}
	return ev, nil
}
