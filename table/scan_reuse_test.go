package table_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// TestScanReuse: with ScanOptions.Reuse a consumer that copies each batch
// out gets the rows a scan without it gives, and the batches share their
// memory (the WebAssembly bridge, which copies each batch into JavaScript,
// allocates the scan's output once instead of per batch).
func TestScanReuse(t *testing.T) {
	ctx := context.Background()
	tb := create(t, memstore.New(), 31)
	for k := range 3 {
		if _, err := tb.Append(ctx, batch(t, tb.Schema(), day1.Add(time.Duration(k)*24*time.Hour), 1000, 7)); err != nil {
			t.Fatal(err)
		}
	}
	rowsOf := func(reuse bool) ([]string, map[*int64]bool) {
		var out []string
		firsts := map[*int64]bool{}
		if _, err := tb.Scan(ctx, table.ScanOptions{BatchRows: 100, Reuse: reuse}, func(b *rows.Batch) error {
			firsts[&b.Cols[0].Ints[0]] = true
			for i := range b.Len {
				out = append(out, fmt.Sprint(b.Cols[0].Ints[i], b.Cols[1].Strs[i], b.Cols[3].Floats[i], b.Cols[4].Ints[i]))
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out, firsts
	}
	want, fresh := rowsOf(false)
	got, reused := rowsOf(true)
	if len(want) != 3000 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("with Reuse %d rows, without %d; equal: %v", len(got), len(want), fmt.Sprint(got) == fmt.Sprint(want))
	}
	// 30 batches: each its own memory without Reuse, two arrays in turn with it
	if len(fresh) != 30 || len(reused) > 2 {
		t.Errorf("batches' first time values at %d addresses without Reuse, %d with; want 30 and at most 2", len(fresh), len(reused))
	}
}
