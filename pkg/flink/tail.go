package flink

import (
	"io"
)

// Tail decodes the records that bytes appended to a job-events file hold,
// without reading the file again: a poller (jobevent watch) keeps the
// offset after the last whole record of each file and the bytes of a
// record not yet whole, and hands Tail what is new. Records are decoded by
// the Reader's own decoder, so a record Tail returns is the record Reader
// returns at that offset. A Tail is not safe for concurrent use.
type Tail struct {
	name    string
	off     int64  // of pending[0] in the file: the end of the last whole record
	pending []byte // bytes of a record not yet whole
	seq     int64
}

// NewTail returns a Tail of file name whose records up to offset off have
// been read (off 0: none).
func NewTail(name string, off int64) *Tail { return &Tail{name: name, off: off} }

// Offset returns the offset after the last whole record.
func (t *Tail) Offset() int64 { return t.off }

// Pending returns how many bytes of a record not yet whole Tail holds.
func (t *Tail) Pending() int { return len(t.pending) }

// Append takes the bytes appended to the file after what earlier calls
// were given and returns the records they complete, in order. A record
// still cut short is kept for the next call. A record Flink's reader fails
// on is a *CorruptError, and a null record Flink skips is passed over, as
// Reader.Next does.
func (t *Tail) Append(data []byte) ([]*Record, error) {
	t.pending = append(t.pending, data...)
	var out []*Record
	var r Reader // the warnings decodeFailed gives are the Reader's, not Tail's
	pos := 0
	for {
		it, n, res := frame(t.pending[pos:], t.name, t.off+int64(pos), -1, false)
		if res == frameRecord {
			it.ev, it.err = DecodePayload(it.typ, it.payload)
			if it.err != nil {
				it.err = r.decodeFailed(it.file, it.off, it.typ, it.err)
			}
		}
		switch {
		case res == frameMore || res == frameEnd || it.err == errEndOfFile:
			// The end of what is there, or a record cut short: keep it.
			t.off += int64(pos)
			t.pending = append([]byte(nil), t.pending[pos:]...)
			return out, nil
		case it.err == errSkipRecord:
		case it.err != nil:
			return out, it.err
		default:
			t.seq++
			out = append(out, &Record{Seq: t.seq, File: t.name, Offset: it.off, Type: it.typ, Payload: it.payload, Event: it.ev})
		}
		pos += n
	}
}

// ScanFile reads the whole records of file name from r (a restart's look
// at a copy already kept) and returns a Tail positioned after them, with
// the bytes of a record cut short pending, and how many records there are.
func ScanFile(name string, r io.Reader) (*Tail, int, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, 0, err
	}
	t := NewTail(name, 0)
	recs, err := t.Append(data)
	return t, len(recs), err
}
