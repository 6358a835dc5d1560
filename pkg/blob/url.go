package blob

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	gcblob "gocloud.dev/blob"
	_ "gocloud.dev/blob/fileblob" // file://
	"gocloud.dev/blob/memblob"
)

func openFile(ctx context.Context, loc *location, create bool) (objectStore, error) {
	dir := loc.bucket
	if create {
		if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(loc.prefix)), 0o777); err != nil {
			return nil, fmt.Errorf("create %s: %w", loc, err)
		}
	}
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &NoLogError{URL: loc.String(), Reason: fmt.Sprintf("directory %s does not exist", dir)}
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", loc, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("open %s: %s is not a directory", loc, dir)
	}
	// The options that make fileblob safe: no .attrs sidecar files, and
	// temporary files next to their target so the final rename never
	// crosses filesystems.
	q := cloneValues(loc.query)
	if _, ok := q["metadata"]; !ok {
		q.Set("metadata", "skip")
	}
	if _, ok := q["no_tmp_dir"]; !ok {
		q.Set("no_tmp_dir", "1")
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(dir), RawQuery: q.Encode()}
	b, err := gcblob.OpenBucket(ctx, u.String())
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", loc, err)
	}
	return &fileStore{
		bucketStore: &bucketStore{b: b, prefix: loc.prefix},
		root:        filepath.Join(dir, filepath.FromSlash(loc.prefix)),
	}, nil
}

// memBuckets holds the process's mem:// buckets by name, so that a bucket
// opened twice is the same bucket.
var memBuckets struct {
	sync.Mutex
	m map[string]*gcblob.Bucket
}

func openMem(loc *location) (objectStore, error) {
	if len(loc.query) > 0 {
		return nil, fmt.Errorf("open %s: mem:// takes no parameter but prefix", loc)
	}
	memBuckets.Lock()
	defer memBuckets.Unlock()
	if memBuckets.m == nil {
		memBuckets.m = make(map[string]*gcblob.Bucket)
	}
	b := memBuckets.m[loc.bucket]
	if b == nil {
		b = memblob.OpenBucket(nil)
		memBuckets.m[loc.bucket] = b
	}
	return &bucketStore{b: b, prefix: loc.prefix, shared: true}, nil
}

// location is a parsed log URL.
type location struct {
	scheme string
	bucket string     // the bucket name, or for file:// the absolute directory
	query  url.Values // driver parameters, without prefix
	prefix string     // "" or ends with "/"
}

// ParseURL checks rawURL as Open and Create do, without opening anything
// or reaching the network, and returns it in canonical form (see Log.URL).
// It is safe for concurrent use.
func ParseURL(rawURL string) (string, error) {
	loc, err := parseLocation(rawURL)
	if err != nil {
		return "", err
	}
	return loc.String(), nil
}

// parseLocation parses a log URL or a bare path.
func parseLocation(raw string) (*location, error) {
	if strings.TrimSpace(raw) == "" {
		return nil, errors.New("empty log URL")
	}
	if !strings.Contains(raw, "://") {
		return parseBarePath(raw)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("log URL %q: %w", raw, err)
	}
	scheme := strings.ToLower(u.Scheme)
	if !supportedScheme(scheme) {
		return nil, fmt.Errorf("log URL %q: %w %q: want one of %s (or a local path)",
			raw, ErrUnsupportedScheme, u.Scheme, strings.Join(Schemes, ", "))
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return nil, fmt.Errorf("log URL %q: %w", raw, err)
	}
	loc := &location{scheme: scheme, query: q}
	if err := loc.takePrefix(); err != nil {
		return nil, fmt.Errorf("log URL %q: %w", raw, err)
	}
	if scheme == "file" {
		dir, err := fileURLPath(u)
		if err != nil {
			return nil, fmt.Errorf("log URL %q: %w", raw, err)
		}
		loc.bucket = dir
		return loc, nil
	}
	if u.Host == "" {
		return nil, fmt.Errorf("log URL %q: missing bucket name", raw)
	}
	if u.Path != "" && u.Path != "/" {
		return nil, fmt.Errorf("log URL %q: a path after the bucket is not allowed: use ?prefix=%s/", raw, strings.Trim(u.Path, "/"))
	}
	loc.bucket = u.Host
	return loc, nil
}

func parseBarePath(raw string) (*location, error) {
	path, query, _ := strings.Cut(raw, "?")
	q, err := url.ParseQuery(query)
	if err != nil {
		return nil, fmt.Errorf("log path %q: %w", raw, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("log path %q: %w", raw, err)
	}
	loc := &location{scheme: "file", bucket: abs, query: q}
	if err := loc.takePrefix(); err != nil {
		return nil, fmt.Errorf("log path %q: %w", raw, err)
	}
	return loc, nil
}

// fileURLPath returns the absolute directory of a file:// URL:
// file:///abs/dir, file://localhost/abs/dir, or file://./rel/dir.
func fileURLPath(u *url.URL) (string, error) {
	switch u.Host {
	case "", "localhost":
		if u.Path == "" {
			return "", errors.New("missing directory: want file:///abs/dir or file://./rel/dir")
		}
		return filepath.Clean(filepath.FromSlash(u.Path)), nil
	case ".":
		return filepath.Abs(filepath.FromSlash(strings.TrimPrefix(u.Path, "/")))
	default:
		return "", fmt.Errorf("file URL host %q: want file:///abs/dir or file://./rel/dir", u.Host)
	}
}

func supportedScheme(s string) bool {
	for _, known := range Schemes {
		if s == known {
			return true
		}
	}
	return false
}

// takePrefix moves the prefix parameter out of the query, normalized to end
// with "/", and checks that it names a plain path.
func (l *location) takePrefix() error {
	p := l.query.Get("prefix")
	l.query.Del("prefix")
	p = strings.TrimLeft(p, "/")
	if p == "" {
		return nil
	}
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	for _, seg := range strings.Split(strings.TrimSuffix(p, "/"), "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("prefix %q: empty, \".\" and \"..\" path segments are not allowed", p)
		}
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f || r == '\\' {
			return fmt.Errorf("prefix %q: control characters and backslashes are not allowed", p)
		}
	}
	l.prefix = p
	return nil
}

// withPrefix returns a copy of l with another prefix.
func (l *location) withPrefix(prefix string) *location {
	c := *l
	c.query = cloneValues(l.query)
	c.prefix = prefix
	return &c
}

// String returns the canonical URL.
func (l *location) String() string {
	var b strings.Builder
	b.WriteString(l.scheme)
	b.WriteString("://")
	if l.scheme == "file" {
		b.WriteString((&url.URL{Path: filepath.ToSlash(l.bucket)}).EscapedPath())
	} else {
		b.WriteString(l.bucket)
	}
	keys := make([]string, 0, len(l.query))
	for k := range l.query {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	sep := "?"
	for _, k := range keys {
		for _, v := range l.query[k] {
			b.WriteString(sep + url.QueryEscape(k) + "=" + url.QueryEscape(v))
			sep = "&"
		}
	}
	if l.prefix != "" {
		b.WriteString(sep + "prefix=" + strings.ReplaceAll(url.QueryEscape(l.prefix), "%2F", "/"))
	}
	return b.String()
}

func cloneValues(v url.Values) url.Values {
	c := make(url.Values, len(v))
	for k, vs := range v {
		c[k] = append([]string(nil), vs...)
	}
	return c
}
