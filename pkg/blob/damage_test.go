package blob

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/pkg/format"
)

// fileLog returns a new file:// log in a temporary directory and the
// directory.
func fileLog(t *testing.T) (*Log, string) {
	t.Helper()
	dir := t.TempDir()
	l, err := Create(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, dir
}

// wantCorrupt fails the test unless err is a *CorruptError naming key and
// saying each of want.
func wantCorrupt(t *testing.T, err error, key string, want ...string) {
	t.Helper()
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.Key != key {
		t.Fatalf("err = %v, want corruption of %s", err, key)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Fatalf("err = %v, want it to say %q", err, w)
		}
	}
}

// TestReader_FirstSegmentMissing: a log starts at seq 1; a reader from
// Since starts at Since.
func TestReader_FirstSegmentMissing(t *testing.T) {
	l := memLog(t)
	_, keys := threeSegments(t, l)
	if err := l.Delete(ctx, keys[0]); err != nil {
		t.Fatal(err)
	}
	_, _, err := readAll(t, l, ReaderOptions{})
	wantCorrupt(t, err, keys[1], "seq 1 to 10 missing before seq 11")
	_, _, err = readAll(t, l, ReaderOptions{Since: 5})
	wantCorrupt(t, err, keys[1], "seq 5 to 10 missing")
	got, _ := mustReadAll(t, l, ReaderOptions{Since: 11})
	if len(got) != 20 {
		t.Fatalf("from seq 11: %d events, want 20", len(got))
	}
}

// TestReader_AgreesWithEpochs: the events reach the seq before the newest
// epoch object's start_seq; a log with claims and no segment yet (a master
// that has not flushed) reads as empty.
func TestReader_AgreesWithEpochs(t *testing.T) {
	l := memLog(t)
	if err := l.WriteSpec(ctx, []byte("job: j\n")); err != nil {
		t.Fatal(err)
	}
	claim(t, l, 1, 1)
	if got, _ := mustReadAll(t, l, ReaderOptions{}); len(got) != 0 {
		t.Fatalf("claimed, nothing flushed: %d events", len(got))
	}
	events := numbered(genEvents(30, 5), 1, 1)
	keys := writeSegments(t, l, events, 10)
	claim(t, l, 2, 31)
	if got, _ := mustReadAll(t, l, ReaderOptions{}); len(got) != 30 {
		t.Fatalf("%d events, want 30", len(got))
	}
	if err := l.Delete(ctx, keys[2]); err != nil {
		t.Fatal(err)
	}
	checkColumnsAgree(t, l, format.FieldBytesOut)
	_, _, err := readAll(t, l, ReaderOptions{})
	wantCorrupt(t, err, "epochs/00000002", "epoch 2 starts at seq 31", "seq 21 to 30 missing")
	if got, _ := mustReadAll(t, l, ReaderOptions{Until: 20}); len(got) != 20 {
		t.Fatalf("until 20: %d events, want 20", len(got))
	}
	for _, k := range keys[:2] {
		if err := l.Delete(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	_, _, err = readAll(t, l, ReaderOptions{})
	wantCorrupt(t, err, "epochs/00000002", "seq 1 to 30 missing")
}

// TestReader_TornOrCorrupt: only a truncated newest segment is torn, and
// its notice names the seqs dropped; a damaged trailer or an object that
// is not Parquet is corruption.
func TestReader_TornOrCorrupt(t *testing.T) {
	flipLast := func(b []byte) []byte { c := append([]byte(nil), b...); c[len(c)-1] ^= 1; return c }
	flipLength := func(b []byte) []byte { c := append([]byte(nil), b...); c[len(c)-6] ^= 0x80; return c }
	hello := func([]byte) []byte { return []byte("hello\n") }
	for _, f := range []func([]byte) []byte{flipLast, flipLength, hello} {
		l := memLog(t)
		_, keys := threeSegments(t, l)
		mangle(t, l, keys[2], f)
		checkColumnsAgree(t, l, format.FieldBytesOut)
		got, notices, err := readAll(t, l, ReaderOptions{})
		wantCorrupt(t, err, keys[2])
		if len(got) != 20 || len(noticesOf(notices, format.NoticeTornTail)) != 0 {
			t.Fatalf("%d events, notices %+v: want 20 and no torn tail", len(got), notices)
		}
	}
	l := memLog(t)
	_, keys := threeSegments(t, l)
	mangle(t, l, keys[2], truncateHalf)
	_, notices := mustReadAll(t, l, ReaderOptions{})
	torn := noticesOf(notices, format.NoticeTornTail)
	if len(torn) != 1 || !strings.Contains(torn[0].Message, "seq 21 to 30 of epoch 1 dropped") {
		t.Fatalf("torn notices = %+v, want one naming seq 21 to 30", torn)
	}
}

// TestReader_SizeLimit: an object named like a segment and larger than
// MaxSegmentBytes is corruption naming its key and size, found before it
// is read; a read is bounded even when the listed size lies (a symlink to
// /dev/zero).
func TestReader_SizeLimit(t *testing.T) {
	l, dir := fileLog(t)
	threeSegments(t, l)
	big := FormatSegmentName(1, 31, 40)
	f, err := os.Create(filepath.Join(dir, filepath.FromSlash(big)))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(3 << 30); err != nil { // sparse
		t.Fatal(err)
	}
	f.Close()
	_, _, err = readAll(t, l, ReaderOptions{})
	wantCorrupt(t, err, big, "3221225472 bytes", "over the segment size limit")
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(big))); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, filepath.FromSlash(big))); err != nil {
		t.Fatal(err)
	}
	_, _, err = readAll(t, l, ReaderOptions{})
	wantCorrupt(t, err, big, "more than")
	_, err = l.OpenSegment(ctx, big)
	wantCorrupt(t, err, big, "more than")
}

// TestFileStore_ListingError: an events/ directory that cannot be listed
// is an error, never an empty log.
func TestFileStore_ListingError(t *testing.T) {
	l, dir := fileLog(t)
	threeSegments(t, l)
	events := filepath.Join(dir, "events")
	if err := os.RemoveAll(events); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("events", events); err != nil { // a loop
		t.Fatal(err)
	}
	if _, err := l.NewReader(ctx, ReaderOptions{}); err == nil || !strings.Contains(err.Error(), "list events/") {
		t.Fatalf("symlink loop: err = %v, want a listing error", err)
	}
	if err := os.Remove(events); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(events, []byte("x"), 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Exists(ctx); err == nil {
		t.Fatal("events/ a regular file: no error")
	}
}

// TestReader_CheckCovered: a covered segment whose rows differ from the
// covering segment's is corruption, found at the end of the log; a
// leftover that agrees is fine, and a following reader does not look.
func TestReader_CheckCovered(t *testing.T) {
	l := memLog(t)
	claim(t, l, 1, 1)
	events := numbered(genEvents(30, 5), 1, 1)
	writeSegments(t, l, events, 30)
	if _, err := l.WriteSegment(ctx, events[10:20]); err != nil { // a leftover that agrees
		t.Fatal(err)
	}
	if _, _, err := readAll(t, l, ReaderOptions{}); err != nil {
		t.Fatalf("agreeing leftover: %v", err)
	}
	dup := numbered(genEvents(1, 99), 1, 30) // the same seq, another event
	dup[0].Kind, dup[0].Status = format.KindJobFinished, format.StatusFailed
	key, err := l.WriteSegment(ctx, dup)
	if err != nil {
		t.Fatal(err)
	}
	checkColumnsAgree(t, l, format.FieldBytesOut)
	got, _, err := readAll(t, l, ReaderOptions{})
	wantCorrupt(t, err, key, "row of seq 30")
	if len(got) != 30 {
		t.Fatalf("%d events before the error, want 30", len(got))
	}
}

// TestSummary_Damaged: what ls shows of a damaged log is never the status
// of a healthy one: a missing first segment, a gap, a flipped middle or
// newest segment, and events/ deleted under epochs that promise events are
// "damaged" with the problem named; a torn newest segment is "torn".
func TestSummary_Damaged(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, l *Log, keys []string)
		status string
		want   string
	}{
		{"first missing", func(t *testing.T, l *Log, keys []string) { deleteKey(t, l, keys[0]) }, "damaged", "seq 1 to 10"},
		{"gap", func(t *testing.T, l *Log, keys []string) { deleteKey(t, l, keys[1]) }, "damaged", "seq 11 to 20 missing"},
		{"first flipped", func(t *testing.T, l *Log, keys []string) { mangle(t, l, keys[0], flipMiddle) }, "damaged", keys0},
		{"newest flipped", func(t *testing.T, l *Log, keys []string) { mangle(t, l, keys[2], flipMiddle) }, "damaged", keys2},
		{"newest torn", func(t *testing.T, l *Log, keys []string) { mangle(t, l, keys[2], truncateHalf) }, "torn", keys2},
		{"events deleted", func(t *testing.T, l *Log, keys []string) {
			for _, k := range keys {
				deleteKey(t, l, k)
			}
			claim(t, l, 2, 31)
		}, "damaged", "seq 1 to 30 missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := Create(ctx, uniqueMem("summary-damaged"))
			if err != nil {
				t.Fatal(err)
			}
			claim(t, l, 1, 1)
			keys := writeSegments(t, l, numbered(genEvents(30, 7), 1, 1), 10)
			tc.damage(t, l, keys)
			s, err := l.Summarize(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want := strings.NewReplacer(keys0, keys[0], keys2, keys[2]).Replace(tc.want)
			if s.Status != tc.status || !strings.Contains(s.Problem, want) {
				t.Fatalf("summary = %+v, want status %s and a problem naming %q", s, tc.status, want)
			}
		})
	}
}

// TestSummary_WholeLog: ls reads every segment of a log of several, as
// status does: a finished log whose middle segment is flipped or torn is
// damaged, naming that segment, and counts the events read before it; a
// failed-over log counts the events as read, fenced rows left out.
func TestSummary_WholeLog(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func([]byte) []byte
	}{{"middle flipped", flipMiddle}, {"middle torn", truncateHalf}} {
		t.Run(tc.name, func(t *testing.T) {
			l := memLog(t)
			claim(t, l, 1, 1)
			events := numbered(genEvents(40, 9), 1, 1)
			events[39].Kind, events[39].Status = format.KindJobFinished, format.StatusFinished
			keys := writeSegments(t, l, events, 10)
			if s, err := l.Summarize(ctx); err != nil || s.Status != "finished" || s.Events != 40 {
				t.Fatalf("summary before the damage = %+v, %v; want finished, 40 events", s, err)
			}
			mangle(t, l, keys[1], tc.damage)
			s, err := l.Summarize(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if s.Status != "damaged" || s.Finished || !strings.Contains(s.Problem, keys[1]) {
				t.Fatalf("summary = %+v, want damaged with a problem naming %s", s, keys[1])
			}
			if s.Events != 10 || s.LastSeq != 10 || s.Job != "wordcount" || s.Segments != 4 {
				t.Fatalf("summary = %+v, want 10 events read, job wordcount, 4 segments", s)
			}
		})
	}
	t.Run("failed over", func(t *testing.T) {
		l := memLog(t)
		read := fencedLog(t, l, true)
		s, err := l.Summarize(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if s.Status != "finished" || s.Events != int64(len(read)) || s.LastSeq != read[len(read)-1].Seq || s.Epochs != 2 {
			t.Fatalf("summary = %+v, want finished, %d events to seq %d, 2 epochs", s, len(read), read[len(read)-1].Seq)
		}
	})
}

// Stand-ins for the keys of the segments, replaced once they are known.
const keys0, keys2 = "<key 0>", "<key 2>"

func deleteKey(t *testing.T, l *Log, key string) {
	t.Helper()
	if err := l.store.delete(ctx, key); err != nil {
		t.Fatal(err)
	}
}

// TestLog_Ended: Ended reads the newest segment alone: a log ends when it
// ends with job_finished, whatever the segments before it hold.
func TestLog_Ended(t *testing.T) {
	l := memLog(t)
	if ended, err := l.Ended(ctx); err != nil || ended {
		t.Fatalf("Ended of a log without segments = %v, %v; want false", ended, err)
	}
	claim(t, l, 1, 1)
	events := numbered(genEvents(30, 3), 1, 1)
	writeSegments(t, l, events[:29], 10)
	if ended, err := l.Ended(ctx); err != nil || ended {
		t.Fatalf("Ended of an unfinished log = %v, %v; want false", ended, err)
	}
	events[29].Kind, events[29].Status = format.KindJobFinished, format.StatusFailed
	writeSegments(t, l, events[29:], 10)
	if ended, err := l.Ended(ctx); err != nil || !ended {
		t.Fatalf("Ended of a finished log = %v, %v; want true", ended, err)
	}
}
