package blob

import (
	"context"
	"fmt"
)

// Schemes lists the URL schemes Open and Create accept.
var Schemes = []string{"file", "mem", "s3", "gs", "azblob"}

// Log is an event log on a bucket: a bucket URL plus a prefix. It is safe
// for concurrent use by multiple goroutines.
type Log struct {
	loc   *location
	store objectStore
}

// Open opens the log at rawURL for reading and writing. rawURL is a bucket
// URL with an optional ?prefix= (file://, mem://, s3://, gs://, azblob://)
// or a bare local path, which means file://. Open does not create anything:
// a file:// directory or a bucket that does not exist is a *NoLogError
// naming it. A place that exists but holds no log opens fine; readers then
// report ErrNoLog and Exists reports false.
//
// mem:// buckets live as long as the process and are shared by name: every
// Open of mem://x sees the same objects, whatever the prefix.
func Open(ctx context.Context, rawURL string) (*Log, error) {
	return open(ctx, rawURL, false)
}

// Create is Open, except that for file:// (and bare paths) it creates the
// directories of the log as needed. Buckets of other schemes must exist.
func Create(ctx context.Context, rawURL string) (*Log, error) {
	return open(ctx, rawURL, true)
}

// URL returns the log's URL in canonical form: bare paths become absolute
// file:// URLs and the prefix ends with "/".
func (l *Log) URL() string { return l.loc.String() }

// Prefix returns the log's prefix within its bucket ("" or ending in "/").
func (l *Log) Prefix() string { return l.loc.prefix }

// Close releases the bucket. Writers and readers of the log must be closed
// first.
func (l *Log) Close() error {
	if err := l.store.close(); err != nil {
		return fmt.Errorf("close %s: %w", l.URL(), err)
	}
	return nil
}

func open(ctx context.Context, rawURL string, create bool) (*Log, error) {
	b, err := openBucket(ctx, rawURL, create)
	if err != nil {
		return nil, err
	}
	return b.Log(), nil
}
