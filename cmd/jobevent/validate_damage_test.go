package main

import (
	"bytes"
	be "encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"strings"
	"testing"

	"github.com/jobevent/jobevent/pkg/format"
)

// resealChecksum recomputes the checksum of a segment in place, as a
// writer of the damaged bytes would have: the CRC-32C of the file with the
// value of format.ChecksumKey read as "00000000". It reports whether the
// segment still has a checksum entry to reseal.
func resealChecksum(data []byte) bool {
	n := len(data)
	if n < 12 {
		return false
	}
	footerLen := int(be.LittleEndian.Uint32(data[n-8 : n-4]))
	if footerLen <= 0 || footerLen > n-12 {
		return false
	}
	start := n - 8 - footerLen
	k := bytes.LastIndex(data[start:n-8], []byte(format.ChecksumKey))
	if k < 0 {
		return false
	}
	off := start + k + len(format.ChecksumKey) + 2
	if off+8 > n-8 {
		return false
	}
	copy(data[off:off+8], "00000000")
	sum := crc32.Checksum(data, crc32.MakeTable(crc32.Castagnoli))
	copy(data[off:off+8], fmt.Sprintf("%08x", sum))
	return true
}

// TestValidate_RejectsWhatDumpRejects: a segment dump refuses is never
// valid. Every byte of a segment is flipped in turn (a bit, and the whole
// byte), with the checksum kept (the flip must be caught by it) or
// recomputed (the flip must be caught by decoding); whenever dump exits 2,
// validate must report an error finding and exit 1.
func TestValidate_RejectsWhatDumpRejects(t *testing.T) {
	dir := importedLog(t, "healthy.jsonl")
	path := segmentPath(t, dir, 1)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	step := 2
	if testing.Short() {
		step = 11
	}
	rejected, missed := 0, []string{}
	for off := 0; off < len(orig); off += step {
		for _, mask := range []byte{0x01, 0xff} {
			for _, reseal := range []bool{false, true} {
				data := bytes.Clone(orig)
				data[off] ^= mask
				if reseal && !resealChecksum(data) {
					continue
				}
				if err := os.WriteFile(path, data, 0o666); err != nil {
					t.Fatal(err)
				}
				if runCLI(t, "dump", dir).code != 2 {
					continue
				}
				rejected++
				r := runCLI(t, "validate", dir, "--format", "json")
				if r.code != 1 || !strings.Contains(r.stdout, `"severity": "error"`) {
					missed = append(missed, fmt.Sprintf("offset %d ^0x%02x reseal=%v: validate exit %d", off, mask, reseal, r.code))
				}
			}
		}
	}
	if err := os.WriteFile(path, orig, 0o666); err != nil {
		t.Fatal(err)
	}
	if rejected == 0 {
		t.Fatal("dump rejected no flip")
	}
	if len(missed) > 0 {
		t.Fatalf("validate passed %d of %d segments dump rejects:\n%s", len(missed), rejected, strings.Join(missed, "\n"))
	}
}
