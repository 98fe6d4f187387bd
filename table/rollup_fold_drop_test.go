package table_test

import (
	"context"
	"slices"
	"testing"

	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/store/memstore"
	"github.com/timelake/timelake/table"
)

// TestDropAppendRows: the rows kept for a fold are counted and dropped
// once, and a refresh after the drop recomputes (incremental) to the same
// rollup rows a fold gives.
func TestDropAppendRows(t *testing.T) {
	ctx := context.Background()
	d := hourly(t)
	run := func(drop bool) (modes []string, kept []int64, ru *table.Table) {
		raw, err := table.Create(ctx, memstore.New(), testenv.New(1), loc, metricsSchema(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		if ru, err = table.AddRollup(ctx, raw, memstore.New(), d); err != nil {
			t.Fatal(err)
		}
		for k := 1; k <= 3; k++ {
			if _, err := raw.Append(ctx, forwardRows(t, raw, k, 1000)); err != nil {
				t.Fatal(err)
			}
			if drop {
				kept = append(kept, raw.DropAppendRows(), raw.DropAppendRows())
			}
			res, err := table.RefreshRollup(ctx, raw, ru, d, table.RefreshOptions{})
			if err != nil {
				t.Fatal(err)
			}
			modes = append(modes, res.Mode)
		}
		return modes, kept, ru
	}
	foldModes, _, foldRu := run(false)
	dropModes, kept, dropRu := run(true)
	if want := []string{"full", "fold", "fold"}; !slices.Equal(foldModes, want) {
		t.Fatalf("kept rows: modes %v, want %v", foldModes, want)
	}
	if want := []string{"full", "incremental", "incremental"}; !slices.Equal(dropModes, want) {
		t.Fatalf("dropped rows: modes %v, want %v", dropModes, want)
	}
	// The first append has no parent to fold onto: nothing kept. Then 1000
	// rows of six columns (two of strings) and a 100-row index: at least 8
	// bytes a value.
	for i := 0; i < len(kept); i += 2 {
		least := int64(1000 * 6 * 8)
		if i == 0 {
			least = 0
		}
		if kept[i] < least || i == 0 && kept[i] != 0 || kept[i+1] != 0 {
			t.Fatalf("append %d: dropped %d then %d bytes, want ≥ %d (0 for the first) then 0", i/2+1, kept[i], kept[i+1], least)
		}
	}
	if got, want := rollupDump(t, dropRu), rollupDump(t, foldRu); !slices.Equal(got, want) {
		t.Fatalf("rollup after drops:\n%v\nwant (folded):\n%v", got, want)
	}
}
