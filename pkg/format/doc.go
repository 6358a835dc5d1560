// Package format defines jobevent's event model and its two encodings:
// canonical JSONL, for people and for import/export, and Parquet segments,
// the storage form written to a bucket.
//
// The package does no I/O beyond io interfaces and imports no other package
// of jobevent.
//
// # Canonical JSONL
//
// AppendJSON and JSONWriter write one event per line with the keys in the
// order seq, time, epoch, kind, job, then the kind's fields (Kind.Fields);
// JSONReader reads it back strictly, reporting a *SyntaxError with line and
// field, and fills in what hand-written files leave out. Canonical JSONL →
// Event → canonical JSONL is byte for byte:
//
//	{"seq":4,"time":"2026-12-02T10:00:00.003000000Z","epoch":1,"kind":"subtask_started","job":"wordcount","vertex":"src","subtask":0,"attempt":0,"worker":"w1"}
//
// # Parquet segments
//
// EncodeSegment writes a batch of events as one Parquet file with one flat,
// sparse schema: required columns seq, time, epoch, kind, job; an optional
// column per kind-specific field, non-NULL exactly for the kinds that have
// it; lists of groups for graph, partitions, subtasks and coordinators.
// The footer carries the schema version (SchemaVersionKey) and a CRC-32C of
// the whole file (ChecksumKey):
//
//	PAR1 | column chunks (zstd pages, | footer: schema, row groups,
//	     |   data page v1)            |   jobevent.schema_version = "1.1"
//	     |                            |   jobevent.crc32c = "9f1c03aa"
//	     | footer length | PAR1
//
// OpenSegment verifies the checksum before decoding anything, so a flipped
// bit anywhere gives ErrCorrupt, a truncated file ErrNoFooter, and an
// unknown major version a *VersionError. SegmentReader decodes column pages
// straight into Events, in batches, or with ReadColumns the numeric
// columns alone into Columns (ColumnFields), building no event.
//
// Decoded events are in a normal form (see Event.Normalize) so that JSONL
// and segment round trips compare equal with reflect.DeepEqual.
//
// docs/format.md in the repository describes the format, the log layout on a
// bucket and how to query segments with DuckDB.
package format
