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

// BenchmarkScan: a 200k-row one-file table (20 series × one day), scanned
// whole, one series whole, and one series × one hour.
func BenchmarkScan(b *testing.B) {
	ctx := context.Background()
	tb, err := table.Create(ctx, memstore.New(), testenv.New(1), loc, metricsSchema(b), map[string]string{"timelake.auto-maintain": "false"})
	if err != nil {
		b.Fatal(err)
	}
	const hosts, per = 20, 10000
	ms := make([]map[string]any, 0, hosts*per)
	for h := range hosts {
		for i := range per {
			ms = append(ms, map[string]any{"ts": day1.Add(time.Duration(i) * 24 * time.Hour / per), "host": fmt.Sprintf("h%02d", h), "region": "eu", "cpu": float64(i%977) / 3, "mem": int64(i * h)})
		}
	}
	batch, err := rows.FromMaps(tb.Schema(), ms, rows.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := tb.Append(ctx, batch); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		opt  table.ScanOptions
	}{
		{"all", table.ScanOptions{}},
		{"one series", table.ScanOptions{Series: map[string][]any{"host": {"h07"}}}},
		{"one series one hour", table.ScanOptions{Series: map[string][]any{"host": {"h07"}}, FromUS: us(day1.Add(10 * time.Hour)), ToUS: us(day1.Add(11 * time.Hour))}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var n int64
			for b.Loop() {
				st, err := tb.Scan(ctx, c.opt, func(*rows.Batch) error { return nil })
				if err != nil {
					b.Fatal(err)
				}
				n = st.Rows
			}
			b.ReportMetric(float64(n), "rows/op")
		})
	}
}
