package flink

import (
	"errors"
	"fmt"
)

// ErrNotJobEvents reports a directory that cannot be listed as a
// job-events directory (it does not exist or is not a directory).
var ErrNotJobEvents = errors.New("jobevent/flink: not a job-events directory")

// CorruptError reports a record that Flink's reader fails on: an unknown
// record type, a negative payload length, or a payload that does not
// decode. Flink then fails the replay, deletes the log and restarts the
// whole job. File is the file name (e.g. "events.0"), Offset the offset of
// the record in it.
type CorruptError struct {
	File   string
	Offset int64
	Err    error
}

// Error returns "FILE offset N: what is wrong".
func (e *CorruptError) Error() string {
	return fmt.Sprintf("%s offset %d: %v", e.File, e.Offset, e.Err)
}

// Unwrap returns the underlying error.
func (e *CorruptError) Unwrap() error { return e.Err }

// IsCorrupt reports whether err is, or wraps, a *CorruptError.
func IsCorrupt(err error) bool {
	var ce *CorruptError
	return errors.As(err, &ce)
}

// WarningKind classifies a Warning.
type WarningKind int

// Warning kinds.
const (
	// WarnGap: a file is missing from the numbering; Flink reads no file
	// after it.
	WarnGap WarningKind = iota + 1
	// WarnTorn: a record is cut short (or its Java stream is); Flink reads
	// nothing more of that file and goes on with the next.
	WarnTorn
	// WarnSkipped: a record Flink reads as no event (a null payload).
	WarnSkipped
	// WarnName: a name starting with "events." that is not a file number.
	WarnName
)

// Warning is something Flink's reader passes over silently that a reader
// of the log should know: the records or files it hides.
type Warning struct {
	Kind   WarningKind
	File   string
	Offset int64 // of the record concerned; 0 for WarnGap and WarnName
	Msg    string
}

// String returns "FILE offset N: message" (or "FILE: message").
func (w Warning) String() string {
	if w.Kind == WarnGap || w.Kind == WarnName {
		return w.File + ": " + w.Msg
	}
	return fmt.Sprintf("%s offset %d: %s", w.File, w.Offset, w.Msg)
}
