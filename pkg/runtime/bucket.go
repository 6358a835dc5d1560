package runtime

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	gcblob "gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/memblob"

	// The cloud drivers, so that sources and sinks read and write any
	// bucket the log can live in.
	_ "gocloud.dev/blob/azureblob"
	_ "gocloud.dev/blob/gcsblob"
	_ "gocloud.dev/blob/s3blob"
)

// memBuckets holds the mem:// buckets of the process by name, so that a
// sink and the test that reads its output see the same objects.
var memBuckets = struct {
	sync.Mutex
	m map[string]*gcblob.Bucket
}{m: map[string]*gcblob.Bucket{}}

// bucketOpener opens the data buckets of a job (text inputs, sink
// outputs): bare and relative local paths are resolved against dir, and
// open buckets are cached by URL until Close. Operators must not close the
// buckets it returns. It is safe for concurrent use.
type bucketOpener struct {
	dir string

	mu    sync.Mutex
	cache map[string]*gcblob.Bucket
}

func newBucketOpener(dir string) *bucketOpener {
	return &bucketOpener{dir: dir, cache: map[string]*gcblob.Bucket{}}
}

// open returns the bucket of rawURL; create makes a local directory when
// it does not exist yet.
func (o *bucketOpener) open(ctx context.Context, rawURL string, create bool) (*gcblob.Bucket, error) {
	if o == nil {
		o = newBucketOpener("")
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if b, ok := o.cache[rawURL]; ok {
		return b, nil
	}
	b, err := o.openNew(ctx, rawURL, create)
	if err != nil {
		return nil, fmt.Errorf("open bucket %s: %w", rawURL, err)
	}
	o.cache[rawURL] = b
	return b, nil
}

func (o *bucketOpener) openNew(ctx context.Context, rawURL string, create bool) (*gcblob.Bucket, error) {
	if !strings.Contains(rawURL, "://") {
		return o.openDir(rawURL, url.Values{}, create)
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	switch u.Scheme {
	case "file":
		p := u.Path
		if u.Host == "." {
			p = strings.TrimPrefix(p, "/")
		} else if u.Host != "" && u.Host != "localhost" {
			p = u.Host + p // file://relative/dir
		}
		return o.openDir(p, u.Query(), create)
	case "mem":
		q := u.Query()
		memBuckets.Lock()
		b, ok := memBuckets.m[u.Host]
		if !ok {
			b = memblob.OpenBucket(nil)
			memBuckets.m[u.Host] = b
		}
		memBuckets.Unlock()
		if prefix := q.Get("prefix"); prefix != "" {
			return nil, fmt.Errorf("mem:// data buckets take no prefix: put it in the object keys")
		}
		return b, nil
	}
	return gcblob.OpenBucket(ctx, rawURL)
}

// openDir opens a local directory as a bucket, with the options that make
// fileblob safe: no attribute sidecars, temporary files beside the target
// so that the final rename stays on one filesystem.
func (o *bucketOpener) openDir(p string, q url.Values, create bool) (*gcblob.Bucket, error) {
	if p == "" {
		return nil, fmt.Errorf("empty path")
	}
	if !filepath.IsAbs(p) && o.dir != "" {
		p = filepath.Join(o.dir, p)
	}
	p, err := filepath.Abs(p)
	if err != nil {
		return nil, err
	}
	if create {
		if err := os.MkdirAll(p, 0o755); err != nil {
			return nil, err
		}
	}
	opts := &fileblob.Options{NoTempDir: true, Metadata: fileblob.MetadataDontWrite}
	for k := range q {
		switch k {
		case "prefix", "metadata", "no_tmp_dir":
		default:
			return nil, fmt.Errorf("unknown query parameter %q", k)
		}
	}
	if q.Get("metadata") != "" && q.Get("metadata") != "skip" {
		opts.Metadata = fileblob.MetadataInSidecar
	}
	b, err := fileblob.OpenBucket(p, opts)
	if err != nil {
		return nil, err
	}
	if prefix := q.Get("prefix"); prefix != "" {
		b = gcblob.PrefixedBucket(b, prefix)
	}
	return b, nil
}

// localDir returns the directory of a local bucket URL (a bare path or
// file://), and false for other schemes or URLs with a prefix.
func (o *bucketOpener) localDir(rawURL string) (string, bool) {
	p := rawURL
	if strings.Contains(rawURL, "://") {
		u, err := url.Parse(rawURL)
		if err != nil || u.Scheme != "file" || u.Query().Get("prefix") != "" {
			return "", false
		}
		p = u.Path
		if u.Host == "." {
			p = strings.TrimPrefix(p, "/")
		} else if u.Host != "" && u.Host != "localhost" {
			p = u.Host + p
		}
	}
	if !filepath.IsAbs(p) && o != nil && o.dir != "" {
		p = filepath.Join(o.dir, p)
	}
	abs, err := filepath.Abs(p)
	return abs, err == nil
}

// resolve returns rawURL with a relative local path made absolute against
// the opener's directory, for messages and summaries.
func (o *bucketOpener) resolve(rawURL string) string {
	if o == nil || o.dir == "" {
		return rawURL
	}
	if !strings.Contains(rawURL, "://") {
		if filepath.IsAbs(rawURL) {
			return rawURL
		}
		return filepath.Join(o.dir, rawURL)
	}
	return rawURL
}

// Close closes the buckets it opened, except the process-wide mem://
// buckets.
func (o *bucketOpener) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	var first error
	for key, b := range o.cache {
		if strings.HasPrefix(key, "mem://") {
			continue
		}
		if err := b.Close(); err != nil && first == nil {
			first = err
		}
	}
	o.cache = map[string]*gcblob.Bucket{}
	return first
}
