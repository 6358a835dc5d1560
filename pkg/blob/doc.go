// Package blob stores jobevent logs on any gocloud bucket: file://, mem://,
// s3://, gs:// and azblob:// (or a bare local path, which means file://).
//
// # Layout
//
// A log is a bucket URL plus a prefix, e.g.
// file:///var/lib/jobevent?prefix=jobs/wordcount/. Under the prefix
// (the names are part of the format):
//
//	job.yaml                               the job spec, written once (WriteSpec)
//	epochs/00000001                        epoch 1's claim: {"epoch":1,"master":"127.0.0.1:7070","start_seq":1}
//	epochs/00000001.heartbeat              rewritten by epoch 1's master every few seconds
//	epochs/00000002                        epoch 2's claim, e.g. start_seq 1025: fences epoch 1
//	events/00000001-0000000000000001-0000000000000400.parquet   epoch 1, seq 1 to 1024
//	events/00000001-0000000000000401-0000000000000413.parquet   epoch 1, seq 1025 to 1043 (fenced rows)
//	events/00000002-0000000000000401-0000000000000800.parquet   epoch 2, seq 1025 to 2048
//	compact.lock                           held by a running Compact: {"owner":"host:pid","started":"..."}
//
// Segment names are events/<epoch %08x>-<first seq %016x>-<last seq
// %016x>.parquet (FormatSegmentName, ParseSegmentName): fixed-width
// lowercase hex, so that name order is log order. Each segment is one
// flush of a Writer, encoded whole by format.EncodeSegment and written with
// one conditional (IfNotExist) upload: segments are immutable, and a
// compacted segment covering several others has a name of its own.
//
// # Epochs and fencing
//
// The master of epoch e claims epochs/<e> with IfNotExist (ClaimEpoch). The
// claim is race-free on every backend: object stores check the condition
// atomically (S3 If-None-Match, GCS ifGenerationMatch=0, Azure If-None-Match,
// memblob under a lock); fileblob's IfNotExist checks and then renames, so on
// file:// create-once objects are instead written to a temporary file in the
// same directory, synced, and hard-linked to their name, which fails
// atomically when the name exists. A Writer checks before each upload that
// no newer epoch exists and stops with ErrFenced if one does. Staleness of a
// master is judged from the modification times the bucket reports
// (HeartbeatAge), never by comparing clocks of two machines.
//
// # Reading
//
// A Reader applies these rules, in this order:
//
//   - segments are read in name order; objects under events/ whose names
//     are not segment names are skipped with a NoticeUnknownObject;
//   - a segment that another segment of the same epoch covers is skipped
//     with a NoticeCovered; segments that overlap without covering are
//     corruption;
//   - rows of epoch e with seq >= start_seq of the next epoch (its epoch
//     object's, or the first seq of its segments when the object is missing)
//     were written by a fenced master: they are filtered row by row, with a
//     NoticeFenced (whole segments past the fence are not even read);
//   - the newest segment of an epoch that can be a strict prefix of a
//     segment (format.ErrNoFooter: it begins like one and has no trailing
//     magic) is torn: a NoticeTornTail naming the seqs dropped, and that
//     epoch's events end before it;
//   - anything else that does not decode (a damaged trailer, bytes that are
//     not Parquet, a checksum mismatch), a segment listed larger than
//     MaxSegmentBytes, a segment whose rows disagree with its name, a first
//     event other than seq 1 (or ReaderOptions.Since), a seq gap or repeat
//     among the events kept, events that stop short of the newest epoch
//     object's start_seq (checked after listing the log once more), and, at
//     the end of a reader that does not follow, a covered segment whose rows
//     differ from its cover, are a *CorruptError naming the object; a
//     segment of an unknown schema major version is an error wrapping
//     *format.VersionError. A listing that fails is an error, never an
//     empty log.
//
// A JSONL log (what jobevent dump writes; docs/format.md) reads as a bucket
// log of the same events: OpenJSONL and NewJSONLReader fence and check seqs
// with the Reader's code, each epoch starting at its lowest seq in the file.
//
// Segments are read whole (the writer bounds their size, and every read
// stops after MaxSegmentBytes whatever size the bucket reports), a few
// fetched ahead and up to ReaderOptions.DecodeWorkers decoded ahead, in
// order, through short queues (decode.go), so a reader's memory does not
// depend on the length of the log. A reader decodes only the fields it is
// asked for (ReaderOptions.Fields), and NextBatch hands out its events a
// chunk at a time without copying them. A ColumnReader applies the same
// rules with the same code (Reader.takeRow) but builds no event: it hands
// out the numeric columns asked for (format.Columns), a run of one
// segment at a time, for aggregates over whole columns:
//
//	r, err := l.NewColumnReader(ctx, blob.ReaderOptions{Fields: format.FieldBytesOut})
//	...
//	for {
//		c, err := r.Next() // io.EOF at the end; a *CorruptError names the object
//		...
//		n += int64(c.Len())
//		for _, v := range c.BytesOut {
//			sum += v
//		}
//	}
//
// No segment is larger than MaxSegmentBytes (15 MiB): the Writer, Import
// and Compact split what would be larger, so every segment is a single
// conditional upload, below the 16 MiB at which the S3 transfer manager
// switches to a multipart upload.
//
// # Compaction
//
// Compact merges runs of small consecutive segments of one epoch into a
// covering segment, then deletes the parts; readers prefer the covering
// segment, so a crash at any step loses and duplicates nothing as read.
// Rows of fenced masters are kept as stored. It leaves alone the newest
// segment of a job that has not finished, torn segments and segments of
// fenced rows only, and holds compact.lock while it runs (see
// docs/format.md, "Compaction").
//
// # Credentials
//
// s3://, gs:// and azblob:// find credentials as each cloud's own tools do,
// from the environment at the time of Open: the AWS SDK's default chain
// (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, SSO, web
// identity, instance roles), Google's Application Default Credentials
// (GOOGLE_APPLICATION_CREDENTIALS, gcloud's file, the metadata server;
// none with STORAGE_EMULATOR_HOST or ?anonymous=true), and for Azure a
// shared key, SAS token or connection string from AZURE_STORAGE_*, else
// Azure AD for AZURE_STORAGE_ACCOUNT. URL parameters choose endpoints and
// regions (?endpoint=, ?region=, ?use_path_style=, ?profile= on S3;
// ?domain=, ?protocol=, ?storage_account= on Azure). A missing or refused
// credential, or an endpoint that does not answer, is an *AccessError of
// one line naming the bucket and what to set; nothing is printed.
//
// # Errors
//
// Backend errors are translated once, where the package calls the bucket:
// a missing object is ErrNotFound, a failed conditional write ErrExists or
// ErrEpochTaken, a credential or endpoint problem an *AccessError. Every
// request is bounded: 20 s for requests without a body, 20 s without a
// byte for downloads, and 20 s plus the time to send at 256 KiB/s for
// uploads.
package blob
