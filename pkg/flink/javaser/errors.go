package javaser

import (
	"errors"
	"fmt"

	quotes "github.com/jobevent/jobevent/internal/quote"
)

// Sentinel errors of the package. Decoding errors are *DecodeError values
// that match one of the first three with errors.Is.
var (
	// ErrTruncated reports a stream that ends inside a content: what was
	// written was cut short. Readers that treat an end of input as the end
	// of a file (as Flink does for its event files) test for it.
	ErrTruncated = errors.New("jobevent/javaser: stream ends early")

	// ErrMalformed reports bytes that are not a valid stream: a bad magic
	// number, an unknown type code, a reference to no handle, a block where
	// an object must be, invalid modified UTF-8.
	ErrMalformed = errors.New("jobevent/javaser: malformed stream")

	// ErrLimit reports a stream that exceeds one of the Options limits
	// (nesting depth, handles, array length, string length).
	ErrLimit = errors.New("jobevent/javaser: limit exceeded")

	// ErrUnread reports a reference, read as a Value, to an object that a
	// typed reader read without building its Value (BeginObject,
	// SkipValue): the stream has to be read again with ReadValue, or
	// Decode, for that Value to exist.
	ErrUnread = errors.New("jobevent/javaser: reference to an object read without its value")

	// ErrNotAdapted reports a value that an adapter (AsList, AsMap, ...)
	// does not read: another class, or a class it does not know.
	ErrNotAdapted = errors.New("jobevent/javaser: not a value of the requested kind")
)

// DecodeError reports where and why a stream cannot be decoded. Offset is
// the byte offset in the stream (from its magic number) where the offending
// content starts or where the input ended.
type DecodeError struct {
	Offset int64
	Kind   error // ErrTruncated, ErrMalformed, ErrLimit or ErrUnread
	Detail string
}

// Error returns "java stream offset N: detail".
func (e *DecodeError) Error() string {
	return fmt.Sprintf("java stream offset %d: %s", e.Offset, e.Detail)
}

// Unwrap returns Kind, so that errors.Is(err, ErrTruncated) works.
func (e *DecodeError) Unwrap() error { return e.Kind }

// WriteAbortedError reports a TC_EXCEPTION content: the writer failed while
// writing an object and wrote the exception in its place, as Java's
// ObjectInputStream reports with a WriteAbortedException. Exception is the
// decoded Throwable (usually an *Object).
type WriteAbortedError struct {
	Offset    int64
	Exception Value
}

// Error returns "java stream offset N: writing aborted: CLASS: MESSAGE".
func (e *WriteAbortedError) Error() string {
	return fmt.Sprintf("java stream offset %d: writing aborted: %s", e.Offset, describeThrowable(e.Exception))
}

// describeThrowable returns "CLASS: detailMessage" for a decoded Throwable.
func describeThrowable(v Value) string {
	o, ok := v.(*Object)
	if !ok || o.Class == nil {
		return fmt.Sprintf("%T", v)
	}
	if msg, ok := o.Field("detailMessage"); ok {
		if s, ok := msg.(string); ok {
			return printable(o.Class.Name) + ": " + printable(s)
		}
	}
	return printable(o.Class.Name)
}

// printable returns a name from a stream for a message (quote.Name).
func printable(s string) string { return quotes.Name(s) }
