package table_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// BenchmarkAppendVariant appends 100,000 rows whose attrs column holds an
// object of 8 labels, as a variant (encoded per row, written as metadata
// and value) and, for comparison, as the same JSON text in a string
// column; and scans one append's rows back.
func BenchmarkAppendVariant(b *testing.B) {
	const n = 100_000
	for _, kind := range []string{"string", "variant"} {
		f := schema.Field{Name: "attrs", Type: schema.String}
		if kind == "variant" {
			f = schema.Field{Name: "attrs", Type: schema.Nested, Nested: schema.VariantType()}
		}
		ctx := context.Background()
		sch, err := schema.New("ts", []string{"host"}, []schema.Field{f}, schema.Day)
		if err != nil {
			b.Fatal(err)
		}
		mk := func() *table.Table {
			tb, err := table.Create(ctx, memstore.New(), testenv.New(1), "mem://bench", sch, map[string]string{table.PropFormatVersion: "3"})
			if err != nil {
				b.Fatal(err)
			}
			return tb
		}
		tb := mk()
		src := &rows.Batch{Schema: tb.Schema(), Len: n, Cols: make([]rows.Column, len(tb.Schema().Fields))}
		for i := range n {
			src.Cols[0].Ints = append(src.Cols[0].Ints, day1.Add(time.Duration(i/100)*time.Second).UnixMicro())
			src.Cols[1].Strs = append(src.Cols[1].Strs, fmt.Sprintf("host-%02d", i%100))
			text, err := rows.VariantText(fmt.Sprintf(`{"job":"api","instance":"10.0.%d.%d:9090","env":"prod","region":"eu-west-%d","zone":"z%d","pod":"pod-%d","team":"core","version":"1.%d"}`, i%7, i%250, i%3, i%5, i%1000, i%20))
			if err != nil {
				b.Fatal(err)
			}
			src.Cols[2].Strs = append(src.Cols[2].Strs, text)
			src.Cols[3].Ints = append(src.Cols[3].Ints, 0)
			src.Cols[3].Nulls = append(src.Cols[3].Nulls, true)
		}
		b.Run("append/"+kind, func(b *testing.B) {
			var bytes int64
			for i := range b.N {
				if i%20 == 19 {
					b.StopTimer()
					tb = mk()
					b.StartTimer()
				}
				res, err := tb.Append(ctx, src)
				if err != nil {
					b.Fatal(err)
				}
				bytes = res.Bytes
			}
			b.ReportMetric(float64(bytes), "file-bytes")
		})
		b.Run("scan/"+kind, func(b *testing.B) {
			tb := mk() // the rows of one append
			if _, err := tb.Append(ctx, src); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				got := 0
				if _, err := tb.Scan(ctx, table.ScanOptions{}, func(bt *rows.Batch) error { got += bt.Len; return nil }); err != nil || got == 0 {
					b.Fatal(got, err)
				}
			}
		})
	}
}
