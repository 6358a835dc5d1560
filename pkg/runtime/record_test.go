package runtime

import (
	"encoding/binary"
	"hash/fnv"
	"testing"
)

func TestRecord_RoundTrip(t *testing.T) {
	t.Parallel()
	records := []Record{
		{},
		{Key: Int(0), Value: Int(-1)},
		{Key: Str(""), Value: Str("héllo\x00")},
		{Key: Int(1<<63 - 1), Value: Str("x")},
		{Key: Str("k"), Value: Int(-1 << 63)},
	}
	var buf []byte
	for _, r := range records {
		buf = appendRecord(buf, r)
	}
	for i, want := range records {
		got, n, err := decodeRecord(buf)
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if got != want {
			t.Fatalf("record %d = %+v, want %+v", i, got, want)
		}
		buf = buf[n:]
	}
	if len(buf) != 0 {
		t.Fatalf("%d bytes left over", len(buf))
	}
}

func TestValue_Compare(t *testing.T) {
	t.Parallel()
	ordered := []Value{{}, Int(-5), Int(3), Str(""), Str("a"), Str("b")}
	for i := range ordered {
		for j := range ordered {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := ordered[i].Compare(ordered[j]); got != want {
				t.Errorf("%v.Compare(%v) = %d, want %d", ordered[i], ordered[j], got, want)
			}
		}
	}
}

// TestKeyGroup_Format checks keyGroup against the format's definition,
// computed independently: FNV-1a 64 of the kind byte and the encoded key,
// modulo the number of groups. Producers and consumers of any version
// must agree on it.
func TestKeyGroup_Format(t *testing.T) {
	t.Parallel()
	ref := func(key Value, groups int) int {
		h := fnv.New64a()
		h.Write([]byte{byte(key.kind)})
		if key.IsInt() {
			h.Write(binary.AppendVarint(nil, key.Int64()))
		} else {
			h.Write([]byte(key.Text()))
		}
		return int(h.Sum64() % uint64(groups))
	}
	for _, key := range []Value{{}, Int(0), Int(-1), Int(42), Int(1 << 40), Str(""), Str("the"), Str("héllo")} {
		for _, groups := range []int{2, 7, 128, 32768} {
			if got, want := keyGroup(key, groups), ref(key, groups); got != want {
				t.Errorf("keyGroup(%v, %d) = %d, want %d", key, groups, got, want)
			}
		}
	}
	if keyGroup(Str("x"), 1) != 0 || keyGroup(Int(9), 0) != 0 {
		t.Error("one group: want group 0")
	}
}

func FuzzDecodeRecord(f *testing.F) {
	f.Add(appendRecord(nil, Record{Key: Str("a"), Value: Int(1)}))
	f.Add([]byte{0x22, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		for len(b) > 0 {
			r, n, err := decodeRecord(b)
			if err != nil {
				return
			}
			if n <= 0 || n > len(b) {
				t.Fatalf("decodeRecord used %d of %d bytes", n, len(b))
			}
			// Non-minimal varints decode too; what must hold is that
			// the record survives its own encoding.
			again, m, err := decodeRecord(appendRecord(nil, r))
			if err != nil || again != r || m > n {
				t.Fatalf("record %+v re-decoded as %+v (%d of %d bytes, %v)", r, again, m, n, err)
			}
			b = b[n:]
		}
	})
}
