package format

import (
	"bytes"
	"runtime"
	"testing"
)

// TestEncodeSegment_EncoderSurvivesGC: a segment encoded after garbage
// collections reuses the encoder kept before them instead of building a
// new one (which allocates its parquet writer and column buffers anew).
func TestEncodeSegment_EncoderSurvivesGC(t *testing.T) {
	events := realisticEvents(10, 1)
	var buf bytes.Buffer
	encodeAfterGC := func() {
		runtime.GC()
		runtime.GC() // a sync.Pool empties over two collections
		buf.Reset()
		if err := EncodeSegment(&buf, events); err != nil {
			t.Fatal(err)
		}
	}
	encodeAfterGC()
	fresh := testing.AllocsPerRun(1, func() {
		buf.Reset()
		if err := newSegmentEncoder(SchemaVersion).encode(&buf, events); err != nil {
			t.Fatal(err)
		}
	})
	kept := testing.AllocsPerRun(5, encodeAfterGC)
	t.Logf("allocations: %.0f with an encoder kept, %.0f building one", kept, fresh)
	if kept*2 > fresh {
		t.Fatalf("allocations per segment after GC = %.0f, want well under the %.0f of building an encoder", kept, fresh)
	}
}
