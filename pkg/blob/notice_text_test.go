package blob

import (
	"testing"

	"github.com/jobevent/jobevent/pkg/format"
)

// TestReader_FencedNoticeOneRow: a single fenced row is "1 row", not
// "1 rows".
func TestReader_FencedNoticeOneRow(t *testing.T) {
	l := newLog(t, backend{newLog: func(t *testing.T) string { return uniqueMem("fenced-one") + "?prefix=jobs/j/" }})
	claim(t, l, 1, 1)
	writeSegments(t, l, numbered(genEvents(10, 1), 1, 1), 10)
	claim(t, l, 2, 10) // epoch 1's seq 10 is fenced
	writeSegments(t, l, numbered(genEvents(3, 2), 2, 10), 3)
	_, notices := mustReadAll(t, l, ReaderOptions{})
	f := noticesOf(notices, format.NoticeFenced)
	want := "1 row of fenced epoch 1 (a newer epoch starts at seq 10); filtered"
	if len(f) != 1 || f[0].Count != 1 || f[0].Message != want {
		t.Fatalf("fenced notices = %+v, want one: %s", f, want)
	}
}
