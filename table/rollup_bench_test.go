package table_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rollup"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// dayRows are n rows of 100 series spread over day1, starting at row off
// of the day's sequence (rows of one append interleave every series).
func dayRows(b testing.TB, tb *table.Table, off, n, total int) *rows.Batch {
	bl := rows.NewBuilder(tb.Schema(), rows.Options{TimeUnit: rows.Microseconds})
	step := int64(24*time.Hour/time.Microsecond) / int64(total/100)
	for i := off; i < off+n; i++ {
		ts := day1.UnixMicro() + int64(i/100)*step
		must := func(err error) {
			if err != nil {
				b.Fatal(err)
			}
		}
		must(bl.AppendInt64(0, ts))
		must(bl.AppendString(1, fmt.Sprintf("h%02d", i%100)))
		must(bl.AppendString(2, "eu"))
		must(bl.AppendFloat64(3, float64(i%977)/3))
		must(bl.AppendInt64(4, int64(i)))
		must(bl.EndRow())
	}
	return bl.Batch()
}

func hourly(b testing.TB) rollup.Def {
	d, err := rollup.New("hourly", "1h", []string{"cpu:min,max,avg,last", "mem:max"}, "")
	if err != nil {
		b.Fatal(err)
	}
	d.Location = loc + "__rollup_hourly"
	return d
}

// BenchmarkRollupRefresh: the refresh of an hourly rollup of 100 series
// (the rollup workloads, natively):
//   - catch-up: one day of 1.2M rows in 24 appends of 50k, refreshed from
//     the empty table's snapshot (every bucket of the day), beside a full
//     scan of the same day;
//   - inline: the refresh right after an append of 1k or 100k rows of
//     which the rollup has seen all but that append.
func BenchmarkRollupRefresh(b *testing.B) {
	ctx := context.Background()
	const total = 1_200_000
	raw, err := table.Create(ctx, memstore.New(), testenv.New(1), loc, metricsSchema(b), nil)
	if err != nil {
		b.Fatal(err)
	}
	d := hourly(b)
	newRollupIn := func(st *memstore.Store) *table.Table {
		ru, err := table.AddRollup(ctx, raw, st, d)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := table.DropRollup(ctx, raw, d.Name); err != nil {
			b.Fatal(err)
		}
		return ru
	}
	newRollup := func() *table.Table { return newRollupIn(memstore.New()) }
	// A rollup that reflects the table before the day (one row): the
	// catch-up then walks the day's 24 snapshots.
	if _, err := raw.Append(ctx, dayRows(b, raw, 0, 1, total)); err != nil {
		b.Fatal(err)
	}
	baseStore := memstore.New()
	base := newRollupIn(baseStore)
	if _, err := table.RefreshRollup(ctx, raw, base, d, table.RefreshOptions{}); err != nil {
		b.Fatal(err)
	}
	for i := range 24 {
		if _, err := raw.Append(ctx, dayRows(b, raw, i*total/24, total/24, total)); err != nil {
			b.Fatal(err)
		}
	}
	report := func(b *testing.B, res *table.RefreshResult) {
		b.ReportMetric(float64(res.Rows), "buckets/op")
		b.ReportMetric(float64(res.BytesRead), "bytes-read/op")
	}
	b.Run("catch-up day incremental", func(b *testing.B) {
		var res *table.RefreshResult
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			ru, err := table.Open(ctx, cloneStore(b, baseStore), testenv.New(2))
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if res, err = table.RefreshRollup(ctx, raw, ru, d, table.RefreshOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		// incremental: the day's 24 snapshots walked; by-sequence: the
		// reflected snapshot left the bounded history first.
		if !(res.Mode == "incremental" && res.Snapshots == 24 || res.Mode == "by-sequence") {
			b.Fatalf("%+v", res)
		}
		report(b, res)
	})
	b.Run("catch-up day full", func(b *testing.B) {
		var res *table.RefreshResult
		for b.Loop() {
			b.StopTimer()
			ru := newRollup()
			b.StartTimer()
			if res, err = table.RefreshRollup(ctx, raw, ru, d, table.RefreshOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		report(b, res)
	})
	b.Run("full scan of the day", func(b *testing.B) {
		for b.Loop() {
			if _, err := raw.Scan(ctx, table.ScanOptions{Columns: []string{"cpu", "mem"}}, func(*rows.Batch) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, n := range []int{1000, 100_000} {
		b.Run(fmt.Sprintf("inline after %d rows", n), func(b *testing.B) {
			ru := newRollup()
			if _, err := table.RefreshRollup(ctx, raw, ru, d, table.RefreshOptions{}); err != nil {
				b.Fatal(err)
			}
			var res *table.RefreshResult
			k := 0
			for b.Loop() {
				b.StopTimer()
				// New rows for the day's last hour and a few earlier ones.
				if _, err := raw.Append(ctx, dayRows(b, raw, total-n-k%5000, n, total)); err != nil {
					b.Fatal(err)
				}
				k++
				b.StartTimer()
				if res, err = table.RefreshRollup(ctx, raw, ru, d, table.RefreshOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			report(b, res)
		})
	}
}
