package runtime

import (
	"errors"
	"os"
	"testing"
)

func TestPartitionStore(t *testing.T) {
	t.Parallel()
	store := newPartitionStore(t.TempDir(), "")
	id := partID{Vertex: "map-a", Subtask: 3, Attempt: 1, Consumer: "count"}
	b := newPartitionBuilder(id, 8)
	var want []Record
	for i := 0; i < 1000; i++ {
		r := Record{Key: Int(int64(i % 37)), Value: Str("v")}
		b.add(r)
		want = append(want, r)
	}
	if err := store.write("job", b); err != nil {
		t.Fatal(err)
	}
	held, err := store.list("job")
	if err != nil || len(held) != 1 || held[0].ID != id || held[0].Records != 1000 {
		t.Fatalf("list = %+v, %v; want the one partition of 1000 records", held, err)
	}
	// Every key group range reads back the records of exactly its groups.
	total := 0
	for from := 0; from < 8; from += 3 {
		to := min(from+3, 8)
		data, n, err := store.read("job", id, from, to)
		if err != nil {
			t.Fatal(err)
		}
		for len(data) > 0 {
			r, used, err := decodeRecord(data)
			if err != nil {
				t.Fatal(err)
			}
			if g := keyGroup(r.Key, 8); g < from || g >= to {
				t.Fatalf("range [%d,%d) returned a record of group %d", from, to, g)
			}
			data = data[used:]
			n--
			total++
		}
		if n != 0 {
			t.Fatalf("range [%d,%d): record count off by %d", from, to, n)
		}
	}
	if total != len(want) {
		t.Fatalf("read %d records, want %d", total, len(want))
	}
	if _, _, err := store.read("job", partID{Vertex: "nope", Consumer: "c"}, 0, 1); !errors.Is(err, ErrPartitionNotFound) {
		t.Fatalf("missing partition: %v, want ErrPartitionNotFound", err)
	}
	// A flipped byte in the data fails the group's checksum.
	p := mustPath(t, store, "job", id)
	raw, _ := os.ReadFile(p)
	raw[len(raw)-1] ^= 0x40
	os.WriteFile(p, raw, 0o644)
	store2 := newPartitionStore(store.dir, "")
	if _, _, err := store2.read("job", id, 0, 8); !errors.Is(err, errPartitionCorrupt) {
		t.Fatalf("corrupt partition: %v, want errPartitionCorrupt", err)
	}
	// A truncated file is not listed.
	os.WriteFile(p, raw[:len(raw)/2], 0o644)
	if held, _ := newPartitionStore(store.dir, "").list("job"); len(held) != 0 {
		t.Fatalf("a truncated partition is listed: %+v", held)
	}
	if err := store.removeJob("job"); err != nil {
		t.Fatal(err)
	}
	if held, _ := store.list("job"); len(held) != 0 {
		t.Fatal("partitions left after removeJob")
	}
}

func FuzzParsePartitionHeader(f *testing.F) {
	b := newPartitionBuilder(partID{Vertex: "v", Consumer: "c"}, 3)
	b.add(Record{Key: Str("k"), Value: Int(1)})
	dir := f.TempDir()
	store := newPartitionStore(dir, "")
	if err := store.write("j", b); err != nil {
		f.Fatal(err)
	}
	raw, _ := os.ReadFile(mustPath(f, store, "j", b.id))
	f.Add(raw)
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := parsePartitionHeader(bytesReaderAt(data), int64(len(data)))
		if err == nil && h.offsets[len(h.offsets)-1] != int64(len(data)) {
			t.Fatal("header accepted that does not match the size")
		}
	})
}

type bytesReaderAt []byte

func (b bytesReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > int64(len(b)) {
		return 0, errors.New("out of range")
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, errors.New("short read")
	}
	return n, nil
}

// mustPath returns the file of a partition of store.
func mustPath(t testing.TB, store *partitionStore, job string, id partID) string {
	t.Helper()
	p, err := store.path(job, id)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
