package rows

import (
	"math"
	"testing"
)

// TestConvertFloat64s holds the bulk conversion to AppendFloat64, value by
// value, for every numeric column type and time unit: the same values, and
// the first refused index where AppendFloat64 first fails.
func TestConvertFloat64s(t *testing.T) {
	tt := testTable(t)
	vals := []float64{0, 1.5, -2, 42, 1 << 53, 1 << 54, 1e39, math.Inf(-1), math.NaN(), 1795946400000.4, 253402300800000, 3e9}
	for _, col := range []int{cTS, cCPU, cMem, cN, cF} {
		for u := Milliseconds; u <= Nanoseconds; u++ {
			for start := range vals {
				vs := vals[start:]
				b := NewBuilder(tt, Options{TimeUnit: u})
				wantBad := -1
				for i, v := range vs {
					if b.AppendFloat64(col, v) != nil {
						wantBad = i
						break
					}
				}
				ints, floats := make([]int64, len(vs)), make([]float64, len(vs))
				bad := ConvertFloat64s(tt.Fields[col].Type, u, vs, ints, floats)
				typ := tt.Fields[col].Type
				if bad != wantBad {
					t.Fatalf("%s unit %s %v: bad = %d, want %d", typ, u, vs, bad, wantBad)
				}
				c := b.batch.Cols[col]
				for i := range len(c.Ints) {
					if ints[i] != c.Ints[i] {
						t.Errorf("%s unit %s: ints[%d] = %d, want %d", typ, u, i, ints[i], c.Ints[i])
					}
				}
				for i := range len(c.Floats) {
					if floats[i] != c.Floats[i] && !(math.IsNaN(floats[i]) && math.IsNaN(c.Floats[i])) {
						t.Errorf("%s unit %s: floats[%d] = %v, want %v", typ, u, i, floats[i], c.Floats[i])
					}
				}
			}
		}
	}
	if got := ConvertFloat64s(tt.Fields[cOK].Type, 0, []float64{1}, nil, nil); got != 0 {
		t.Errorf("boolean column: bad = %d, want 0", got)
	}
}

func TestGrow(t *testing.T) {
	tt := testTable(t)
	b := NewBuilder(tt, Options{})
	b.Grow(100)
	for i, c := range b.batch.Cols {
		if got := cap(c.Ints) + cap(c.Floats) + cap(c.Bools) + cap(c.Strs); got < 100 {
			t.Errorf("column %d: capacity %d after Grow(100), want ≥ 100", i, got)
		}
	}
}
