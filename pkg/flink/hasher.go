package flink

import (
	"encoding/binary"
	"math/bits"
)

// This file ports the hash of Flink's StreamGraphHasherV2 (unchanged since
// Flink 1.2; "DO NOT MODIFY THIS CLASS"): a JobVertexID is the 128-bit
// MurmurHash3 (x64, seed 0, Guava's Hashing.murmur3_128(0)) of
//
//   - the stream node's uid as UTF-8, when the user set one (uid(String)); or
//   - the number of nodes hashed before it as a little-endian int32, once
//     for the node and once more for each chainable out-edge, and then,
//     for every in-edge in order, each byte b of the hash mixed with the
//     producer's hash p as b = b*37 ^ p.
//
// The 16 bytes (h1 then h2, little-endian) read as an AbstractID (lower
// part = bytes 0-7 big-endian) print as their own hex.

// murmur3x64128 returns Guava's murmur3_128(0).hashBytes(data).asBytes().
func murmur3x64128(data []byte) [16]byte {
	const c1, c2 = 0x87c37b91114253d5, 0x4cf5ad432745937f
	var h1, h2 uint64
	n := len(data)
	for len(data) >= 16 {
		k1 := binary.LittleEndian.Uint64(data)
		k2 := binary.LittleEndian.Uint64(data[8:])
		data = data[16:]
		h1 ^= bits.RotateLeft64(k1*c1, 31) * c2
		h1 = (bits.RotateLeft64(h1, 27)+h2)*5 + 0x52dce729
		h2 ^= bits.RotateLeft64(k2*c2, 33) * c1
		h2 = (bits.RotateLeft64(h2, 31)+h1)*5 + 0x38495ab5
	}
	var k1, k2 uint64
	for i := len(data) - 1; i >= 8; i-- {
		k2 ^= uint64(data[i]) << (8 * (i - 8))
	}
	for i := min(len(data), 8) - 1; i >= 0; i-- {
		k1 ^= uint64(data[i]) << (8 * i)
	}
	if len(data) > 8 {
		h2 ^= bits.RotateLeft64(k2*c2, 33) * c1
	}
	if len(data) > 0 {
		h1 ^= bits.RotateLeft64(k1*c1, 31) * c2
	}
	h1 ^= uint64(n)
	h2 ^= uint64(n)
	h1 += h2
	h2 += h1
	h1, h2 = fmix64(h1), fmix64(h2)
	h1 += h2
	h2 += h1
	var out [16]byte
	binary.LittleEndian.PutUint64(out[:], h1)
	binary.LittleEndian.PutUint64(out[8:], h2)
	return out
}

func fmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}

// userHash is StreamGraphHasherV2.generateUserSpecifiedHash: the hash of a
// uid.
func userHash(uid string) [16]byte { return murmur3x64128([]byte(uid)) }

// deterministicHash is StreamGraphHasherV2.generateDeterministicHash for a
// node with chainable out-edges, hashed after hashed nodes, whose inputs
// (in in-edge order) have the hashes in.
func deterministicHash(hashed, chainable int, in [][16]byte) [16]byte {
	buf := make([]byte, 0, 4*(1+chainable))
	for range 1 + chainable {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(int32(hashed)))
	}
	h := murmur3x64128(buf)
	for _, o := range in {
		for j := range h {
			h[j] = h[j]*37 ^ o[j]
		}
	}
	return h
}

// hashID reads 16 hash bytes as Flink's AbstractID(byte[]) does.
func hashID(h [16]byte) ID {
	return ID{Lower: int64(binary.BigEndian.Uint64(h[:8])), Upper: int64(binary.BigEndian.Uint64(h[8:]))}
}
