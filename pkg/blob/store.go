package blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	gcblob "gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// requestTimeout bounds every request to a bucket that carries no body
// (stat, list page, delete, open), and how long a download may go without
// receiving a byte, so that an SDK that hangs (a black-holed endpoint, a
// metadata server that never answers) turns into an error instead of a
// stuck command. Uploads get requestTimeout plus the time to send their
// bytes at minThroughput. Tests shorten it.
var requestTimeout = 20 * time.Second

// minThroughput is the slowest upload, in bytes per second, that is not
// taken for a dead endpoint.
const minThroughput = 256 << 10

// uploadTimeout bounds the upload of n bytes.
func uploadTimeout(n int) time.Duration {
	return requestTimeout + time.Duration(n)*time.Second/minThroughput
}

// errIdle is the cause of a request canceled for want of progress.
var errIdle = errors.New("no progress")

// idleContext returns a context that is canceled when kick has not been
// called for d, and a function that stops the timer and releases it.
func idleContext(ctx context.Context, d time.Duration) (rctx context.Context, kick func(), stop func()) {
	rctx, cancel := context.WithCancelCause(ctx)
	t := time.AfterFunc(d, func() { cancel(errIdle) })
	return rctx, func() { t.Reset(d) }, func() { t.Stop(); cancel(nil) }
}

// objectInfo describes one listed object.
type objectInfo struct {
	Key     string // relative to the log's prefix
	Size    int64
	ModTime time.Time
}

// objectStore is everything the log needs from a bucket. It is the boundary
// where backend errors are translated, once: a missing object becomes
// ErrNotFound, a failed IfNotExist write errKeyTaken. Keys are relative to the
// log's prefix. Implementations are safe for concurrent use.
type objectStore interface {
	// create writes key only if it does not exist yet (errKeyTaken if it does).
	create(ctx context.Context, key string, data []byte, contentType string) error
	// put writes key, replacing any previous object.
	put(ctx context.Context, key string, data []byte, contentType string) error
	get(ctx context.Context, key string) ([]byte, error)
	stat(ctx context.Context, key string) (objectInfo, error)
	// list calls fn for every object under prefix, in key order; fn
	// returning errStopList ends the listing early without an error.
	list(ctx context.Context, prefix string, fn func(objectInfo) error) error
	// listLevel returns the objects and the "directories" directly under
	// prefix (a "/" delimited listing).
	listLevel(ctx context.Context, prefix string) (files, dirs []string, err error)
	delete(ctx context.Context, key string) error
	close() error
}

// errStopList ends a listing early.
var errStopList = errors.New("stop listing")

// bucketStore is an objectStore on a gocloud bucket. The prefix is applied
// here rather than with gcblob.PrefixedBucket, which would close the shared
// in-memory buckets of mem://.
type bucketStore struct {
	b      *gcblob.Bucket
	prefix string     // "" or ends with "/"
	shared bool       // the bucket outlives the log (mem://): do not close it
	cloud  *cloudInfo // s3, gs, azblob: classifies access errors; nil otherwise
}

// translate maps an error of the bucket to the package's: NotFound to
// ErrNotFound, a failed IfNotExist to errKeyTaken, and for cloud buckets a
// missing or refused credential or a dead endpoint to an *AccessError. ctx
// is the caller's context; timeout the request's bound.
func (s *bucketStore) translate(ctx context.Context, op, key string, timeout time.Duration, err error) error {
	if err == nil {
		return nil
	}
	if ae := s.cloud.classify(ctx, err, timeout); ae != nil {
		return fmt.Errorf("%s %s: %w", op, key, ae)
	}
	switch gcerrors.Code(err) {
	case gcerrors.NotFound:
		return fmt.Errorf("%s %s: %w", op, key, ErrNotFound)
	case gcerrors.FailedPrecondition:
		return fmt.Errorf("%s %s: %w", op, key, errKeyTaken)
	}
	return fmt.Errorf("%s %s: %w", op, key, err)
}

func (s *bucketStore) create(ctx context.Context, key string, data []byte, contentType string) error {
	return s.upload(ctx, key, data, contentType, true)
}

func (s *bucketStore) put(ctx context.Context, key string, data []byte, contentType string) error {
	return s.upload(ctx, key, data, contentType, false)
}

// upload writes data whole with one Upload call: never a streamed
// NewWriter, which azureblob v0.47.0 turns into a panic when it fails.
// Segments stay below the S3 transfer manager's 16 MiB multipart threshold
// (MaxSegmentBytes), so each is one PutObject with If-None-Match.
func (s *bucketStore) upload(ctx context.Context, key string, data []byte, contentType string, ifNotExist bool) error {
	timeout := uploadTimeout(len(data))
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := s.b.Upload(rctx, s.prefix+key, bytes.NewReader(data), &gcblob.WriterOptions{
		ContentType: contentType,
		IfNotExist:  ifNotExist,
	})
	return s.translate(ctx, "write", key, timeout, err)
}

// maxObjectBytes bounds every read of an object: no object of the layout
// is larger than a segment (MaxSegmentBytes), so a read never holds more
// than this, whatever size the bucket reports (a file:// symlink to
// /dev/zero reports none).
const maxObjectBytes = MaxSegmentBytes

// errTooLarge reports an object larger than maxObjectBytes. Readers of
// segments turn it into a *CorruptError.
var errTooLarge = errors.New("larger than any object of the layout")

// get reads key whole, and at most maxObjectBytes of it (errTooLarge when
// there is more). The request is canceled when no byte has arrived for
// requestTimeout, however long the whole download takes.
func (s *bucketStore) get(ctx context.Context, key string) ([]byte, error) {
	rctx, kick, stop := idleContext(ctx, requestTimeout)
	defer stop()
	r, err := s.b.NewReader(rctx, s.prefix+key, nil)
	if err != nil {
		return nil, s.translate(ctx, "read", key, requestTimeout, err)
	}
	defer r.Close()
	if n := r.Size(); n > maxObjectBytes {
		return nil, fmt.Errorf("read %s: %d bytes, %w (at most %d bytes)", key, n, errTooLarge, maxObjectBytes)
	}
	var buf bytes.Buffer
	if n := r.Size(); n > 0 {
		buf.Grow(int(n) + 1)
	}
	_, err = io.Copy(&buf, io.LimitReader(kickReader{r, kick}, maxObjectBytes+1))
	if err != nil {
		return nil, s.translate(ctx, "read", key, requestTimeout, err)
	}
	if buf.Len() > maxObjectBytes {
		return nil, fmt.Errorf("read %s: more than %d bytes, %w", key, maxObjectBytes, errTooLarge)
	}
	return buf.Bytes(), nil
}

// kickReader reports every read that returned bytes.
type kickReader struct {
	r    io.Reader
	kick func()
}

func (k kickReader) Read(p []byte) (int, error) {
	n, err := k.r.Read(p)
	if n > 0 {
		k.kick()
	}
	return n, err
}

func (s *bucketStore) stat(ctx context.Context, key string) (objectInfo, error) {
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	a, err := s.b.Attributes(rctx, s.prefix+key)
	if err != nil {
		return objectInfo{}, s.translate(ctx, "stat", key, requestTimeout, err)
	}
	return objectInfo{Key: key, Size: a.Size, ModTime: a.ModTime}, nil
}

func (s *bucketStore) list(ctx context.Context, prefix string, fn func(objectInfo) error) error {
	// fileblob walks the directory and stats each entry: an object
	// replaced while it walks (a heartbeat being rewritten) fails the whole
	// listing with NotFound. List again, passing on only the keys not seen
	// yet, a few times before giving up.
	seen := make(map[string]bool)
	for attempt := 1; ; attempt++ {
		err := s.listOnce(ctx, prefix, seen, fn)
		var lerr *listingError
		if errors.As(err, &lerr) {
			if errors.Is(lerr.err, ErrNotFound) && attempt < 10 {
				continue
			}
			return lerr.err
		}
		return err
	}
}

// listingError is an error of the listing itself, not of its callback.
type listingError struct{ err error }

func (e *listingError) Error() string { return e.err.Error() }

func (s *bucketStore) listOnce(ctx context.Context, prefix string, seen map[string]bool, fn func(objectInfo) error) error {
	it := s.b.List(&gcblob.ListOptions{Prefix: s.prefix + prefix})
	for {
		obj, err := s.nextListed(ctx, it)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return &listingError{s.translate(ctx, "list", prefix, requestTimeout, err)}
		}
		key := strings.TrimPrefix(obj.Key, s.prefix)
		if obj.IsDir || seen[key] {
			continue
		}
		seen[key] = true
		err = fn(objectInfo{Key: key, Size: obj.Size, ModTime: obj.ModTime})
		if err == errStopList {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// nextListed bounds each page request of a listing by requestTimeout.
func (s *bucketStore) nextListed(ctx context.Context, it *gcblob.ListIterator) (*gcblob.ListObject, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	return it.Next(ctx)
}

func (s *bucketStore) listLevel(ctx context.Context, prefix string) (files, dirs []string, err error) {
	it := s.b.List(&gcblob.ListOptions{Prefix: s.prefix + prefix, Delimiter: "/"})
	for {
		obj, err := s.nextListed(ctx, it)
		if err == io.EOF {
			return files, dirs, nil
		}
		if err != nil {
			return nil, nil, s.translate(ctx, "list", prefix, requestTimeout, err)
		}
		key := strings.TrimPrefix(obj.Key, s.prefix)
		if obj.IsDir {
			dirs = append(dirs, key)
		} else {
			files = append(files, key)
		}
	}
}

func (s *bucketStore) delete(ctx context.Context, key string) error {
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	return s.translate(ctx, "delete", key, requestTimeout, s.b.Delete(rctx, s.prefix+key))
}

func (s *bucketStore) close() error {
	if s.shared {
		return nil
	}
	return s.b.Close()
}
