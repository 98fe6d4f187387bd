package table_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/rollup"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// TestRollupRefreshInChunks: an incremental refresh scans its ranges an
// hour at a time and skips the hours with no changed bucket; its rows
// equal those of the same rollup computed whole (one scan), bucket by
// bucket. Changed hours 2, 3, 5 and 9 make one range [2h, 10h) (buckets
// up to 8 widths apart share one) of which hours 4, 6, 7 and 8 are skipped.
func TestRollupRefreshInChunks(t *testing.T) {
	ctx := context.Background()
	tb, err := table.Create(ctx, memstore.New(), testenv.New(51), loc, interopSchema(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	batch := func(hours []int, mem int64) *rows.Batch {
		var ms []map[string]any
		for _, h := range hours {
			for m := 0; m < 60; m += 7 {
				for s := 0; s < 3; s++ {
					ms = append(ms, map[string]any{"ts": day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute), "host": fmt.Sprintf("host-%d", s), "shard": int64(s % 2), "mem": mem + int64(h*100+m+s)})
				}
			}
		}
		return rowsFromMaps(t, tb, ms...)
	}
	if _, err := tb.Append(ctx, batch([]int{0, 2, 3, 4, 6, 7, 8, 9, 12}, 0)); err != nil {
		t.Fatal(err)
	}
	d, err := rollup.New("h", "1h", []string{"mem:count,sum,min,max,first,last"}, "")
	if err != nil {
		t.Fatal(err)
	}
	d.Location = loc + "__rollup_h"
	inc, err := table.AddRollup(ctx, tb, memstore.New(), d)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := table.RefreshRollup(ctx, tb, inc, d, table.RefreshOptions{}); err != nil {
		t.Fatal(err)
	}
	// New rows for hours 2, 9 and 3 (duplicates of stored keys with other
	// values: the newer wins) and a late hour 5, one append each (a file
	// of one hour marks that hour from its bounds).
	for _, h := range []int{2, 9, 5, 3} {
		if _, err := tb.Append(ctx, batch([]int{h}, 1000)); err != nil {
			t.Fatal(err)
		}
	}
	res, err := table.RefreshRollup(ctx, tb, inc, d, table.RefreshOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Mode != "incremental" || res.Rows != 4*3 || res.Spans != 4 {
		t.Fatalf("refresh: mode %s, %d rows, %d spans; want incremental, 12 rows (4 hours × 3 series), 4 spans", res.Mode, res.Rows, res.Spans)
	}
	if _, err := table.DropRollup(ctx, tb, d.Name); err != nil {
		t.Fatal(err)
	}
	whole, err := table.AddRollup(ctx, tb, memstore.New(), d)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := table.RefreshRollup(ctx, tb, whole, d, table.RefreshOptions{}); err != nil || res.Mode != "full" {
		t.Fatalf("the whole recompute: %+v, %v", res, err)
	}
	got, want := bucketText(t, inc), bucketText(t, whole)
	if got != want {
		t.Fatalf("incremental:\n%s\nwant (computed whole):\n%s", got, want)
	}
	if n := strings.Count(got, "\n"); n != 10*3 {
		t.Fatalf("%d rollup rows, want 30 (10 hours × 3 series):\n%s", n, got)
	}
}

// bucketText renders every column of a rollup's rows, one line each.
func bucketText(t *testing.T, ru *table.Table) string {
	var sb strings.Builder
	_, err := ru.Scan(context.Background(), table.ScanOptions{}, func(b *rows.Batch) error {
		for i := 0; i < b.Len; i++ {
			for c := range b.Cols {
				col := &b.Cols[c]
				switch {
				case col.IsNull(i):
					sb.WriteString("null")
				case col.Strs != nil:
					sb.WriteString(col.Strs[i])
				case col.Floats != nil:
					fmt.Fprint(&sb, col.Floats[i])
				default:
					fmt.Fprint(&sb, col.Ints[i])
				}
				sb.WriteByte(' ')
			}
			sb.WriteByte('\n')
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sb.String()
}
