package blob

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// Bucket is a bucket URL plus a prefix, opened to read objects that are
// not (or not yet known to be) a jobevent log: a Flink job-events
// directory, a Flink HA storage directory, a tree of logs. It is the one
// URL-to-bucket opener of the module: Open, the Flink reader and the LOG
// resolver all go through it, and so every request it makes is bounded
// like a Log's (no byte for 20 s is an error, never a hang).
//
// A Bucket is safe for concurrent use.
type Bucket struct {
	loc   *location
	store objectStore
}

// Object is one object of a listing.
type Object struct {
	Key     string // relative to the bucket's prefix
	Size    int64
	ModTime time.Time
}

// OpenBucket opens the bucket of rawURL (a URL as Open takes, or a bare
// local path) without creating anything. A file:// directory or a bucket
// that does not exist is a *NoLogError naming it.
func OpenBucket(ctx context.Context, rawURL string) (*Bucket, error) {
	return openBucket(ctx, rawURL, false)
}

// openBucket opens the bucket of rawURL; create makes the directories of
// a file:// location.
func openBucket(ctx context.Context, rawURL string, create bool) (*Bucket, error) {
	loc, err := parseLocation(rawURL)
	if err != nil {
		return nil, err
	}
	var st objectStore
	switch loc.scheme {
	case "file":
		st, err = openFile(ctx, loc, create)
	case "mem":
		st, err = openMem(loc)
	default:
		st, err = openCloud(ctx, loc)
	}
	if err != nil {
		return nil, err
	}
	return &Bucket{loc: loc, store: st}, nil
}

// URL returns the bucket's URL in canonical form (see Log.URL).
func (b *Bucket) URL() string { return b.loc.String() }

// Prefix returns the bucket's prefix ("" or ending in "/").
func (b *Bucket) Prefix() string { return b.loc.prefix }

// LocalDir returns the directory a file:// bucket's prefix names, and
// whether the bucket is one.
func (b *Bucket) LocalDir() (string, bool) {
	if b.loc.scheme != "file" {
		return "", false
	}
	if b.loc.prefix == "" {
		return b.loc.bucket, true
	}
	return b.loc.bucket + "/" + strings.TrimSuffix(b.loc.prefix, "/"), true
}

// Sub returns the bucket below prefix (relative to b's prefix; "" or
// ending in "/"). It shares b's connection: close only b.
func (b *Bucket) Sub(prefix string) *Bucket {
	return &Bucket{loc: b.loc.withPrefix(b.loc.prefix + prefix), store: &subStore{inner: b.store, rel: prefix}}
}

// Log returns the event log at the bucket's prefix. It shares b's
// connection: close either the Log or b, not both.
func (b *Bucket) Log() *Log { return &Log{loc: b.loc, store: b.store} }

// Close releases the bucket.
func (b *Bucket) Close() error { return b.Log().Close() }

// ListLevel returns the objects and the "directories" (ending in "/")
// directly under prefix (relative to the bucket's prefix; "" or ending in
// "/"), as keys relative to the bucket's prefix.
func (b *Bucket) ListLevel(ctx context.Context, prefix string) (files, dirs []string, err error) {
	return b.store.listLevel(ctx, prefix)
}

// List calls fn for every object under prefix, in key order.
func (b *Bucket) List(ctx context.Context, prefix string, fn func(Object) error) error {
	return b.store.list(ctx, prefix, func(o objectInfo) error {
		return fn(Object(o))
	})
}

// ReadAll reads the object key whole (at most MaxSegmentBytes).
func (b *Bucket) ReadAll(ctx context.Context, key string) ([]byte, error) {
	return b.store.get(ctx, key)
}

// Stat returns the size and modification time of the object key; a
// missing object is ErrNotFound.
func (b *Bucket) Stat(ctx context.Context, key string) (Object, error) {
	o, err := b.store.stat(ctx, key)
	return Object(o), err
}

// FS returns the bucket as a read-only file system: the Flink reader
// reads job-events directories through it. Every request is bounded as
// the bucket's are, and ends with ctx. Files are streamed (a read that
// gets no byte for 20 s fails), directories are "/"-delimited prefixes.
func (b *Bucket) FS(ctx context.Context) fs.FS { return &bucketFS{ctx: ctx, b: b} }

// bucketFS is the fs.FS of a Bucket.
type bucketFS struct {
	ctx context.Context
	b   *Bucket
}

var (
	_ fs.ReadDirFS  = (*bucketFS)(nil)
	_ fs.ReadFileFS = (*bucketFS)(nil)
	_ fs.StatFS     = (*bucketFS)(nil)
	_ fs.SubFS      = (*bucketFS)(nil)
)

func (f *bucketFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return &bucketDir{fsys: f, name: "."}, nil
	}
	o, err := f.b.store.stat(f.ctx, name)
	if err == nil {
		return &bucketFile{fsys: f, info: fileInfo{name: path.Base(name), size: o.Size, mod: o.ModTime}, key: name}, nil
	}
	if !errors.Is(err, ErrNotFound) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	files, dirs, lerr := f.b.store.listLevel(f.ctx, name+"/")
	if lerr != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: lerr}
	}
	if len(files)+len(dirs) == 0 {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &bucketDir{fsys: f, name: name}, nil
}

func (f *bucketFS) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) || name == "." {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	data, err := f.b.store.get(f.ctx, name)
	if errors.Is(err, ErrNotFound) {
		err = fs.ErrNotExist
	}
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return data, nil
}

func (f *bucketFS) Stat(name string) (fs.FileInfo, error) {
	file, err := f.Open(name)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	return file.Stat()
}

// ReadDir lists the directory name: its objects with their sizes and
// times, and its "directories".
func (f *bucketFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	prefix := ""
	if name != "." {
		prefix = name + "/"
	}
	_, dirs, err := f.b.store.listLevel(f.ctx, prefix)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	var out []fs.DirEntry
	err = f.b.store.list(f.ctx, prefix, func(o objectInfo) error {
		rest := strings.TrimPrefix(o.Key, prefix)
		if rest == "" || strings.Contains(rest, "/") {
			return nil
		}
		out = append(out, fs.FileInfoToDirEntry(fileInfo{name: rest, size: o.Size, mod: o.ModTime}))
		return nil
	})
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	for _, d := range dirs {
		out = append(out, fs.FileInfoToDirEntry(fileInfo{name: path.Base(strings.TrimSuffix(d, "/")), dir: true}))
	}
	sortEntries(out)
	return out, nil
}

func (f *bucketFS) Sub(dir string) (fs.FS, error) {
	if !fs.ValidPath(dir) {
		return nil, &fs.PathError{Op: "sub", Path: dir, Err: fs.ErrInvalid}
	}
	if dir == "." {
		return f, nil
	}
	return &bucketFS{ctx: f.ctx, b: f.b.Sub(dir + "/")}, nil
}

func sortEntries(es []fs.DirEntry) {
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && es[j].Name() < es[j-1].Name(); j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
}

// fileInfo is the fs.FileInfo of an object or a "directory".
type fileInfo struct {
	name string
	size int64
	mod  time.Time
	dir  bool
}

func (i fileInfo) Name() string       { return i.name }
func (i fileInfo) Size() int64        { return i.size }
func (i fileInfo) ModTime() time.Time { return i.mod }
func (i fileInfo) IsDir() bool        { return i.dir }
func (i fileInfo) Sys() any           { return nil }
func (i fileInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}

// bucketFile is an object opened for reading: the download starts on the
// first Read.
type bucketFile struct {
	fsys *bucketFS
	info fileInfo
	key  string
	r    io.ReadCloser
}

func (f *bucketFile) Stat() (fs.FileInfo, error) { return f.info, nil }

func (f *bucketFile) Read(p []byte) (int, error) {
	if f.r == nil {
		r, err := openStream(f.fsys.ctx, f.fsys.b.store, f.key)
		if err != nil {
			return 0, &fs.PathError{Op: "read", Path: f.key, Err: err}
		}
		f.r = r
	}
	return f.r.Read(p)
}

func (f *bucketFile) Close() error {
	if f.r == nil {
		return nil
	}
	return f.r.Close()
}

// bucketDir is a "directory" opened with Open.
type bucketDir struct {
	fsys *bucketFS
	name string
	list []fs.DirEntry
	read bool
}

func (d *bucketDir) Stat() (fs.FileInfo, error) {
	return fileInfo{name: path.Base(d.name), dir: true}, nil
}

func (d *bucketDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: errors.New("is a directory")}
}

func (d *bucketDir) Close() error { return nil }

func (d *bucketDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if !d.read {
		list, err := d.fsys.ReadDir(d.name)
		if err != nil {
			return nil, err
		}
		d.list, d.read = list, true
	}
	if n <= 0 {
		out := d.list
		d.list = nil
		return out, nil
	}
	if len(d.list) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(d.list))
	out := d.list[:n]
	d.list = d.list[n:]
	return out, nil
}

// streamer is implemented by the stores that can stream an object rather
// than read it whole.
type streamer interface {
	open(ctx context.Context, key string) (io.ReadCloser, error)
}

// openStream opens key of st for streaming, or reads it whole when st
// cannot stream.
func openStream(ctx context.Context, st objectStore, key string) (io.ReadCloser, error) {
	if s, ok := st.(streamer); ok {
		return s.open(ctx, key)
	}
	data, err := st.get(ctx, key)
	if err != nil {
		return nil, err
	}
	return io.NopCloser(bytes.NewReader(data)), nil
}

// open streams key; the download is canceled when no byte has arrived
// for requestTimeout.
func (s *bucketStore) open(ctx context.Context, key string) (io.ReadCloser, error) {
	rctx, kick, stop := idleContext(ctx, requestTimeout)
	r, err := s.b.NewReader(rctx, s.prefix+key, nil)
	if err != nil {
		stop()
		return nil, s.translate(ctx, "read", key, requestTimeout, err)
	}
	kick()
	return &streamReader{r: r, kick: kick, stop: stop, s: s, ctx: ctx, key: key}, nil
}

func (s *subStore) open(ctx context.Context, key string) (io.ReadCloser, error) {
	return openStream(ctx, s.inner, s.rel+key)
}

// streamReader is an object being downloaded, its idle timer kicked by
// every read that returns bytes.
type streamReader struct {
	r    io.ReadCloser
	kick func()
	stop func()
	s    *bucketStore
	ctx  context.Context
	key  string
}

func (r *streamReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if n > 0 {
		r.kick()
	}
	if err != nil && err != io.EOF {
		err = r.s.translate(r.ctx, "read", r.key, requestTimeout, err)
	}
	return n, err
}

func (r *streamReader) Close() error {
	err := r.r.Close()
	r.stop()
	return err
}

// Up returns the bucket n levels above b's prefix ("a/b/c/" up 2 is
// "a/"), sharing b's connection (close only b), and false when the prefix
// has fewer than n levels.
func (b *Bucket) Up(n int) (*Bucket, bool) {
	segs := strings.Split(strings.TrimSuffix(b.loc.prefix, "/"), "/")
	if b.loc.prefix == "" || n < 0 || n > len(segs) {
		return nil, false
	}
	prefix := strings.Join(segs[:len(segs)-n], "/")
	if prefix != "" {
		prefix += "/"
	}
	st, ok := storeAt(b.store, b.loc.prefix, prefix, b.loc)
	if !ok {
		return nil, false
	}
	return &Bucket{loc: b.loc.withPrefix(prefix), store: st}, true
}

// storeAt returns a store on the connection of st, whose prefix is from,
// at the prefix to; it does not close the connection.
func storeAt(st objectStore, from, to string, loc *location) (objectStore, bool) {
	switch s := st.(type) {
	case *bucketStore:
		return &bucketStore{b: s.b, prefix: to, shared: true, cloud: s.cloud}, true
	case *fileStore:
		return &fileStore{
			bucketStore: &bucketStore{b: s.b, prefix: to, shared: true, cloud: s.cloud},
			root:        filepath.Join(loc.bucket, filepath.FromSlash(to)),
		}, true
	case *subStore:
		inner := strings.TrimSuffix(from, s.rel)
		if strings.HasPrefix(to, inner) {
			return &subStore{inner: s.inner, rel: strings.TrimPrefix(to, inner)}, true
		}
		return storeAt(s.inner, inner, to, loc)
	}
	return nil, false
}
