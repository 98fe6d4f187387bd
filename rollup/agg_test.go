package rollup

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// TestAggregatorBruteForce: random rows (nulls, NaN, ±Inf, repeated
// values), sorted by (series, time) and handed over in batches cut at
// random places (a key's rows spanning batches), against each bucket's
// aggregates computed row by row.
func TestAggregatorBruteForce(t *testing.T) {
	in, out, d := allAggsFixture(t, "5m")
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 1))
		n := 1 + r.IntN(400)
		b := randomRows(r, in, n)
		agg, err := NewAggregator(in, out, d)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; {
			j := min(n, i+1+r.IntN(50))
			if err := agg.Add(rows.Slice(b, i, j)); err != nil {
				t.Fatal(err)
			}
			i = j
		}
		got, err := agg.Finish()
		if err != nil {
			t.Fatal(err)
		}
		want := bruteForce(b, out, d)
		if g, w := render(got), render(want); !slices.Equal(g, w) {
			t.Fatalf("seed %d: %d rows:\n got %v\nwant %v", seed, n, g, w)
		}
	}
}

// rowKey is the key of a row of allAggsFixture's raw schema.
type rowKey struct {
	host   string
	dc, ts int64
}

// distinctKeys draws keys from next until it has n distinct ones, and
// sorts them by (host, dc, ts): the order of a table's rows.
func distinctKeys(n int, next func() rowKey) []rowKey {
	seen := map[rowKey]bool{}
	var keys []rowKey
	for len(keys) < n {
		if k := next(); !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b rowKey) int {
		switch {
		case a.host != b.host:
			return cmpString(a.host, b.host)
		case a.dc != b.dc:
			return cmpInt(a.dc, b.dc)
		}
		return cmpInt(a.ts, b.ts)
	})
	return keys
}

func randomRows(r *rand.Rand, in *schema.Table, n int) *rows.Batch {
	b := rows.NewBuilder(in, rows.Options{TimeUnit: rows.Microseconds})
	keys := distinctKeys(n, func() rowKey {
		return rowKey{fmt.Sprintf("h%d", r.IntN(3)), int64(r.IntN(2)), int64(r.IntN(3600)) * 1e6}
	})
	floats := []float64{1.5, -2, 0, math.NaN(), math.Inf(1), math.Inf(-1), 1e300, 3.25}
	for _, k := range keys {
		must := func(err error) {
			if err != nil {
				panic(err)
			}
		}
		must(b.AppendInt64(0, k.ts))
		must(b.AppendString(1, k.host))
		must(b.AppendInt64(2, k.dc))
		if r.IntN(4) > 0 {
			must(b.AppendFloat64(3, floats[r.IntN(len(floats))]))
		}
		if r.IntN(4) > 0 {
			must(b.AppendInt64(4, r.Int64N(1000)-500))
		}
		if r.IntN(4) > 0 {
			must(b.AppendBool(5, r.IntN(2) == 0))
		}
		if r.IntN(4) > 0 {
			must(b.AppendString(6, fmt.Sprintf("m%d", r.IntN(20))))
		}
		must(b.EndRow())
	}
	return b.Batch()
}

// bruteForce aggregates b bucket by bucket, one row at a time, by the
// rules of package rollup's doc (SQL's, as DuckDB applies them).
func bruteForce(b *rows.Batch, out *schema.Table, d Def) *rows.Batch {
	in := b.Schema
	cols, _ := Columns(in, d)
	a, _ := NewAggregator(in, out, d) // its emit only: the output rows
	res := a.res
	ts := b.Cols[in.Time].Ints
	for i := 0; i < b.Len; {
		bk := Bucket(ts[i], d.Width)
		j := i
		for j < b.Len && Bucket(ts[j], d.Width) == bk && SeriesKey(SeriesValues(b, j)) == SeriesKey(SeriesValues(b, i)) {
			j++
		}
		st := make([]state, len(cols))
		for k, c := range cols {
			col := &b.Cols[in.Index(c.Source)]
			s := &st[k]
			s.rows = int64(j - i)
			s.first, s.last = valueAt(col, c.SourceType, i), valueAt(col, c.SourceType, j-1)
			for x := i; x < j; x++ {
				if col.IsNull(x) {
					continue
				}
				v := valueAt(col, c.SourceType, x)
				s.n++
				switch {
				case c.SourceType.IsFloat():
					s.sumF += v.f
				default:
					s.sumI += v.i
				}
				if s.n == 1 || (c.Func == Min && less(c.SourceType, v, s.ext)) || (c.Func == Max && less(c.SourceType, s.ext, v)) {
					s.ext = v
				}
			}
		}
		a.emit(SeriesValues(b, i), bk, int64(j-i), st)
		i = j
	}
	return res
}

// render prints every row, floats by their bits (NaN = NaN).
func render(b *rows.Batch) []string {
	var out []string
	for i := 0; i < b.Len; i++ {
		s := ""
		for c, f := range b.Schema.Fields {
			col := &b.Cols[c]
			switch {
			case col.IsNull(i):
				s += "null "
			case f.Type.IsInteger():
				s += fmt.Sprint(col.Ints[i], " ")
			case f.Type.IsFloat():
				s += fmt.Sprintf("%x ", math.Float64bits(col.Floats[i]))
			case f.Type == schema.Boolean:
				s += fmt.Sprint(col.Bools[i], " ")
			default:
				s += col.Strs[i] + " "
			}
		}
		out = append(out, s)
	}
	return out
}
