package table_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// TestScanPrunesPages: a one-series, one-hour scan of a 100k-row table
// reads only the pages that hold its rows, counted from the page index of
// the file (every projected column's pages with a matching row).
func TestScanPrunesPages(t *testing.T) {
	for _, pageRows := range []int{1000, 8192} {
		t.Run(fmt.Sprintf("page-row-limit %d", pageRows), func(t *testing.T) {
			ctx := context.Background()
			st := memstore.New()
			tb, err := table.Create(ctx, st, testenv.New(81), loc, metricsSchema(t), map[string]string{
				"write.parquet.page-row-limit": fmt.Sprint(pageRows), "timelake.auto-maintain": "false"})
			if err != nil {
				t.Fatal(err)
			}
			const hosts, per = 20, 5003
			ms := make([]map[string]any, 0, hosts*per)
			step := 24 * time.Hour / per
			for h := range hosts {
				for i := range per {
					ms = append(ms, map[string]any{"ts": day1.Add(time.Duration(i) * step), "host": fmt.Sprintf("h%02d", h), "region": "eu", "cpu": float64(i), "mem": int64(i)})
				}
			}
			b, err := rows.FromMaps(tb.Schema(), ms, rows.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tb.Append(ctx, b); err != nil {
				t.Fatal(err)
			}
			from, to := day1.Add(10*time.Hour), day1.Add(11*time.Hour)
			opt := table.ScanOptions{Series: map[string][]any{"host": {"h07"}}, FromUS: us(from), ToUS: us(to)}
			got, stats, err := scanRows(ctx, tb, opt)
			if err != nil {
				t.Fatal(err)
			}
			// The expected pages, from the file's page index.
			files, err := tb.DataFiles(ctx)
			if err != nil || len(files) != 1 {
				t.Fatalf("%d files, %v", len(files), err)
			}
			key := strings.TrimPrefix(files[0].Path, loc+"/")
			data, err := st.Get(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			pf, err := parquet.Open(data)
			if err != nil {
				t.Fatal(err)
			}
			col := map[string]int{}
			for c, ci := range pf.Schema() {
				col[ci.Name] = c
			}
			want, total, matching := 0, 0, 0
			for rg := range pf.NumRowGroups() {
				ts, _ := pf.ReadColumn(rg, col["ts"])
				hs, _ := pf.ReadColumn(rg, col["host"])
				var match []int64
				for i := range ts.Ints {
					if hs.Strs[i] == "h07" && ts.Ints[i] >= from.UnixMicro() && ts.Ints[i] < to.UnixMicro() {
						match = append(match, int64(i))
					}
				}
				matching += len(match)
				for _, name := range []string{"ts", "host", "region", "cpu", "mem", "_ingest_ts"} {
					oi, err := pf.OffsetIndex(rg, col[name])
					if err != nil || oi == nil {
						t.Fatalf("offset index of %s: %v", name, err)
					}
					total += len(oi.Pages)
					for p := range oi.Pages {
						end := pf.Meta().RowGroups[rg].NumRows
						if p+1 < len(oi.Pages) {
							end = oi.Pages[p+1].FirstRowIndex
						}
						for _, r := range match {
							if r >= oi.Pages[p].FirstRowIndex && r < end {
								want++
								break
							}
						}
					}
				}
			}
			if len(got) != matching || int(stats.Rows) != matching {
				t.Fatalf("%d rows (stats %d), want %d", len(got), stats.Rows, matching)
			}
			if stats.PagesRead != want || stats.Pages != total {
				t.Fatalf("pages read %d of %d, want %d of %d (the pages holding the %d rows)", stats.PagesRead, stats.Pages, want, total, matching)
			}
			t.Logf("100k rows, page-row-limit %d: %d rows; stats %+v", pageRows, matching, *stats)
		})
	}
}
