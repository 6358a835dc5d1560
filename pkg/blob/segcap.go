package blob

import (
	"bytes"
	"fmt"

	"github.com/jobevent/jobevent/pkg/format"
)

// MaxSegmentBytes bounds the size of every segment the package writes (the
// Writer, WriteSegment, Import and Compact). It keeps every upload a single
// request: the S3 transfer manager switches to a multipart upload at 16 MiB,
// and S3-compatible servers that ignore If-None-Match on multipart uploads
// (gofakes3 among them) would then let a second writer overwrite a segment.
// Part of the format: readers may rely on segments being this small.
const MaxSegmentBytes = 15 << 20

// maxSegmentBytes is MaxSegmentBytes; tests lower it.
var maxSegmentBytes = MaxSegmentBytes

// encodeCapped encodes events as segments of at most maxSegmentBytes each,
// halving a run of events whose segment is too large, and calls fn with
// each run and its encoded bytes, in seq order. data is only valid during
// the call. A single event whose segment alone is too large is an error
// wrapping ErrSegmentTooLarge; so is any error fn returns, unchanged.
func encodeCapped(buf *bytes.Buffer, events []format.Event, fn func(part []format.Event, data []byte) error) error {
	buf.Reset()
	if err := format.EncodeSegment(buf, events); err != nil {
		return fmt.Errorf("epoch %d: %w", events[0].Epoch, err)
	}
	if buf.Len() <= maxSegmentBytes {
		return fn(events, buf.Bytes())
	}
	if len(events) == 1 {
		return fmt.Errorf("event of epoch %d seq %d encodes to %d bytes: %w (at most %d bytes)",
			events[0].Epoch, events[0].Seq, buf.Len(), ErrSegmentTooLarge, maxSegmentBytes)
	}
	mid := len(events) / 2
	if err := encodeCapped(buf, events[:mid], fn); err != nil {
		return err
	}
	return encodeCapped(buf, events[mid:], fn)
}
