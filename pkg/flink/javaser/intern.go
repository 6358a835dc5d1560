package javaser

import "sync"

// Class names, field names and short strings repeat in every stream of a
// log (each Flink record is a stream of its own), so the decoder shares one
// copy of each. The table is bounded: once full, strings are no longer
// shared.
const (
	maxInterned    = 1 << 13
	maxInternBytes = 64
)

var interned struct {
	sync.Mutex
	m map[string]string
}

// intern returns string(b), shared with earlier calls for the same bytes.
func intern(b []byte) string {
	if len(b) > maxInternBytes {
		return string(b)
	}
	interned.Lock()
	defer interned.Unlock()
	if s, ok := interned.m[string(b)]; ok {
		return s
	}
	s := string(b)
	if interned.m == nil {
		interned.m = make(map[string]string)
	}
	if len(interned.m) < maxInterned {
		interned.m[s] = s
	}
	return s
}
