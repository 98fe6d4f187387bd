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

// benchBatch is n rows of 5 columns (ts, host, region, cpu, mem) from 100
// series, arriving in time order (one row per series per second), so the
// append has to sort them by series.
func benchBatch(b testing.TB, tb *table.Table, n int) *rows.Batch {
	s := tb.Schema()
	bt := &rows.Batch{Schema: s, Cols: make([]rows.Column, len(s.Fields)), Len: n}
	hosts := make([]string, 100)
	for i := range hosts {
		hosts[i] = fmt.Sprintf("host-%03d", i)
	}
	start := day1.Add(10 * time.Hour).UnixMicro()
	for i := range n {
		bt.Cols[0].Ints = append(bt.Cols[0].Ints, start+int64(i/100)*1e6)
		bt.Cols[1].Strs = append(bt.Cols[1].Strs, hosts[i%100])
		bt.Cols[2].Strs = append(bt.Cols[2].Strs, []string{"eu", "us", "ap", "sa"}[i%4])
		bt.Cols[3].Floats = append(bt.Cols[3].Floats, float64(i%1000)/10)
		bt.Cols[4].Ints = append(bt.Cols[4].Ints, int64(1<<30+i*4096))
		bt.Cols[5].Ints = append(bt.Cols[5].Ints, 0)
	}
	return bt
}

// BenchmarkAppend measures a whole append natively: sort, deduplicate, write
// Parquet, manifest, last-value index, manifest list and metadata, and commit
// to a memory store (the table is recreated outside the timer every 50
// appends so metadata does not grow without bound).
func BenchmarkAppend(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		for _, version := range []string{"2", "3"} {
			name := fmt.Sprintf("rows=%d", n)
			if version == "3" {
				name += "/format=3" // row lineage: the ids the manifest list assigns
			}
			b.Run(name, func(b *testing.B) { benchAppend(b, n, version) })
		}
	}
}

func benchAppend(b *testing.B, n int, version string) {
	{
		{
			ctx := context.Background()
			var st *memstore.Store
			var tb *table.Table
			fresh := func() {
				st = memstore.New()
				var err error
				if tb, err = table.Create(ctx, st, testenv.New(1), loc, metricsSchema(b), map[string]string{table.PropFormatVersion: version}); err != nil {
					b.Fatal(err)
				}
			}
			fresh()
			src := benchBatch(b, tb, n)
			var written int64
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if i%50 == 49 {
					b.StopTimer()
					fresh()
					b.StartTimer()
				}
				res, err := tb.Append(ctx, src)
				if err != nil {
					b.Fatal(err)
				}
				written += res.Bytes
			}
			b.ReportMetric(float64(written)/float64(b.N), "data-bytes/op")
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		}
	}
}
