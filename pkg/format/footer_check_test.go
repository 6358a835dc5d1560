package format

import (
	"errors"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestCheckFooter: the footers of real segments pass; footers that claim
// more than they hold, or nest without end, are corruption.
func TestCheckFooter(t *testing.T) {
	for _, data := range [][]byte{encode(t, sampleEvents()), encode(t, realisticEvents(3000, 1)), encode(t, nil)} {
		if err := checkFooter(data[len(data)-8-footerLength(data) : len(data)-8]); err != nil {
			t.Fatalf("a segment's own footer: %v", err)
		}
	}
	deep := strings.Repeat("\x1c", maxFooterDepth+2) // field 1, a struct, inside each other
	for name, footer := range map[string]string{
		"list of 2^31 i32":         "\x19\xf5\xff\xff\xff\xff\x07",
		"list of 4 in 2 bytes":     "\x19\x45\x01\x02",
		"binary of 1 GiB":          "\x18\x80\x80\x80\x80\x04ab",
		"map of 2^20 entries":      "\x1b\x80\x80\x40\x55\x00",
		"nested past the bound":    deep + strings.Repeat("\x00", maxFooterDepth+3),
		"unknown type":             "\x1e\x00",
		"ends inside a varint":     "\x15\xff",
		"no stop byte":             "\x15\x01",
		"varint past ten bytes":    "\x16" + strings.Repeat("\xff", 11),
		"field id that never ends": "\x05\xff\xff",
	} {
		if err := checkFooter([]byte(footer)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
	for name, footer := range map[string]string{
		"empty struct":           "\x00",
		"i32, binary, list, map": "\x15\x02\x18\x02ab\x19\x25\x02\x04\x1b\x01\x55\x02\x04\x00",
		"booleans":               "\x11\x12\x19\x21\x01\x02\x00",
	} {
		if err := checkFooter([]byte(footer)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestOpenSegment_FooterClaimsGigabytes: a segment whose footer, its
// checksum sealed again, claims a list of 16 million structures (a fuzzer
// input that made Parquet's reader allocate 17 GB) is refused without
// allocating much.
func TestOpenSegment_FooterClaimsGigabytes(t *testing.T) {
	raw, err := os.ReadFile("testdata/fuzz/FuzzProjection/a0a0b91e0c474e9a")
	if err != nil {
		t.Fatal(err)
	}
	_, quoted, _ := strings.Cut(strings.TrimSpace(string(raw)), "\n")
	s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(quoted, "[]byte("), ")"))
	if err != nil {
		t.Fatal(err)
	}
	sealed, ok := resealed([]byte(s))
	if !ok {
		t.Fatal("the input cannot be sealed again")
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = OpenSegment(sealed)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("OpenSegment: %v, want ErrCorrupt", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Fatalf("OpenSegment allocated %d bytes, want at most 1 MiB", got)
	}
}
