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

// requestTimeout bounds every single request to a bucket, so that an SDK
// that hangs (a black-holed endpoint, a metadata server that never answers)
// turns into an error instead of a stuck master.
const requestTimeout = 2 * time.Minute

// objectInfo describes one listed object.
type objectInfo struct {
	Key     string // relative to the log's prefix
	Size    int64
	ModTime time.Time
}

// objectStore is everything the log needs from a bucket. It is the boundary
// where backend errors are translated, once: a missing object becomes
// ErrNotFound, a failed IfNotExist write errExists. Keys are relative to the
// log's prefix. Implementations are safe for concurrent use.
type objectStore interface {
	// create writes key only if it does not exist yet (errExists if it does).
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
	prefix string // "" or ends with "/"
	shared bool   // the bucket outlives the log (mem://): do not close it
}

func (s *bucketStore) translate(op, key string, err error) error {
	if err == nil {
		return nil
	}
	switch gcerrors.Code(err) {
	case gcerrors.NotFound:
		return fmt.Errorf("%s %s: %w", op, key, ErrNotFound)
	case gcerrors.FailedPrecondition:
		return fmt.Errorf("%s %s: %w", op, key, errExists)
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
func (s *bucketStore) upload(ctx context.Context, key string, data []byte, contentType string, ifNotExist bool) error {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	err := s.b.Upload(ctx, s.prefix+key, bytes.NewReader(data), &gcblob.WriterOptions{
		ContentType: contentType,
		IfNotExist:  ifNotExist,
	})
	return s.translate("write", key, err)
}

func (s *bucketStore) get(ctx context.Context, key string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	data, err := s.b.ReadAll(ctx, s.prefix+key)
	return data, s.translate("read", key, err)
}

func (s *bucketStore) stat(ctx context.Context, key string) (objectInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	a, err := s.b.Attributes(ctx, s.prefix+key)
	if err != nil {
		return objectInfo{}, s.translate("stat", key, err)
	}
	return objectInfo{Key: key, Size: a.Size, ModTime: a.ModTime}, nil
}

func (s *bucketStore) list(ctx context.Context, prefix string, fn func(objectInfo) error) error {
	it := s.b.List(&gcblob.ListOptions{Prefix: s.prefix + prefix})
	for {
		obj, err := s.nextListed(ctx, it)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return s.translate("list", prefix, err)
		}
		if obj.IsDir {
			continue
		}
		err = fn(objectInfo{Key: strings.TrimPrefix(obj.Key, s.prefix), Size: obj.Size, ModTime: obj.ModTime})
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
			return nil, nil, s.translate("list", prefix, err)
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
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	return s.translate("delete", key, s.b.Delete(ctx, s.prefix+key))
}

func (s *bucketStore) close() error {
	if s.shared {
		return nil
	}
	return s.b.Close()
}
