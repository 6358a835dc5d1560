package blob

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// fileStore is the objectStore of file:// logs. Reads, listings and
// overwrites go through fileblob; create-once writes do not, because
// fileblob's IfNotExist is check-then-rename and two writers can both
// "win". create instead writes a temporary file next to the target, syncs
// it, and hard-links it to the final name: link(2) fails atomically when the
// name exists, so exactly one of any number of racing writers (goroutines or
// processes) succeeds, and a reader never sees a partial object. The
// directory is synced too, so a create that returned nil survives a machine
// crash (fileblob does not sync).
type fileStore struct {
	*bucketStore
	root string // the bucket directory joined with the prefix
}

func (s *fileStore) path(key string) string {
	return filepath.Join(s.root, filepath.FromSlash(key))
}

func (s *fileStore) create(ctx context.Context, key string, data []byte, contentType string) error {
	publish, discard, err := s.prepare(ctx, key, data)
	if err != nil {
		return err
	}
	defer discard()
	return publish()
}

// prepare is create's first half: it writes and syncs data in a temporary
// file next to key, which no reader lists. publish creates key from it as
// create does, and discard removes the temporary file; discard must be
// called, after publish or instead of it. Several objects' data may be
// prepared at once, so that their syncs overlap, and published in order.
func (s *fileStore) prepare(ctx context.Context, key string, data []byte) (publish func() error, discard func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("write %s: %w", key, err)
	}
	final := s.path(key)
	dir := filepath.Dir(final)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, nil, fmt.Errorf("write %s: %w", key, err)
	}
	tmp, err := writeTemp(final, data)
	if err != nil {
		return nil, nil, fmt.Errorf("write %s: %w", key, err)
	}
	publish = func() error {
		err := os.Link(tmp, final)
		switch {
		case errors.Is(err, fs.ErrExist):
			return fmt.Errorf("write %s: %w", key, errKeyTaken)
		case isNoHardLinks(err):
			err = createExclusive(final, data)
			if errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("write %s: %w", key, errKeyTaken)
			}
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", key, err)
		}
		if err := syncDir(dir); err != nil {
			return fmt.Errorf("write %s: sync directory: %w", key, err)
		}
		return nil
	}
	return publish, func() { os.Remove(tmp) }, nil
}

// list lists prefix as bucketStore does, once the directory that holds it
// has been found readable: fileblob passes over a directory it cannot
// read (permission denied, not a directory, a symlink loop) as if it held
// nothing, and a listing error must not read as an empty log. A directory
// that does not exist holds nothing.
func (s *fileStore) list(ctx context.Context, prefix string, fn func(objectInfo) error) error {
	dir := s.root
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		dir = s.path(prefix[:i])
	}
	d, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err == nil {
		_, err = d.ReadDir(1)
		d.Close()
	}
	if err != nil && err != io.EOF {
		return fmt.Errorf("list %s: %w", prefix, err)
	}
	return s.bucketStore.list(ctx, prefix, fn)
}

// writeTemp writes data to a new file <final>.<random>.tmp and syncs it.
func writeTemp(final string, data []byte) (string, error) {
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", err
	}
	name := final + "." + hex.EncodeToString(rnd[:]) + tmpExt
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}

// createExclusive is the fallback for filesystems without hard links: the
// name is taken atomically with O_EXCL, but a concurrent reader may see the
// object before its bytes are complete.
func createExclusive(final string, data []byte) error {
	f, err := os.OpenFile(final, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// isNoHardLinks reports whether err says the filesystem cannot link.
func isNoHardLinks(err error) bool {
	return errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ENOTSUP) ||
		errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.EXDEV)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return err
	}
	return nil
}
