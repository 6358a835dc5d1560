//go:build !unix

package blob

// processGone reports false: liveness is not checked on this system, so a
// dead compaction's lock is broken only once it is stale.
func processGone(int) bool { return false }

// pidNamespace returns "": there is none to read.
func pidNamespace() string { return "" }
