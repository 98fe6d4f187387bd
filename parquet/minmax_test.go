package parquet

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMinMax holds minMaxInts and minMaxFloats to the builtin min and max
// (NaN skipped and counted; -0 below +0) on values drawn from edge cases.
func TestMinMax(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	floats := []float64{0, math.Copysign(0, -1), 1, -1, math.NaN(), math.Inf(1), math.Inf(-1), 2.5, -2.5, math.MaxFloat64}
	ints := []int64{0, -1, 1, math.MinInt64, math.MaxInt64, 42, -42}
	for trial := range 2000 {
		n := r.IntN(12)
		fs, is := make([]float64, n), make([]int64, n)
		for i := range n {
			fs[i], is[i] = floats[r.IntN(len(floats))], ints[r.IntN(len(ints))]
		}
		lo0, hi0 := floats[r.IntN(len(floats))], floats[r.IntN(len(floats))]
		if lo0 != lo0 || hi0 != hi0 {
			lo0, hi0 = 0, 0
		}
		wantLo, wantHi, wantNaNs := lo0, hi0, 0
		for _, v := range fs {
			if v != v {
				wantNaNs++
				continue
			}
			wantLo, wantHi = min(wantLo, v), max(wantHi, v)
		}
		lo, hi, nans := minMaxFloats(fs, lo0, hi0)
		if math.Float64bits(lo) != math.Float64bits(wantLo) || math.Float64bits(hi) != math.Float64bits(wantHi) || nans != wantNaNs {
			t.Fatalf("trial %d: minMaxFloats(%v, %v, %v) = %v, %v, %d; want %v, %v, %d", trial, fs, lo0, hi0, lo, hi, nans, wantLo, wantHi, wantNaNs)
		}
		ilo0, ihi0 := ints[r.IntN(len(ints))], ints[r.IntN(len(ints))]
		wantILo, wantIHi := ilo0, ihi0
		for _, v := range is {
			wantILo, wantIHi = min(wantILo, v), max(wantIHi, v)
		}
		if ilo, ihi := minMaxInts(is, ilo0, ihi0); ilo != wantILo || ihi != wantIHi {
			t.Fatalf("trial %d: minMaxInts(%v, %d, %d) = %d, %d; want %d, %d", trial, is, ilo0, ihi0, ilo, ihi, wantILo, wantIHi)
		}
	}
}
