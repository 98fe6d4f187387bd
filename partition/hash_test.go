package partition

import (
	"math"
	"testing"
)

// TestAppendixBHashes checks the hash against every test value of the
// Iceberg spec's Appendix B ("32-bit Hash Requirements"), as Iceberg's
// signed 32-bit ints; the types schema does not hold yet are hashed through
// the byte form the appendix gives them.
func TestAppendixBHashes(t *testing.T) {
	const ts = 1510871468000000 // 2017-11-16T22:31:08Z in microseconds
	for _, c := range []struct {
		name string
		got  uint32
		want int32
	}{
		{"int 34", hashLong(34), 2017239379},
		{"long 34L", hashLong(34), 2017239379},
		{"date 2017-11-16", hashLong(17486), -653330422},
		{"time 22:31:08", hashLong(81068000000), -662762989},
		{"timestamp 2017-11-16T22:31:08", hashLong(ts), -2047944441},
		{"timestamp 2017-11-16T22:31:08.000001", hashLong(ts + 1), -1207196810},
		{"string iceberg", hashString("iceberg"), 1210000089},
		{"string iceberg (bytes)", hashBytes([]byte("iceberg")), 1210000089},
		{"decimal 14.20 (unscaled 1420, min big-endian 05 8c)", hashBytes([]byte{0x05, 0x8c}), -500754589},
		{"uuid f79c3e09-677c-4bbd-a479-3f349cb785e7", hashBytes([]byte{
			0xF7, 0x9C, 0x3E, 0x09, 0x67, 0x7C, 0x4B, 0xBD, 0xA4, 0x79, 0x3F, 0x34, 0x9C, 0xB7, 0x85, 0xE7}), 1488055340},
		{"fixed/binary 00 01 02 03", hashBytes([]byte{0, 1, 2, 3}), -188683207},
		{"boolean true (not bucketable)", hashLong(1), 1392991556},
		{"double 1.0 (not bucketable)", hashLong(int64(math.Float64bits(1.0))), -142385009},
		{"double 0.0 (not bucketable)", hashLong(0), 1669671676},
	} {
		if int32(c.got) != c.want {
			t.Errorf("%s: hash %d, want %d", c.name, int32(c.got), c.want)
		}
	}
}

// TestBucketNanosHashAsMicros: Appendix B's timestamp_ns rows hash a
// nanosecond time as its microseconds, so a precision change keeps buckets.
func TestBucketNanosHashAsMicros(t *testing.T) {
	const ns = 1510871468000001001 // 2017-11-16T22:31:08.000001001
	b := Transform{Kind: Bucket, N: math.MaxInt32}
	got, _ := b.applyInt(clsNanos, ns)
	appendixB := int32(-1207196810) // the hash of 2017-11-16T22:31:08.000001001
	if want := bucketOf(uint32(appendixB), math.MaxInt32); got != want {
		t.Errorf("bucket of %d ns = %d, want %d", ns, got, want)
	}
	// Before the epoch the microsecond is the floor: -1 ns is -1 µs.
	got, _ = b.applyInt(clsNanos, -1)
	if want := bucketOf(hashLong(-1), math.MaxInt32); got != want {
		t.Errorf("bucket of -1 ns = %d, want %d (that of -1 µs)", got, want)
	}
}

// TestHashTails covers every tail length of the byte hash (0..3 bytes after
// the 4-byte blocks), comparing the string and byte forms; the values are
// Murmur3 x86 32 seed 0 of "", "a", "ab", "abc", "abcd" and "abcde".
func TestHashTails(t *testing.T) {
	for s, want := range map[string]uint32{
		"": 0, "a": 0x3c2569b2, "ab": 0x9bbfd75f, "abc": 0xb3dd93fa, "abcd": 0x43ed676a, "abcde": 0xe89b9af6,
	} {
		if got := hashString(s); got != want {
			t.Errorf("hashString(%q) = %#x, want %#x", s, got, want)
		}
		if got := hashBytes([]byte(s)); got != want {
			t.Errorf("hashBytes(%q) = %#x, want %#x", s, got, want)
		}
	}
}
