package blob

import (
	"fmt"
	"strings"
)

// Object keys of the layout, relative to the log's prefix. They are part of
// the format.
const (
	// SpecKey is the job spec, written once at submission.
	SpecKey = "job.yaml"
	// EventsDir holds the segments.
	EventsDir = "events/"
	// EpochsDir holds one object per claimed epoch and its heartbeat.
	EpochsDir = "epochs/"
	// CancelKey, when present, asks the master holding the job to cancel
	// it (jobevent cancel).
	CancelKey = "cancel"

	segmentExt   = ".parquet"
	heartbeatExt = ".heartbeat"
	// probesDir holds the short-lived objects HeartbeatAge writes to learn
	// the bucket's idea of "now".
	probesDir = "probes/"
	// tmpExt ends the names of objects being written (fileblob's and ours);
	// listings skip them silently.
	tmpExt = ".tmp"
)

// Content types of the objects written.
const (
	contentTypeParquet = "application/vnd.apache.parquet"
	contentTypeJSON    = "application/json"
	contentTypeYAML    = "application/yaml"
	contentTypeText    = "text/plain; charset=utf-8"
)

// FormatSegmentName returns the key of the segment of epoch holding seqs
// first through last: events/<epoch %08x>-<first %016x>-<last %016x>.parquet.
// Fixed-width lowercase hex makes text order numeric order, so a listing in
// name order is log order. For example epoch 2, seqs 1025 to 2048:
//
//	events/00000002-0000000000000401-0000000000000800.parquet
func FormatSegmentName(epoch int32, first, last int64) string {
	return fmt.Sprintf("%s%08x-%016x-%016x%s", EventsDir, uint32(epoch), uint64(first), uint64(last), segmentExt)
}

// ParseSegmentName parses a key made by FormatSegmentName; the "events/"
// directory may be omitted. ok is false for any other name, including
// uppercase hex, an epoch or seq below 1, or first > last.
func ParseSegmentName(name string) (epoch int32, first, last int64, ok bool) {
	name = strings.TrimPrefix(name, EventsDir)
	// 8 + 1 + 16 + 1 + 16 hex digits and dashes, then the extension.
	const n = 8 + 1 + 16 + 1 + 16
	if len(name) != n+len(segmentExt) || name[n:] != segmentExt || name[8] != '-' || name[25] != '-' {
		return 0, 0, 0, false
	}
	e, ok1 := parseHex(name[0:8])
	f, ok2 := parseHex(name[9:25])
	l, ok3 := parseHex(name[26:42])
	if !ok1 || !ok2 || !ok3 || e < 1 || e > 1<<31-1 || f < 1 || f > 1<<63-1 || l > 1<<63-1 || f > l {
		return 0, 0, 0, false
	}
	return int32(e), int64(f), int64(l), true
}

// parseHex parses lowercase hex digits only, so that every name has exactly
// one spelling.
func parseHex(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		default:
			return 0, false
		}
		if v>>60 != 0 {
			return 0, false
		}
		v = v<<4 | uint64(d)
	}
	return v, true
}

// epochKey returns epochs/<epoch %08x>, the claim object of epoch.
func epochKey(epoch int32) string { return fmt.Sprintf("%s%08x", EpochsDir, uint32(epoch)) }

// heartbeatKey returns epochs/<epoch %08x>.heartbeat.
func heartbeatKey(epoch int32) string { return epochKey(epoch) + heartbeatExt }

// parseEpochKey parses a key made by epochKey.
func parseEpochKey(key string) (int32, bool) {
	name, ok := strings.CutPrefix(key, EpochsDir)
	if !ok || len(name) != 8 {
		return 0, false
	}
	e, ok := parseHex(name)
	if !ok || e < 1 || e > 1<<31-1 {
		return 0, false
	}
	return int32(e), true
}
