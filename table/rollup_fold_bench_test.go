package table_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// BenchmarkRollupFold: the inline refresh natively, as the workerd
// bench runs it: batches of n rows (100 series, one row a second each,
// each batch later than the one before) appended to a table whose hourly
// rollup reflects the batch before; beside the append, the refresh by the
// appending Table (a fold) and the same refresh by it with the appended
// rows forgotten (the recompute, what every refresh did before the fold).
func BenchmarkRollupFold(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{1000, 100_000} {
		st := memstore.New()
		raw, err := table.Create(ctx, st, testenv.New(1), loc, metricsSchema(b), nil)
		if err != nil {
			b.Fatal(err)
		}
		d := hourly(b)
		ru, err := table.AddRollup(ctx, raw, memstore.New(), d)
		if err != nil {
			b.Fatal(err)
		}
		k := 0
		next := func() *rows.Batch { k++; return forwardRows(b, raw, k, n) }
		refresh := func(mode string) {
			res, err := table.RefreshRollup(ctx, raw, ru, d, table.RefreshOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if mode != "" && res.Mode != mode {
				b.Fatalf("refresh: %+v, want mode %s", res, mode)
			}
		}
		if _, err := raw.Append(ctx, next()); err != nil {
			b.Fatal(err)
		}
		refresh("")
		b.Run(fmt.Sprintf("append %d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := raw.Append(ctx, next()); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				refresh("fold")
				b.StartTimer()
			}
		})
		for _, c := range []struct {
			name, mode string
			forget     bool
		}{{"fold", "fold", false}, {"recompute", "incremental", true}} {
			b.Run(fmt.Sprintf("inline refresh after %d (%s)", n, c.name), func(b *testing.B) {
				for b.Loop() {
					b.StopTimer()
					if _, err := raw.Append(ctx, next()); err != nil {
						b.Fatal(err)
					}
					if c.forget {
						table.ForgetAppend(raw)
					}
					b.StartTimer()
					refresh(c.mode)
				}
			})
		}
	}
}

// forwardRows is batch k of n rows: 100 series, one row a second each,
// from 10:00 on day1 + k·n/100 s (each batch after the one before).
func forwardRows(b testing.TB, tb *table.Table, k, n int) *rows.Batch {
	bl := rows.NewBuilder(tb.Schema(), rows.Options{TimeUnit: rows.Microseconds})
	start := day1.Add(10*time.Hour).UnixMicro() + int64(k*n/100)*1e6
	for i := range n {
		must := func(err error) {
			if err != nil {
				b.Fatal(err)
			}
		}
		must(bl.AppendInt64(0, start+int64(i/100)*1e6))
		must(bl.AppendString(1, fmt.Sprintf("h%02d", i%100)))
		must(bl.AppendString(2, "eu"))
		must(bl.AppendFloat64(3, float64(i%1000)/10))
		must(bl.AppendInt64(4, 1<<30+int64(i)*4096))
		must(bl.EndRow())
	}
	return bl.Batch()
}
