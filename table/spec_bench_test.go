package table_test

import (
	"context"
	"testing"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// BenchmarkAppendSpec: 100,000 rows (100 hosts, one day) appended to a
// table of Timelake's own spec (day) and of other engines' shapes (day and
// bucket of the series, the series itself, unpartitioned). The ratio of
// each to "day" is what an append to another engine's table costs more.
//
//	go test ./table -run '^$' -bench BenchmarkAppendSpec -benchtime 20x
func BenchmarkAppendSpec(b *testing.B) {
	for _, c := range []struct {
		name, spec string
		days       int // the rows spread over this many days (1: one day)
	}{
		{"day", "day", 1},
		{"day-16days", "day", 16}, // 16 files of Timelake's own spec: the file count apart
		{"day+bucket16", "day, bucket(16, host)", 1},
		{"identity-host", "host", 1},
		{"none", "none", 1},
	} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			var tb *table.Table
			fresh := func() {
				sch := metricsSchema(b)
				_, fields, err := table.ParseSpec(sch, c.spec)
				if err != nil {
					b.Fatal(err)
				}
				if tb, err = table.CreateWithSpec(ctx, memstore.New(), testenv.New(1), loc, sch, nil, fields); err != nil {
					b.Fatal(err)
				}
			}
			fresh()
			src := benchBatch(b, tb, 100_000)
			for i := range src.Cols[0].Ints {
				src.Cols[0].Ints[i] += int64(i%c.days) * 86_400_000_000
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if i%20 == 19 {
					b.StopTimer()
					fresh()
					b.StartTimer()
				}
				if _, err := tb.Append(ctx, src); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(100_000*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
