package parquet

import (
	"bytes"
	"slices"
	"testing"
)

// diffRand is a xorshift generator: the inputs below are reproducible.
type diffRand uint64

func (r *diffRand) next() uint64 {
	x := uint64(*r)
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	*r = diffRand(x)
	return x
}

// diffInts makes n values of a kind the codecs meet: sorted timestamps,
// wandering gauges, constants, runs, extremes.
func diffInts(r *diffRand, n int, kind int) []int64 {
	out := make([]int64, n)
	acc := int64(r.next())
	for i := range out {
		switch kind % 5 {
		case 0:
			acc += int64(r.next() % 20_000_000)
		case 1:
			acc = 8<<30 + int64(r.next()%(1<<24))
		case 2:
			// constant
		case 3:
			if r.next()%16 == 0 {
				acc = int64(r.next() >> (r.next() % 64))
			}
		case 4:
			acc = int64(r.next())
		}
		out[i] = acc
	}
	return out
}

// TestCodecsMatchReference: the tuned encoders write the bytes the plain
// reference loops write, and the decoders read back what the reference
// decoders read, also from truncated and damaged encodings.
func TestCodecsMatchReference(t *testing.T) {
	r := diffRand(0x9E3779B97F4A7C15)
	lengths := []int{0, 1, 2, 7, 8, 9, 31, 32, 33, 127, 128, 129, 200, 511, 1000, 8192}
	for _, n := range lengths {
		for w := uint(0); w <= 64; w++ {
			vals := make([]uint64, n)
			for i := range vals {
				vals[i] = r.next()
				if w < 64 {
					vals[i] &= 1<<w - 1
				}
			}
			got, want := pack64([]byte{0xAA}, vals, w), refPack64([]byte{0xAA}, vals, w)
			if !bytes.Equal(got, want) {
				t.Fatalf("pack64 n=%d w=%d differs", n, w)
			}
			for _, cut := range []int{0, 1, 9} {
				src := want[1:max(1, len(want)-cut)]
				m := min(n, len(src)*8/max(int(w), 1))
				g, e := make([]uint64, m), make([]uint64, m)
				unpack64(g, src, w)
				refUnpack64(e, src, w)
				if !slices.Equal(g, e) {
					t.Fatalf("unpack64 n=%d w=%d cut=%d differs", n, w, cut)
				}
			}
		}
		for w := uint(0); w <= 32; w++ {
			for kind := range 3 {
				vals := make([]uint32, n)
				for i := range vals {
					switch {
					case kind == 1 && i > 0 && r.next()%8 != 0:
						vals[i] = vals[i-1] // runs
					case kind == 2:
						vals[i] = uint32(i / 100) // sorted dictionary indexes
					default:
						vals[i] = uint32(r.next())
					}
					if w < 32 {
						vals[i] &= 1<<w - 1
					}
				}
				got := appendHybrid([]byte{7}, vals, w)
				want, _ := refAppendHybrid([]byte{7}, vals, w, nil)
				if !bytes.Equal(got, want) {
					t.Fatalf("appendHybrid n=%d w=%d kind=%d differs", n, w, kind)
				}
				checkHybridDecode(t, want[1:], n, w)
			}
		}
		for kind := range 5 {
			vals := diffInts(&r, n, kind)
			for _, is32 := range []bool{false, true} {
				var s1, s2 deltaScratch
				got := appendDelta([]byte{1, 2}, vals, is32, &s1)
				want := refAppendDelta([]byte{1, 2}, vals, is32, &s2)
				if !bytes.Equal(got, want) {
					t.Fatalf("appendDelta n=%d kind=%d is32=%v differs", n, kind, is32)
				}
				checkDeltaDecode(t, want[2:], n, is32)
			}
		}
	}
}

// checkHybridDecode compares decodeHybrid with the reference on enc and on
// truncated and damaged copies of it.
func checkHybridDecode(t *testing.T, enc []byte, n int, w uint) {
	t.Helper()
	variants := [][]byte{enc}
	if len(enc) > 0 {
		variants = append(variants, enc[:len(enc)-1], enc[:len(enc)/2])
		damaged := slices.Clone(enc)
		damaged[len(damaged)/3] ^= 0x5A
		variants = append(variants, damaged)
	}
	for i, src := range variants {
		got, want := make([]uint32, n), make([]uint32, n)
		gerr, werr := decodeHybrid(got, src, w), refDecodeHybrid(want, src, w)
		if (gerr == nil) != (werr == nil) || (werr == nil && !slices.Equal(got, want)) {
			t.Fatalf("decodeHybrid n=%d w=%d variant %d: got %v, want %v", n, w, i, gerr, werr)
		}
		checkLookupHybrid(t, src, n, w, want, werr == nil)
	}
}

// checkLookupHybrid compares lookupHybrid on src with looking the reference
// decoding idx (ok when it decoded) up, in dictionaries of every index and
// of half of them (out-of-range indexes are an error), after a prefix that
// must come back as it was.
func checkLookupHybrid(t *testing.T, src []byte, n int, w uint, idx []uint32, ok bool) {
	t.Helper()
	top := uint32(0)
	for _, i := range idx {
		top = max(top, i)
	}
	if top >= 1<<16 {
		return // dictionaries are smaller than that
	}
	for _, size := range []int{int(top) + 1, int(top+1) / 2} {
		dict := make([]int64, size)
		for i := range dict {
			dict[i] = int64(i)*7 - 3
		}
		want := []int64{-1}
		okHere := ok
		for _, i := range idx {
			if int(i) >= size {
				okHere = false
				break
			}
			want = append(want, dict[i])
		}
		var scratch []uint32
		got, err := lookupHybrid([]int64{-1}, dict, src, w, n, &scratch)
		if (err == nil) != okHere || (okHere && !slices.Equal(got, want)) || (!okHere && !slices.Equal(got, []int64{-1})) {
			t.Fatalf("lookupHybrid n=%d w=%d dictionary of %d: got %v (%v), want %v (ok %v)", n, w, size, got, err, want, okHere)
		}
	}
}

// checkDeltaDecode is checkHybridDecode for decodeDelta.
func checkDeltaDecode(t *testing.T, enc []byte, n int, is32 bool) {
	t.Helper()
	variants := [][]byte{enc}
	if len(enc) > 0 {
		variants = append(variants, enc[:len(enc)-1], enc[:len(enc)/2])
		damaged := slices.Clone(enc)
		damaged[len(damaged)*2/3] ^= 0x5A
		variants = append(variants, damaged)
	}
	for i, src := range variants {
		prefix := []int64{-5}
		got, gused, gerr := decodeDelta(slices.Clone(prefix), src, n, is32)
		want, wused, werr := refDecodeDelta(slices.Clone(prefix), src, n, is32)
		if (gerr == nil) != (werr == nil) || (werr == nil && (!slices.Equal(got, want) || gused != wused)) {
			t.Fatalf("decodeDelta n=%d is32=%v variant %d: got %v (%d bytes), want %v (%d bytes)", n, is32, i, gerr, gused, werr, wused)
		}
	}
}
