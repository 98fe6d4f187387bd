package scan

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestCoalesceBounded: gaps join smallest first while the joined gap bytes
// stay within the ranges' own bytes and each gap within the tolerance.
func TestCoalesceBounded(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []ByteRange
		gap  int64
		want []ByteRange
	}{
		{"empty", nil, 100, nil},
		{"overlaps join whatever the budget", []ByteRange{{0, 10}, {5, 10}, {15, 5}}, 0, []ByteRange{{0, 20}}},
		// 30 bytes asked: the gaps 5 and 20 fit (25), the 40 does not.
		{"smallest gaps first, within the bytes asked", []ByteRange{{0, 10}, {15, 10}, {45, 10}, {95, 0}, {95, 1}}, 1000, []ByteRange{{0, 55}, {95, 1}}},
		{"a gap past the tolerance stays", []ByteRange{{0, 100}, {150, 100}}, 49, []ByteRange{{0, 100}, {150, 100}}},
		{"a gap the tolerance allows", []ByteRange{{0, 100}, {150, 100}}, 50, []ByteRange{{0, 250}}},
		{"far pages of a small read stay apart", []ByteRange{{1000, 200}, {9000, 150}, {30000, 180}}, 64 << 10, []ByteRange{{1000, 200}, {9000, 150}, {30000, 180}}},
	} {
		got := CoalesceBounded(tc.in, tc.gap)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: CoalesceBounded(%v, %d) = %v, want %v", tc.name, tc.in, tc.gap, got, tc.want)
		}
	}
}

// TestCoalesceBoundedRandom: the runs cover every range, do not overlap,
// and carry at most twice the bytes of the ranges' union.
func TestCoalesceBoundedRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for it := range 2000 {
		var in []ByteRange
		for range r.IntN(12) {
			in = append(in, ByteRange{Off: r.Int64N(10000), Len: r.Int64N(500)})
		}
		gap := r.Int64N(3000)
		got := CoalesceBounded(in, gap)
		var union, carried int64
		for _, u := range Coalesce(in, 0) {
			union += u.Len
		}
		for k, g := range got {
			carried += g.Len
			if k > 0 && g.Off <= got[k-1].End() {
				t.Fatalf("case %d: runs %v overlap or touch", it, got)
			}
		}
		if carried > 2*union {
			t.Fatalf("case %d: %v carry %d bytes for %d asked", it, got, carried, union)
		}
		if len(got) > len(Coalesce(in, 0)) {
			t.Fatalf("case %d: more runs than ranges", it)
		}
		for _, x := range in {
			if x.Len > 0 && !slices.ContainsFunc(got, func(g ByteRange) bool { return x.Off >= g.Off && x.End() <= g.End() }) {
				t.Fatalf("case %d: %v not covered by %v", it, x, got)
			}
		}
	}
}
