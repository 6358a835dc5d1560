package blob

import (
	"bytes"
	"context"
	"fmt"
	"io"

	gcblob "gocloud.dev/blob"
)

// contentTypeOctets is the content type of objects copied byte for byte.
const contentTypeOctets = "application/octet-stream"

// Put writes data as key (relative to the bucket's prefix), replacing any
// object there, with one bounded upload. Readers see the old object or the
// new one, never a part. Safe for concurrent use.
func (b *Bucket) Put(ctx context.Context, key string, data []byte) error {
	return b.store.put(ctx, key, data, contentTypeOctets)
}

// CreateOnce writes data as key only if no object is there: an object
// with the same bytes is success (a retried write), with other bytes an
// error wrapping ErrExists. The claim is exclusive on every driver,
// file:// included (see ClaimEpoch). Safe for concurrent use.
func (b *Bucket) CreateOnce(ctx context.Context, key string, data []byte) error {
	return b.Log().createOnce(ctx, key, data, contentTypeOctets)
}

// ReadRange reads n bytes of key from offset off (fewer when the object
// ends first), with a bounded request: only those bytes are transferred.
// A missing key is an error wrapping ErrNotFound. Safe for concurrent use.
func (b *Bucket) ReadRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	if off < 0 || n < 0 || n > maxObjectBytes {
		return nil, fmt.Errorf("read %s: range %d+%d out of bounds", key, off, n)
	}
	return readRange(ctx, b.store, key, off, n)
}

// rangeStore is a store that reads part of an object.
type rangeStore interface {
	readRange(ctx context.Context, key string, off, n int64) ([]byte, error)
}

func readRange(ctx context.Context, st objectStore, key string, off, n int64) ([]byte, error) {
	switch s := st.(type) {
	case rangeStore:
		return s.readRange(ctx, key, off, n)
	case *subStore:
		return readRange(ctx, s.inner, s.rel+key, off, n)
	}
	data, err := st.get(ctx, key)
	if err != nil {
		return nil, err
	}
	if off >= int64(len(data)) {
		return nil, nil
	}
	return data[off:min(int64(len(data)), off+n)], nil
}

// readRange reads the range with gocloud's range reader; the request is
// canceled when no byte has arrived for requestTimeout.
func (s *bucketStore) readRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	if n == 0 {
		return nil, nil
	}
	rctx, kick, stop := idleContext(ctx, requestTimeout)
	defer stop()
	r, err := s.b.NewRangeReader(rctx, s.prefix+key, off, n, (*gcblob.ReaderOptions)(nil))
	if err != nil {
		return nil, s.translate(ctx, "read", key, requestTimeout, err)
	}
	defer r.Close()
	var buf bytes.Buffer
	buf.Grow(int(min(n, 1<<20)))
	if _, err := io.Copy(&buf, io.LimitReader(kickReader{r, kick}, n)); err != nil {
		return nil, s.translate(ctx, "read", key, requestTimeout, err)
	}
	return buf.Bytes(), nil
}
