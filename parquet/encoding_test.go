package parquet

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"testing"
)

func TestDeltaRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		vals []int64
		is32 bool
	}{
		{"empty", nil, false},
		{"one", []int64{42}, false},
		{"constant", slices.Repeat([]int64{7}, 300), false},
		{"ascending", seq(1000, func(i int) int64 { return 1_700_000_000_000_000 + int64(i)*10_000_000 }), false},
		{"extremes wrap", []int64{math.MinInt64, math.MaxInt64, math.MinInt64, 0, math.MaxInt64, -1, math.MinInt64}, false},
		{"extremes block", seq(300, func(i int) int64 {
			if i%2 == 0 {
				return math.MaxInt64
			}
			return math.MinInt64
		}), false},
		{"block edge 129", seq(129, func(i int) int64 { return int64(i * i) }), false},
		{"int32 extremes", []int64{math.MinInt32, math.MaxInt32, math.MinInt32, 0, -1, math.MaxInt32}, true},
		{"int32 many", seq(1000, func(i int) int64 { return int64(int32(uint32(i) * 2654435761)) }), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s deltaScratch
			enc := appendDelta(nil, tc.vals, tc.is32, &s)
			enc = append(enc, 0xAB) // trailing bytes are not consumed
			got, used, err := decodeDelta(nil, enc, len(tc.vals), tc.is32)
			if err != nil {
				t.Fatal(err)
			}
			if used != len(enc)-1 {
				t.Errorf("used %d bytes, want %d", used, len(enc)-1)
			}
			if !slices.Equal(got, tc.vals) && !(len(got) == 0 && len(tc.vals) == 0) {
				t.Errorf("got %v, want %v", got, tc.vals)
			}
			if tc.is32 {
				// INT32 readers require widths <= 32
				for _, w := range miniblockWidths(enc) {
					if w > 32 {
						t.Errorf("miniblock width %d over 32 in an INT32 column", w)
					}
				}
			}
		})
	}
}

// miniblockWidths lists the bit widths in a DELTA_BINARY_PACKED run written
// by appendDelta.
func miniblockWidths(b []byte) []int {
	pos := 0
	next := func() uint64 { v, k := binary.Uvarint(b[pos:]); pos += k; return v }
	next()
	next()
	total := next()
	next()
	var out []int
	for got := uint64(1); got < total; got += deltaBlock {
		next()
		ws := b[pos : pos+deltaMiniCount]
		pos += deltaMiniCount
		for m, w := range ws {
			out = append(out, int(w))
			if got+uint64(m*deltaMini) < total {
				pos += deltaMini * int(w) / 8
			}
		}
	}
	return out
}

func seq(n int, f func(int) int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

func TestHybridRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		vals []uint32
		w    uint
	}{
		{"levels all ones", slices.Repeat([]uint32{1}, 8192), 1},
		{"levels mixed", seq32(1000, func(i int) uint32 { return uint32(i % 7 % 2) }), 1},
		{"width 0", make([]uint32, 100), 0},
		{"short tail", []uint32{1, 0, 1}, 1},
		{"runs and noise", seq32(2000, func(i int) uint32 {
			if i%100 < 50 {
				return 5
			}
			return uint32(i*31) % 13
		}), 4},
		{"wide", seq32(600, func(i int) uint32 { return uint32(i) * 2654435761 }), 32},
		{"long bit-packed", seq32(5000, func(i int) uint32 { return uint32(i % 3) }), 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			enc := appendHybrid(nil, tc.vals, tc.w)
			got := make([]uint32, len(tc.vals))
			if err := decodeHybrid(got, enc, tc.w); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.vals) {
				t.Errorf("round trip differs")
			}
		})
	}
	// all ones at width 1 is one RLE run: a few bytes
	if enc := appendHybrid(nil, slices.Repeat([]uint32{1}, 8192), 1); len(enc) > 4 {
		t.Errorf("8192 equal levels take %d bytes, want one RLE run", len(enc))
	}
}

func seq32(n int, f func(int) uint32) []uint32 {
	out := make([]uint32, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

func TestPackUnpack(t *testing.T) {
	for w := uint(0); w <= 64; w++ {
		vals := make([]uint64, 32)
		for i := range vals {
			v := uint64(i)*0x9E3779B97F4A7C15 + 1
			if w < 64 {
				v &= 1<<w - 1
			}
			vals[i] = v
		}
		enc := pack64(nil, vals, w)
		if len(enc) != int(4*w) {
			t.Fatalf("width %d: %d bytes, want %d", w, len(enc), 4*w)
		}
		got := make([]uint64, 32)
		unpack64(got, enc, w)
		if !slices.Equal(got, vals) {
			t.Fatalf("width %d: round trip differs", w)
		}
	}
}

// FuzzDelta round-trips DELTA_BINARY_PACKED on values made from the input
// (extremes included: deltas overflow and must wrap), encoding as the
// reference does, and decodes the raw input as the reference decodes it.
func FuzzDelta(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0x80, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, false)
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, true)
	var s deltaScratch
	f.Add(appendDelta(nil, seq(200, func(i int) int64 { return int64(i) * 1000 }), false, &s), false)
	f.Fuzz(func(t *testing.T, b []byte, is32 bool) {
		// 1. arbitrary bytes as an encoding, read as the reference reads them
		checkDeltaDecode(t, b, len(b)%300, is32)
		// 2. round trip
		vals := make([]int64, 0, len(b)/8*3)
		for i := 0; i+8 <= len(b); i += 8 {
			v := int64(binary.LittleEndian.Uint64(b[i:]))
			switch b[i] % 4 {
			case 1:
				v = math.MaxInt64
			case 2:
				v = math.MinInt64
			}
			w := -v
			if is32 {
				v, w = int64(int32(v)), int64(int32(w))
			}
			vals = append(vals, v, v, w)
		}
		var s deltaScratch
		enc := appendDelta(nil, vals, is32, &s)
		if ref := refAppendDelta(nil, vals, is32, &s); !bytes.Equal(enc, ref) {
			t.Fatalf("encoding differs from the reference's")
		}
		got, used, err := decodeDelta(nil, enc, len(vals), is32)
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		if used != len(enc) {
			t.Fatalf("used %d of %d bytes", used, len(enc))
		}
		if len(vals) > 0 && !slices.Equal(got, vals) {
			t.Fatalf("got %v, want %v", got, vals)
		}
	})
}

// FuzzHybrid round-trips the RLE/bit-packed hybrid, encoding as the
// reference does, and decodes raw input as the reference decodes it.
func FuzzHybrid(f *testing.F) {
	f.Add([]byte{1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0}, uint8(1))
	f.Add([]byte{3, 0xff, 7, 9}, uint8(8))
	f.Fuzz(func(t *testing.T, b []byte, w uint8) {
		width := uint(w % 33)
		checkHybridDecode(t, b, len(b)%500, width)
		vals := make([]uint32, len(b))
		for i, x := range b {
			v := uint32(x) * 0x01010101
			if x%3 == 0 && i > 0 {
				v = vals[i-1]
			}
			if width < 32 {
				v &= 1<<width - 1
			}
			vals[i] = v
		}
		enc := appendHybrid(nil, vals, width)
		if ref, _ := refAppendHybrid(nil, vals, width, nil); !bytes.Equal(enc, ref) {
			t.Fatalf("encoding differs from the reference's at width %d", width)
		}
		got := make([]uint32, len(vals))
		if err := decodeHybrid(got, enc, width); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, vals) {
			t.Fatalf("round trip differs at width %d", width)
		}
	})
}
