package format

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// checksumPlaceholder is the value of ChecksumKey while the checksum is
// computed.
const checksumPlaceholder = "00000000"

// errNoChecksum reports a footer without ChecksumKey.
var errNoChecksum = fmt.Errorf("no %s in footer: %w", ChecksumKey, ErrCorrupt)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// checksumValue locates the 8 value bytes of ChecksumKey in the footer of
// data (a file that passed checkTail). Thrift compact encoding writes a
// KeyValue as: key header, key length, key, value header 0x18, value length
// 0x08, value. The last occurrence of the key in the footer is used.
func checksumValue(data []byte) (int, error) {
	n := len(data)
	footerLen := int(binary.LittleEndian.Uint32(data[n-8 : n-4]))
	footerStart := n - 8 - footerLen
	footer := data[footerStart : n-8]
	k := bytes.LastIndex(footer, []byte(ChecksumKey))
	if k < 0 {
		return 0, errNoChecksum
	}
	v := k + len(ChecksumKey)
	if v+2+len(checksumPlaceholder) > len(footer) || footer[v] != 0x18 || footer[v+1] != byte(len(checksumPlaceholder)) {
		return 0, fmt.Errorf("footer %s entry is malformed: %w", ChecksumKey, ErrCorrupt)
	}
	return footerStart + v + 2, nil
}

// fileChecksum computes the CRC-32C of data with the 8 bytes at off read as
// the placeholder.
func fileChecksum(data []byte, off int) uint32 {
	c := crc32.Update(0, castagnoli, data[:off])
	c = crc32.Update(c, castagnoli, []byte(checksumPlaceholder))
	return crc32.Update(c, castagnoli, data[off+len(checksumPlaceholder):])
}

// sealChecksum replaces the placeholder in a freshly encoded segment with
// its checksum.
func sealChecksum(data []byte) error {
	if err := checkTail(data); err != nil {
		return err
	}
	off, err := checksumValue(data)
	if err != nil {
		return err
	}
	if string(data[off:off+len(checksumPlaceholder)]) != checksumPlaceholder {
		return fmt.Errorf("checksum placeholder not found: %w", ErrCorrupt)
	}
	appendHex32(data[off:off], fileChecksum(data, off))
	return nil
}

// verifyChecksum checks the checksum of a segment that passed checkTail.
func verifyChecksum(data []byte) error {
	off, err := checksumValue(data)
	if err != nil {
		return err
	}
	var want [8]byte
	appendHex32(want[:0], fileChecksum(data, off))
	if got := data[off : off+8]; !bytes.Equal(got, want[:]) {
		return fmt.Errorf("checksum mismatch (stored %s, computed %s): %w", got, want[:], ErrCorrupt)
	}
	return nil
}

// appendHex32 appends v as 8 lowercase hex digits.
func appendHex32(dst []byte, v uint32) []byte {
	for shift := 28; shift >= 0; shift -= 4 {
		dst = append(dst, hexDigits[(v>>uint(shift))&0xf])
	}
	return dst
}
