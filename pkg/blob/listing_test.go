package blob

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jobevent/jobevent/internal/blobtest"
)

// TestSegments_10k lists a log of 10,000 segments (several listing pages on
// every backend) and reads its tail: the reader plans over every name but
// reads only the segments after Since. The first 9,997 objects hold no
// valid segment, so reading one of them would fail the test.
func TestSegments_10k(t *testing.T) {
	const n = 10_000
	for name, url := range map[string]func(t *testing.T) string{
		"mem":  func(t *testing.T) string { return uniqueMem("listing-10k") + "?prefix=big/" },
		"file": func(t *testing.T) string { return "file://" + t.TempDir() + "?prefix=big/" },
		// S3 lists 1,000 keys a page: ten pages.
		"s3": func(t *testing.T) string { return blobtest.WithPrefix(blobtest.S3(t), "big/") },
	} {
		t.Run(name, func(t *testing.T) {
			if name != "mem" && testing.Short() {
				t.Skip("creates 10,000 objects")
			}
			l, err := Create(ctx, url(t))
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			claim(t, l, 1, 1)
			put := func(key string) error {
				return l.store.put(ctx, key, []byte("not parquet"), contentTypeParquet)
			}
			if fs, ok := l.store.(*fileStore); ok {
				// Straight to disk: fileblob takes about 0.5 ms a write.
				if err := os.MkdirAll(fs.path(EventsDir), 0o777); err != nil {
					t.Fatal(err)
				}
				put = func(key string) error { return os.WriteFile(fs.path(key), []byte("not parquet"), 0o666) }
			}
			var wg sync.WaitGroup
			errs := make([]error, 8)
			for w := range int64(8) {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for seq := 1 + w; seq <= n-3 && errs[w] == nil; seq += 8 {
						errs[w] = put(FormatSegmentName(1, seq, seq))
					}
				}()
			}
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				t.Fatal(err)
			}
			tail := numbered(genEvents(3, 1), 1, n-2)
			writeSegments(t, l, tail, 1)

			start := time.Now()
			segs, err := l.Segments(ctx)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: listed %d segments in %v", name, len(segs), time.Since(start))
			if len(segs) != n {
				t.Fatalf("segments = %d, want %d", len(segs), n)
			}
			for i, s := range segs {
				if s.First != int64(i+1) || s.Last != int64(i+1) {
					t.Fatalf("segment %d = %s, want seq %d", i, s.Key, i+1)
				}
			}
			got, _ := mustReadAll(t, l, ReaderOptions{Since: n - 2})
			assertEvents(t, got, tail)
			_, _, err = readAll(t, l, ReaderOptions{})
			if want := FormatSegmentName(1, 1, 1) + ": "; !IsCorrupt(err) || err.Error()[:len(want)] != want {
				t.Fatalf("reading from the start: %v, want corruption of the first segment", err)
			}
		})
	}
}

// TestBuildPlan checks the name-only rules on their own.
func TestBuildPlan(t *testing.T) {
	seg := func(e int32, f, l int64) SegmentInfo {
		return SegmentInfo{Key: FormatSegmentName(e, f, l), Epoch: e, First: f, Last: l}
	}
	segs := []SegmentInfo{
		seg(1, 1, 10), seg(1, 1, 20), seg(1, 11, 20), seg(1, 21, 30), seg(1, 31, 40), // [1-20] covers two
		seg(2, 35, 50), seg(2, 51, 60), // epoch 2 has no object: fences epoch 1 at 35
		seg(3, 61, 70), // epoch 3's object says 58
		seg(4, 100, 110),
	}
	epochs := map[int32]EpochInfo{3: {Epoch: 3, StartSeq: 58}, 4: {Epoch: 4, StartSeq: 71}, 5: {Epoch: 5, StartSeq: 200}}
	p := buildPlan(segs, []string{"events/x"}, epochs)
	var got []string
	for _, it := range p.items {
		got = append(got, fmt.Sprintf("%d:%d-%d fence=%s newest=%v", it.Epoch, it.First, it.Last, fenceString(it.fence), it.newest))
	}
	want := []string{
		"1:1-20 fence=none newest=false",
		"1:21-30 fence=none newest=false",
		"1:31-40 fence=epoch 2 at 35 newest=true",
		"2:35-50 fence=none newest=false",
		"2:51-60 fence=epoch 3 at 58 newest=true",
		"3:61-70 fence=none newest=true",
		"4:100-110 fence=none newest=true", // fence 200 lies beyond it
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("plan =\n%v\nwant\n%v", got, want)
	}
	fences := make(map[int32]string)
	for e, f := range p.fences {
		fences[e] = fenceString(f)
	}
	if want := map[int32]string{1: "epoch 2 at 35", 2: "epoch 3 at 58", 3: "epoch 4 at 71", 4: "epoch 5 at 200"}; fmt.Sprint(fences) != fmt.Sprint(want) {
		t.Fatalf("fences = %v, want %v", fences, want)
	}
	kinds := map[string]int{}
	for _, n := range p.notices {
		kinds[string(n.Kind)]++
	}
	if fmt.Sprint(kinds) != "map[covered:2 unknown_object:1]" {
		t.Fatalf("notices = %v", p.notices)
	}
}

// fenceString reads "epoch 2 at 35", or "none" for a nil fence.
func fenceString(f *fence) string {
	if f == nil {
		return "none"
	}
	return fmt.Sprintf("epoch %d at %d", f.epoch, f.seq)
}
