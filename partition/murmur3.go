package partition

import (
	"encoding/binary"
	"math/bits"
)

// Iceberg's bucket transform hashes with 32-bit Murmur3, x86 variant, seed 0
// (spec Appendix B), written out here because the hash is part of the table
// format: a different hash files rows in buckets other engines do not look in.

const (
	murmurC1 = 0xcc9e2d51
	murmurC2 = 0x1b873593
)

// murmurMixK scrambles one 4-byte block before it enters the state.
func murmurMixK(k uint32) uint32 {
	k *= murmurC1
	k = bits.RotateLeft32(k, 15)
	return k * murmurC2
}

// murmurMixH folds a scrambled block into the state.
func murmurMixH(h, k uint32) uint32 {
	h ^= k
	h = bits.RotateLeft32(h, 13)
	return h*5 + 0xe6546b64
}

// murmurFinal mixes in the length and avalanches the state.
func murmurFinal(h uint32, n int) uint32 {
	h ^= uint32(n)
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// hashBytes is Murmur3 x86 32 of b, seed 0.
func hashBytes(b []byte) uint32 {
	var h uint32
	n := len(b)
	for len(b) >= 4 {
		h = murmurMixH(h, murmurMixK(binary.LittleEndian.Uint32(b)))
		b = b[4:]
	}
	if len(b) > 0 {
		var k uint32
		for i := len(b) - 1; i >= 0; i-- {
			k = k<<8 | uint32(b[i])
		}
		h ^= murmurMixK(k)
	}
	return murmurFinal(h, n)
}

// hashString is hashBytes of s's bytes (its UTF-8), without copying s.
func hashString(s string) uint32 {
	var h uint32
	n := len(s)
	for len(s) >= 4 {
		k := uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
		h = murmurMixH(h, murmurMixK(k))
		s = s[4:]
	}
	if len(s) > 0 {
		var k uint32
		for i := len(s) - 1; i >= 0; i-- {
			k = k<<8 | uint32(s[i])
		}
		h ^= murmurMixK(k)
	}
	return murmurFinal(h, n)
}

// hashLong is hashBytes of v's 8 little-endian bytes: Iceberg's hash of an
// int, a long, a date (days) and a timestamp (micros). Two blocks, no
// allocation: it runs once per row of a bucketed column.
func hashLong(v int64) uint32 {
	u := uint64(v)
	h := murmurMixH(0, murmurMixK(uint32(u)))
	h = murmurMixH(h, murmurMixK(uint32(u>>32)))
	return murmurFinal(h, 8)
}

// bucketOf is the spec's (hash & Integer.MAX_VALUE) % n: the sign bit is
// dropped so the bucket is never negative.
func bucketOf(hash uint32, n int) int64 {
	return int64(hash&0x7fffffff) % int64(n)
}
