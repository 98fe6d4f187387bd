package table_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/benchcpu"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// BenchmarkScanRowGroups chooses the rows that close a row group
// (docs/decisions/scan.md): the bench's scan fixture (24 appends of 50k
// rows, 100 series, one day) compacted with each candidate, then the
// issue-13 queries on the compacted file. Per candidate: the compaction's
// CPU and heap peak; the one-series × one-hour scan's data requests, bytes
// and the compressed bytes of the pages holding its rows (with their
// dictionary pages: what it cannot do without); the whole-day scan's heap
// peak. "0" is no row limit (the byte limit alone: one row group).
func BenchmarkScanRowGroups(b *testing.B) {
	base := compactionTable(b, 24, 50_000)
	ctx := context.Background()
	host := "host-042"
	hour := table.ScanOptions{Series: map[string][]any{"host": {host}}, FromUS: us(day1.Add(10 * time.Hour)), ToUS: us(day1.Add(11 * time.Hour))}
	whole := table.ScanOptions{FromUS: us(day1), ToUS: us(day1.Add(24 * time.Hour))}
	for _, n := range []int64{0, 8_192, 16_384, 32_768, 65_536, 122_880} {
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			defer table.SetRowGroupRows(n)()
			var compactCPU, scanCPU int64
			var compactPeak, wholePeak uint64
			var st *table.ScanStats
			var need int64
			var rgs, fileBytes int
			for range b.N {
				b.StopTimer()
				ov := memstore.New()
				for k, v := range base {
					if err := ov.Put(ctx, k, v); err != nil {
						b.Fatal(err)
					}
				}
				tb, err := table.Open(ctx, ov, testenv.New(2))
				if err != nil {
					b.Fatal(err)
				}
				cost, err := measured(b, func() error {
					_, err := tb.Maintain(ctx, table.MaintainOptions{Compact: true})
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
				compactCPU += cost.cpu
				compactPeak = max(compactPeak, cost.peak)
				var data []byte
				objs, err := ov.List(ctx, "data/")
				if err != nil {
					b.Fatal(err)
				}
				for _, o := range objs {
					if _, old := base[o.Key]; !old && strings.HasSuffix(o.Key, ".parquet") {
						if data, err = ov.Get(ctx, o.Key); err != nil {
							b.Fatal(err)
						}
					}
				}
				fileBytes = len(data)
				if rgs, need, err = pagesHolding(data, host, *hour.FromUS, *hour.ToUS); err != nil {
					b.Fatal(err)
				}
				if tb, err = table.Open(ctx, ov, testenv.New(3)); err != nil {
					b.Fatal(err)
				}
				scans := int64(20)
				if os.Getenv("SCANLOG") != "" {
					scans = 1
				}
				cpu0 := benchcpu.Now()
				for range scans {
					if st, err = tb.Scan(ctx, hour, func(*rows.Batch) error { return nil }); err != nil {
						b.Fatal(err)
					}
				}
				scanCPU += (benchcpu.Now() - cpu0) / scans
				if st.Rows != 500 {
					b.Fatalf("one series × one hour: %d rows, want 500", st.Rows)
				}
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				stop := heapPeak()
				ws, err := tb.Scan(ctx, whole, func(*rows.Batch) error { return nil })
				if err != nil {
					b.Fatal(err)
				}
				if p := stop(); p > ms.HeapAlloc {
					wholePeak = max(wholePeak, p-ms.HeapAlloc)
				}
				if ws.Rows != 1_200_000 {
					b.Fatalf("whole day: %d rows, want 1200000", ws.Rows)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(compactCPU)/1e6/float64(b.N), "compact-cpu-ms/op")
			b.ReportMetric(float64(compactPeak)/(1<<20), "compact-peak-MiB")
			b.ReportMetric(float64(rgs), "row-groups")
			b.ReportMetric(float64(fileBytes), "file-bytes")
			b.ReportMetric(float64(scanCPU)/1e6/float64(b.N), "hour-cpu-ms")
			b.ReportMetric(float64(st.Requests), "hour-requests")
			b.ReportMetric(float64(st.BytesRead), "hour-bytes")
			b.ReportMetric(float64(need), "hour-page-bytes")
			b.ReportMetric(float64(wholePeak)/(1<<20), "whole-peak-MiB")
		})
	}
}

// pagesHolding is the row groups of a one-file table's data file and the
// compressed bytes of the data pages holding the rows of host in [from,
// to) (µs), with the dictionary pages of their chunks, from its offset
// index.
func pagesHolding(data []byte, host string, from, to int64) (rowGroups int, need int64, err error) {
	f, err := parquet.Open(data)
	if err != nil {
		return 0, 0, err
	}
	ts := slices.IndexFunc(f.Schema(), func(c parquet.ColumnInfo) bool { return c.Name == "ts" })
	hc := slices.IndexFunc(f.Schema(), func(c parquet.ColumnInfo) bool { return c.Name == "host" })
	for rg := range f.NumRowGroups() {
		tc, err := f.ReadColumn(rg, ts)
		if err != nil {
			return 0, 0, err
		}
		hcol, err := f.ReadColumn(rg, hc)
		if err != nil {
			return 0, 0, err
		}
		var hit []int64
		for i, t := range tc.Ints {
			if hcol.Strs[i] == host && t >= from && t < to {
				hit = append(hit, int64(i))
			}
		}
		if len(hit) == 0 {
			continue
		}
		for c := range f.Schema() {
			oi, err := f.OffsetIndex(rg, c)
			if err != nil {
				return 0, 0, err
			}
			used := false
			for k, p := range oi.Pages {
				end := int64(1 << 62)
				if k+1 < len(oi.Pages) {
					end = oi.Pages[k+1].FirstRowIndex
				}
				if slices.ContainsFunc(hit, func(r int64) bool { return r >= p.FirstRowIndex && r < end }) {
					need += int64(p.CompressedPageSize)
					used = true
				}
			}
			if cm := f.Meta().RowGroups[rg].Columns[c].Meta; used && cm.HasDictionaryPage {
				need += oi.Pages[0].Offset - cm.DictionaryPageOffset
			}
		}
	}
	return f.NumRowGroups(), need, nil
}
