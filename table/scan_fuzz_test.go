package table_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// FuzzScanFilters: random time ranges, series sets, projections and limits
// over a small many-page table give what a brute-force filter of the
// deduplicated rows gives.
func FuzzScanFilters(f *testing.F) {
	tb, m := scanTable(f, memstore.New(), 71, 4, 150)
	vis := m.visible()
	f.Add(int64(0), int64(3*24*60), uint8(0), uint8(0), uint16(0))
	f.Add(int64(60), int64(120), uint8(1), uint8(1), uint16(5))
	f.Add(int64(1439), int64(1441), uint8(0x3f), uint8(2), uint16(0))
	f.Add(int64(-100), int64(5000), uint8(0x40), uint8(3), uint16(1))
	f.Fuzz(func(t *testing.T, fromMin, toMin int64, hosts, cols uint8, limit uint16) {
		ctx := context.Background()
		opt := table.ScanOptions{Limit: int(limit % 50), BatchRows: 1 + int(limit%13)}
		if fromMin%5 != 0 {
			opt.FromUS = us(day1.Add(time.Duration(fromMin%(4*24*60)) * time.Minute))
		}
		if toMin%7 != 0 {
			opt.ToUS = us(day1.Add(time.Duration(toMin%(4*24*60)) * time.Minute))
		}
		if hosts != 0 {
			var vs []any
			for h := range 7 {
				if hosts&(1<<h) != 0 {
					vs = append(vs, fmt.Sprintf("h%d", h)) // h6 is absent
				}
			}
			opt.Series = map[string][]any{"host": vs}
		}
		for k, c := range []string{"region", "cpu", "mem"} {
			if cols&(1<<k) != 0 {
				opt.Columns = append(opt.Columns, c)
			}
		}
		got, _, err := scanRows(ctx, tb, opt)
		if opt.FromUS != nil && opt.ToUS != nil && *opt.FromUS >= *opt.ToUS {
			if table.Code(err) != "BAD_RANGE" {
				t.Fatalf("from ≥ to: err %v, want BAD_RANGE", err)
			}
			return
		}
		if vs, ok := opt.Series["host"]; ok && len(vs) == 0 {
			if table.Code(err) != "BAD_FILTER" {
				t.Fatalf("no series values: err %v, want BAD_FILTER", err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if want := filterRows(vis, opt); !slices.Equal(got, want) {
			t.Fatalf("%+v: got %d rows, want %d: %s", opt, len(got), len(want), firstDiff(got, want))
		}
	})
}
