package rollup

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// TestFoldEqualsRecompute: random rows (nulls, NaN, ±Inf, ties) cut at a
// time: the rows before are aggregated and stored, the rows after folded
// into the stored rows (Seed); every key the later rows touch must come
// out as a recompute over all the rows gives it, bit for bit.
func TestFoldEqualsRecompute(t *testing.T) {
	in, out, d := allAggsFixture(t, "15m")
	total := 0
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 3))
		n := 1 + r.IntN(400)
		b := randomRows(r, in, n)
		cut := int64(r.IntN(3600)) * 1e6 // some buckets get rows on both sides
		var oldIdx, newIdx []int32
		for i, ts := range b.Cols[in.Time].Ints {
			if ts < cut {
				oldIdx = append(oldIdx, int32(i))
			} else {
				newIdx = append(newIdx, int32(i))
			}
		}
		stored := aggregate(t, in, out, d, rows.Take(b, oldIdx), nil)
		at := map[string]int{} // series key and bucket → row of stored
		for i := 0; i < stored.Len; i++ {
			at[foldKey(SeriesKey(SeriesValues(stored, i)), stored.Cols[out.Time].Ints[i])] = i
		}
		seeded := 0
		got := aggregate(t, in, out, d, rows.Take(b, newIdx), func(skey string, bucket int64) (*rows.Batch, int, bool) {
			i, ok := at[foldKey(skey, bucket)]
			if ok {
				seeded++
			}
			return stored, i, ok
		})
		// The recompute's rows of the keys the new rows touch.
		all := aggregate(t, in, out, d, b, nil)
		touched := map[string]bool{}
		for i := 0; i < got.Len; i++ {
			touched[foldKey(SeriesKey(SeriesValues(got, i)), got.Cols[out.Time].Ints[i])] = true
		}
		var keep []int32
		for i := 0; i < all.Len; i++ {
			if touched[foldKey(SeriesKey(SeriesValues(all, i)), all.Cols[out.Time].Ints[i])] {
				keep = append(keep, int32(i))
			}
		}
		want := rows.Take(all, keep)
		if g, w := render(got), render(want); !slices.Equal(g, w) {
			t.Fatalf("seed %d (cut %d, %d keys seeded):\n got %v\nwant %v", seed, cut, seeded, g, w)
		}
		total += seeded
	}
	if total < 40 {
		t.Fatalf("only %d keys folded into a stored row", total)
	}
}

func foldKey(skey string, bucket int64) string { return skey + "@" + strconv.FormatInt(bucket, 10) }

// allAggsFixture is a raw schema of every column type (series host and
// dc, nullable values) and rollup "r" of it (every; each aggregate its
// columns allow), with the rollup's schema.
func allAggsFixture(t *testing.T, every string) (in, out *schema.Table, d Def) {
	t.Helper()
	in, err := schema.New("ts", []string{"host", "dc"}, []schema.Field{
		{Name: "dc", Type: schema.Int},
		{Name: "cpu", Type: schema.Double},
		{Name: "mem", Type: schema.Long},
		{Name: "up", Type: schema.Boolean},
		{Name: "msg", Type: schema.String},
	}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	d, err = New("r", every, []string{"cpu:count,sum,min,max,first,last", "mem:count,sum,min,max,first,last", "up:min,max,first,last", "msg:count,min,max,first,last"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if out, err = Schema(in, d); err != nil {
		t.Fatal(err)
	}
	return in, out, d
}

func aggregate(t *testing.T, in, out *schema.Table, d Def, b *rows.Batch, seed SeedFunc) *rows.Batch {
	t.Helper()
	a, err := NewAggregator(in, out, d)
	if err != nil {
		t.Fatal(err)
	}
	a.Seed(seed)
	if err := a.Add(b); err != nil {
		t.Fatal(err)
	}
	res, err := a.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestFoldTombstoneAndLossy: a stored row_count 0 row starts the key from
// nothing; a fold whose float sum cancels the stored one is reported lossy.
func TestFoldTombstoneAndLossy(t *testing.T) {
	in, out, d := allAggsFixture(t, "15m")
	row := func(ts int64, cpu float64) *rows.Batch {
		b := rows.NewBuilder(in, rows.Options{TimeUnit: rows.Microseconds})
		for _, err := range []error{b.AppendInt64(0, ts), b.AppendString(1, "h"), b.AppendInt64(2, 1), b.AppendFloat64(3, cpu), b.EndRow()} {
			if err != nil {
				t.Fatal(err)
			}
		}
		return b.Batch()
	}
	a, err := NewAggregator(in, out, d)
	if err != nil {
		t.Fatal(err)
	}
	a.Tombstone([]any{"h", int64(1)}, 0)
	tomb, err := a.Finish()
	if err != nil {
		t.Fatal(err)
	}
	got := aggregate(t, in, out, d, row(60e6, 2.5), func(string, int64) (*rows.Batch, int, bool) { return tomb, 0, true })
	want := aggregate(t, in, out, d, row(60e6, 2.5), nil)
	if g, w := render(got), render(want); !slices.Equal(g, w) {
		t.Fatalf("after a tombstone:\n got %v\nwant %v", g, w)
	}

	for _, c := range []struct {
		old, add float64
		lossy    bool
	}{
		{1.5, 2, false},
		{1e300, -1e300, true}, // the stored sum hid a compensation the recompute keeps
		{1e6, -999_999.5, true},
		{1e6, -900_000, false},
		{math.Inf(1), -1, false},
		{math.NaN(), 1, false},
	} {
		stored := aggregate(t, in, out, d, row(60e6, c.old), nil)
		a, err := NewAggregator(in, out, d)
		if err != nil {
			t.Fatal(err)
		}
		a.Seed(func(string, int64) (*rows.Batch, int, bool) { return stored, 0, true })
		if err := a.Add(row(120e6, c.add)); err != nil {
			t.Fatal(err)
		}
		got, err := a.Finish()
		if err != nil {
			t.Fatal(err)
		}
		if l := a.FoldLossy(got, 0, stored, 0); l != c.lossy {
			t.Errorf("%v then %v: lossy %v, want %v", c.old, c.add, l, c.lossy)
		}
	}
}
