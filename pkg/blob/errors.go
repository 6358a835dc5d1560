package blob

import (
	"errors"
	"fmt"
)

// Sentinel errors of the package. Callers compare with errors.Is; the
// errors returned wrap these with the object key or URL concerned.
var (
	// ErrNoLog reports that a location holds no event log: no segment under
	// events/ and no job.yaml. NoLogError wraps it with the URL.
	ErrNoLog = errors.New("jobevent/blob: no event log")

	// ErrNotFound reports that an object does not exist. It is what a
	// backend's "not found" becomes, here and nowhere else.
	ErrNotFound = errors.New("jobevent/blob: object not found")

	// ErrExists reports that an object written once (job.yaml, a segment)
	// already exists with different content.
	ErrExists = errors.New("jobevent/blob: object already exists")

	// ErrEpochTaken reports that another master claimed the epoch first.
	ErrEpochTaken = errors.New("jobevent/blob: epoch already claimed")

	// ErrFenced reports that a newer epoch has been claimed: the writer of
	// an older epoch must stop.
	ErrFenced = errors.New("jobevent/blob: fenced by a newer epoch")

	// ErrLogExists reports that Import was asked to fill a log that already
	// holds events.
	ErrLogExists = errors.New("jobevent/blob: log already holds events")

	// ErrClosed reports a call on a closed Writer.
	ErrClosed = errors.New("jobevent/blob: writer closed")

	// ErrUnsupportedScheme reports a URL whose scheme is not one of
	// Schemes.
	ErrUnsupportedScheme = errors.New("jobevent/blob: unsupported scheme")

	// ErrSeqGap reports events missing (or repeated) between two events
	// kept by a Reader or a JSONLReader (see SeqGapError). It is always
	// wrapped in a *CorruptError. Unlike the other sentinels its text has
	// no "jobevent/blob:" prefix: it is the middle of the one line that
	// names the damage, "KEY: seq gap: seq 9 missing before seq 10".
	ErrSeqGap = errors.New("seq gap")

	// ErrInvalidEvents reports events that cannot form one segment: empty,
	// of several epochs, or with seqs that are not contiguous.
	ErrInvalidEvents = errors.New("jobevent/blob: events do not form a segment")

	// ErrSegmentTooLarge reports events that encode to a segment larger
	// than MaxSegmentBytes.
	ErrSegmentTooLarge = errors.New("jobevent/blob: segment too large")

	// ErrCompacting reports that another compaction of the log holds its
	// lock (CompactLockKey).
	ErrCompacting = errors.New("jobevent/blob: another compaction is running")

	// ErrNoSegments is returned by Compact for a log whose events/ holds
	// no segment: deleted, or a master that has not flushed yet. There is
	// nothing to compact, and a log that lost its events is not fine.
	ErrNoSegments = errors.New("jobevent/blob: events/ holds no segment (deleted, or its master has not flushed yet): nothing to compact")
)

// errKeyTaken is what the store boundary returns when a create-once
// (IfNotExist) write finds its key taken, whatever the object there holds.
// It is not ErrExists: callers decide what it means, ErrExists (other
// content), ErrEpochTaken, a held lock, or an idempotent retry (the same
// content).
var errKeyTaken = errors.New("jobevent/blob: precondition failed: object exists")

// NoLogError reports that URL holds no event log, with the reason when one
// is known (a missing directory or bucket). It matches ErrNoLog.
type NoLogError struct {
	URL    string
	Reason string // e.g. `directory /var/lib/jobevent does not exist`; may be empty
}

// Error returns "no event log at URL", with the reason when known.
func (e *NoLogError) Error() string {
	if e.Reason == "" {
		return "no event log at " + e.URL
	}
	return "no event log at " + e.URL + ": " + e.Reason
}

// Is reports whether target is ErrNoLog.
func (e *NoLogError) Is(target error) bool { return target == ErrNoLog }

// CorruptError reports an object of the log that cannot be read as the
// layout requires: an undecodable segment (bad footer, checksum mismatch,
// unreadable schema), a segment whose rows disagree with its name, a seq gap
// among the events kept, or an unreadable epoch object. Key is the object's
// key relative to the log.
type CorruptError struct {
	Key string
	Err error
}

// Error returns "KEY: what is wrong".
func (e *CorruptError) Error() string { return fmt.Sprintf("%s: %v", e.Key, e.Err) }

// Unwrap returns the underlying error.
func (e *CorruptError) Unwrap() error { return e.Err }

// ObjectKey returns the key of the object that is corrupt, relative to the
// log. replay.Validate puts it into its corruption findings.
func (e *CorruptError) ObjectKey() string { return e.Key }

// IsCorrupt reports whether err is, or wraps, a *CorruptError.
func IsCorrupt(err error) bool {
	var ce *CorruptError
	return errors.As(err, &ce)
}

// permanentError marks an error that retrying cannot fix.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

func permanent(err error) error { return &permanentError{err} }

func isPermanent(err error) bool {
	var pe *permanentError
	return errors.As(err, &pe)
}
