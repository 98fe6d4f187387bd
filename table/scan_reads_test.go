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

// TestScanReadsFileOnce: a whole-file scan of a compacted 1.2M-row table
// (bench/scan.mjs's fixture: 100 series × one day in 24 appends, default
// page size) reads each byte of the file about once, in a handful of
// requests. Without the read-ahead (a core before it: the benchmark's
// workerd run) every 8,192-row window fetched its pages apart, coalesced
// with the 64 KiB gaps between the columns' chunks and dropped after the
// window: 445 requests and 21.5× the file's bytes here. Since row groups
// close at 122,880 rows (docs/decisions/scan.md), two requests per row
// group.
func TestScanReadsFileOnce(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb, err := table.Create(ctx, st, testenv.New(82), loc, metricsSchema(t), map[string]string{"timelake.auto-maintain": "false", "timelake.maintain-byte-cap": "0"})
	if err != nil {
		t.Fatal(err)
	}
	// bench/worker/worker.js's fillRows: appends batches of the next
	// stretch of one day for the same 100 series, then one compaction
	const nfiles, each = 24, 50000
	const total = nfiles * each
	step := 24 * time.Hour / (total/100 + 1)
	regions := []string{"eu", "us", "ap", "sa"}
	for f := range nfiles {
		ms := make([]map[string]any, 0, each)
		for i := range each {
			r := f*each + i
			ms = append(ms, map[string]any{"ts": day1.Add(time.Duration(r/100) * step), "host": fmt.Sprintf("host-%03d", r%100), "region": regions[r%4], "cpu": float64(r%1000) / 10, "mem": int64(1<<30 + r*4096)})
		}
		b, err := rows.FromMaps(tb.Schema(), ms, rows.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tb.Append(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true}); err != nil {
		t.Fatal(err)
	}
	files, err := tb.DataFiles(ctx)
	if err != nil || len(files) != 1 {
		t.Fatalf("%d files after compaction, %v", len(files), err)
	}
	size := files[0].FileSize
	for _, c := range []struct {
		name string
		opt  table.ScanOptions
	}{
		{"all", table.ScanOptions{}},
		{"all columns", table.ScanOptions{Columns: []string{"ts", "host", "region", "cpu", "mem", "_ingest_ts"}}},
		{"one day", table.ScanOptions{FromUS: us(day1), ToUS: us(day1.Add(24 * time.Hour))}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var n int64
			stats, err := tb.Scan(ctx, c.opt, func(b *rows.Batch) error { n += int64(b.Len); return nil })
			if err != nil {
				t.Fatal(err)
			}
			if n != total {
				t.Fatalf("%d rows, want %d", n, total)
			}
			// the footer's tail, the offset indexes, the column indexes, then
			// per row group (122,880 rows: 10 here) the key columns' pages and
			// the other columns', each in requests of up to the read-ahead
			// budget (2 MiB): the read-ahead stops at a row group's end
			rgs := int(stats.RowGroups)
			if rgs != 10 {
				t.Errorf("%d row groups, want 10 (1.2M rows in groups of 122,880)", rgs)
			}
			maxReq := 4 + rgs*int(size/(2<<20)+1)*2
			t.Logf("file %d B: %d requests, %d bytes read (%.2f×); stats %+v", size, stats.Requests, stats.BytesRead, float64(stats.BytesRead)/float64(size), *stats)
			if float64(stats.BytesRead) > 1.3*float64(size) {
				t.Errorf("%d bytes read of a %d-byte file (%.2f×), want at most 1.3×", stats.BytesRead, size, float64(stats.BytesRead)/float64(size))
			}
			if stats.Requests > maxReq {
				t.Errorf("%d requests for a %d-byte file, want at most %d", stats.Requests, size, maxReq)
			}
		})
	}
}
