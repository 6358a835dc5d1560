// Package flink reads the job-events directory that Apache Flink's batch
// job recovery (Flink 1.20 and 2.x, execution.batch.job-recovery.enabled)
// writes under <high-availability.storageDir>/<cluster-id>/<job id>/job-events/,
// exactly as Flink's FileSystemJobEventStore reads it back when a new
// JobMaster recovers the job.
//
// # Files
//
// Each JobMaster incarnation writes its own files, numbered on from the
// ones it found; a file is never appended to:
//
//	events.0      written by the first JobMaster
//	events.1      the first JobMaster again (a finished job vertex closes a file)
//	events.2      the JobMaster after a failover
//
// The directory is listed once and files are read in numeric order while
// the numbering is contiguous from 0. After a gap Flink reads no later file;
// the Reader does the same and reports a WarnGap warning that names the
// first missing file and the files ignored.
//
// # Records
//
// A file is a sequence of records with no header, magic or checksum:
//
//	+----------------+------------------+-------------------------+
//	| type (int32 BE)| length (int32 BE)| payload (length bytes)  |
//	+----------------+------------------+-------------------------+
//
// A record cut short (the file ends in its header or payload) ends that
// file: Flink reads on from the next file, and the Reader reports a
// WarnTorn warning with the file and offset. A negative length, an unknown
// type, or a payload that does not decode is a *CorruptError (IsCorrupt):
// Flink fails the replay, deletes the log and restarts the whole job.
//
// # Payloads
//
// Type 1, ExecutionVertexFinishedEvent, is three parts, each an int32
// length and a Java serialization stream: the event (attempt id, the
// TaskManager's location, IO metrics with the bytes of every produced
// subpartition, user accumulators); the operator coordinator snapshots, a
// HashMap<OperatorID, byte[]>; and, only when its length is positive, the
// shuffle master snapshot, whose presence makes the record a snapshot
// point. Type 2, ExecutionVertexResetEvent, and type 3,
// ExecutionJobVertexInitializedEvent, are one Java stream each; a type 3
// event holds the inputs of every subtask in Flink 1.20's form (one
// partition and one subpartition range) or 2.x's (a map of ranges), both
// read into SubtaskInput.Groups. Java streams are read by package javaser;
// objects of classes Flink's payloads may carry but this package does not
// map (user accumulators, third-party shuffle snapshots) are kept as
// generic values, never an error.
//
// IDs print as Flink prints them: an AbstractID as 32 hex digits (the lower
// part, then the upper part, big-endian), an ExecutionVertexID as
// "<job vertex>_<subtask>", an ExecutionAttemptID as
// "<graph>_<job vertex>_<subtask>_<attempt>".
package flink
