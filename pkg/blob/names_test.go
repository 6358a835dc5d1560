package blob

import (
	"sort"
	"testing"
)

func TestFormatSegmentName(t *testing.T) {
	tests := []struct {
		epoch       int32
		first, last int64
		want        string
	}{
		{1, 1, 1, "events/00000001-0000000000000001-0000000000000001.parquet"},
		{2, 1025, 2048, "events/00000002-0000000000000401-0000000000000800.parquet"},
		{1<<31 - 1, 1<<63 - 2, 1<<63 - 1, "events/7fffffff-7ffffffffffffffe-7fffffffffffffff.parquet"},
	}
	for _, tc := range tests {
		got := FormatSegmentName(tc.epoch, tc.first, tc.last)
		if got != tc.want {
			t.Errorf("FormatSegmentName(%d, %d, %d) = %s, want %s", tc.epoch, tc.first, tc.last, got, tc.want)
		}
		e, f, l, ok := ParseSegmentName(got)
		if !ok || e != tc.epoch || f != tc.first || l != tc.last {
			t.Errorf("ParseSegmentName(%s) = %d, %d, %d, %v", got, e, f, l, ok)
		}
		if _, _, _, ok := ParseSegmentName(got[len(EventsDir):]); !ok {
			t.Errorf("ParseSegmentName of the bare name %s failed", got[len(EventsDir):])
		}
	}
}

func TestParseSegmentName_Rejects(t *testing.T) {
	for _, name := range []string{
		"",
		"events/",
		"events/README.txt",
		"events/00000001-0000000000000001-0000000000000001.parquet.tmp",
		"events/00000001-0000000000000001-0000000000000001.parquet.1a2b.tmp",
		"events/00000001-0000000000000001-0000000000000001.json",
		"events/0000001-0000000000000001-0000000000000001.parquet",      // short epoch
		"events/00000001-000000000000001-0000000000000001.parquet",      // short first
		"events/00000001-0000000000000001-00000000000000001.parquet",    // long last
		"events/0000000A-0000000000000001-0000000000000001.parquet",     // uppercase
		"events/00000000-0000000000000001-0000000000000001.parquet",     // epoch 0
		"events/80000000-0000000000000001-0000000000000001.parquet",     // epoch overflows int32
		"events/00000001-0000000000000000-0000000000000001.parquet",     // seq 0
		"events/00000001-0000000000000002-0000000000000001.parquet",     // first > last
		"events/00000001-8000000000000000-8000000000000000.parquet",     // seq overflows int64
		"events/00000001_0000000000000001_0000000000000001.parquet",     // separators
		"events/sub/00000001-0000000000000001-0000000000000001.parquet", // nested
		"events/+0000001-0000000000000001-0000000000000001.parquet",
		"epochs/00000001",
	} {
		if e, f, l, ok := ParseSegmentName(name); ok {
			t.Errorf("ParseSegmentName(%q) = %d, %d, %d, true; want false", name, e, f, l)
		}
	}
}

// TestSegmentName_Order checks that name order is (epoch, first, last)
// order, which the reader relies on.
func TestSegmentName_Order(t *testing.T) {
	type seg struct {
		e    int32
		f, l int64
	}
	segs := []seg{{2, 1, 9}, {1, 16, 16}, {1, 2, 300}, {10, 5, 5}, {1, 2, 15}, {1, 255, 256}, {1, 1, 1}}
	names := make([]string, len(segs))
	for i, s := range segs {
		names[i] = FormatSegmentName(s.e, s.f, s.l)
	}
	sort.Strings(names)
	sort.Slice(segs, func(i, j int) bool {
		a, b := segs[i], segs[j]
		if a.e != b.e {
			return a.e < b.e
		}
		if a.f != b.f {
			return a.f < b.f
		}
		return a.l < b.l
	})
	for i, s := range segs {
		if want := FormatSegmentName(s.e, s.f, s.l); names[i] != want {
			t.Fatalf("name %d = %s, want %s", i, names[i], want)
		}
	}
}

func TestEpochKey(t *testing.T) {
	if got := epochKey(26); got != "epochs/0000001a" {
		t.Fatalf("epochKey(26) = %s", got)
	}
	if got := heartbeatKey(26); got != "epochs/0000001a.heartbeat" {
		t.Fatalf("heartbeatKey(26) = %s", got)
	}
	for key, want := range map[string]int32{
		"epochs/0000001a": 26, "epochs/0000001a.heartbeat": 0, "epochs/0000001A": 0,
		"epochs/00000000": 0, "epochs/1a": 0, "events/0000001a": 0, "epochs/probe": 0,
	} {
		got, ok := parseEpochKey(key)
		if got != want || ok != (want != 0) {
			t.Errorf("parseEpochKey(%q) = %d, %v; want %d", key, got, ok, want)
		}
	}
}

func FuzzParseSegmentName(f *testing.F) {
	f.Add("events/00000001-0000000000000001-0000000000000001.parquet")
	f.Add("00000002-0000000000000401-0000000000000800.parquet")
	f.Add("events/ffffffff-ffffffffffffffff-ffffffffffffffff.parquet")
	f.Fuzz(func(t *testing.T, name string) {
		e, first, last, ok := ParseSegmentName(name)
		if !ok {
			return
		}
		if e < 1 || first < 1 || first > last {
			t.Fatalf("accepted %q as %d, %d, %d", name, e, first, last)
		}
		// One spelling per segment: formatting gives the name back.
		if got := FormatSegmentName(e, first, last); got != name && got != EventsDir+name {
			t.Fatalf("FormatSegmentName(ParseSegmentName(%q)) = %q", name, got)
		}
	})
}
