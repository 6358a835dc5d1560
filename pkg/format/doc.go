// Package format defines jobevent's event model and its two encodings:
// canonical JSONL, for people and for import/export, and Parquet segments,
// the storage form written to a bucket.
//
// The package does no I/O beyond io interfaces and imports no other package
// of jobevent.
package format
