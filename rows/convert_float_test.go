package rows

import (
	"math"
	"testing"

	"github.com/timelake/timelake/schema"
)

// floatEdges are numbers at the edges of every conversion: halves (rounding
// away from zero), fractions, ±2^53, int32 bounds, the time range's ends in
// each unit, NaN, ±Inf and -0.
var floatEdges = []float64{
	0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 1.5, -1.5, 2.5, 0.49999999999999994, -0.49999999999999994,
	1700000000.123456, 1795946400000, 1795946400000.4, 1795946400000.5, -1795946400000.5,
	1 << 53, -(1 << 53), 1<<53 + 2, -(1<<53 + 2), 1 << 52, 1<<52 + 1, 4503599627370495.5,
	math.MaxInt32, math.MinInt32, math.MaxInt32 + 1, math.MinInt32 - 1, 3e14, 1e39,
	-62135596800, -62135596801, 253402300799, 253402300800, -62135596800000, 253402300799999, 253402300800000,
	-62135596800000000, 253402300799999999, 253402300800000000, -62135596800000000000, 253402300799999999999,
	math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64, math.SmallestNonzeroFloat64,
}

// TestConvertFloat64sAsBuilder holds the column-at-a-time conversion to
// Builder.AppendFloat64, value by value, for every numeric type and unit.
func TestConvertFloat64sAsBuilder(t *testing.T) {
	tab := testTable(t)
	for _, u := range []TimeUnit{Milliseconds, Seconds, Microseconds, Nanoseconds} {
		for _, col := range []int{cTS, cCPU, cMem, cN, cF} {
			typ := tab.Fields[col].Type
			for k, v := range floatEdges {
				ints, floats := make([]int64, 1), make([]float64, 1)
				bad := ConvertFloat64s(typ, u, []float64{v}, ints, floats)
				b := NewBuilder(tab, Options{TimeUnit: u})
				err := b.AppendFloat64(col, v)
				if (bad >= 0) != (err != nil) {
					t.Fatalf("%s unit %s value %d (%v): ConvertFloat64s refused %v, AppendFloat64 error %v", typ, u, k, v, bad >= 0, err)
				}
				if err != nil {
					continue
				}
				c := &b.batch.Cols[col]
				switch {
				case typ.IsInteger() && ints[0] != c.Ints[0]:
					t.Fatalf("%s unit %s value %d (%v): ConvertFloat64s %d, AppendFloat64 %d", typ, u, k, v, ints[0], c.Ints[0])
				case typ.IsFloat() && math.Float64bits(floats[0]) != math.Float64bits(c.Floats[0]):
					t.Fatalf("%s unit %s value %d (%v): ConvertFloat64s %v, AppendFloat64 %v", typ, u, k, v, floats[0], c.Floats[0])
				}
			}
		}
	}
}

// TestRoundMicros holds roundMicros's rounding to math.Round.
func TestRoundMicros(t *testing.T) {
	for _, v := range floatEdges {
		for _, x := range []float64{v, v * 1000, v * 1e6, v / 1000, math.Nextafter(v, 0), math.Nextafter(v, math.Inf(1))} {
			r := math.Round(x)
			want := r >= float64(schema.MinMicros) && r <= float64(schema.MaxMicros) &&
				int64(r) >= schema.MinMicros && int64(r) <= schema.MaxMicros
			n, ok := roundMicros(x)
			if ok != want || ok && n != int64(r) {
				t.Errorf("roundMicros(%v) = %d, %v; math.Round gives %v", x, n, ok, r)
			}
		}
	}
}
