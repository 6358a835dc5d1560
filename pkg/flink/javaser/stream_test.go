package javaser

import (
	"bytes"
	"encoding/binary"
)

// stream builds serialization streams by hand for tests, from the grammar of
// the protocol specification.
type stream struct{ bytes.Buffer }

func newStream() *stream {
	s := &stream{}
	s.Write([]byte{0xac, 0xed, 0x00, 0x05})
	return s
}

func (s *stream) b(bs ...byte) *stream { s.Write(bs); return s }

func (s *stream) u16(v uint16) *stream {
	s.Write(binary.BigEndian.AppendUint16(nil, v))
	return s
}

func (s *stream) i32(v int32) *stream {
	s.Write(binary.BigEndian.AppendUint32(nil, uint32(v)))
	return s
}

func (s *stream) i64(v int64) *stream {
	s.Write(binary.BigEndian.AppendUint64(nil, uint64(v)))
	return s
}

func (s *stream) utf(v string) *stream {
	s.u16(uint16(len(v)))
	s.WriteString(v)
	return s
}

// classDesc writes TC_CLASSDESC with no annotation and no superclass; each
// field is "Tname" (a primitive) or "Lname;Lsig;" is not supported: object
// fields are written as 'L' with signature Ljava/lang/Object;.
func (s *stream) classDesc(name string, flags byte, fields ...string) *stream {
	s.b(tcClassDesc).utf(name).i64(1).b(flags).u16(uint16(len(fields)))
	for _, f := range fields {
		s.b(f[0]).utf(f[1:])
		if f[0] == 'L' || f[0] == '[' {
			s.b(tcString).utf("Ljava/lang/Object;")
		}
	}
	return s.b(tcEndBlockData, tcNull)
}

func (s *stream) ref(handle int) *stream { return s.b(tcReference).i32(int32(baseWireHandle + handle)) }
