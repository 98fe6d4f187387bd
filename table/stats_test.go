package table_test

import (
	"context"
	"math"
	"testing"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/memstore"
)

// TestDataFileStats checks the Iceberg statistics of a written file against
// the rows themselves: counts, nulls, NaNs, and bounds in the single-value
// encoding (string bounds truncated to 16 characters, the upper rounded up).
func TestDataFileStats(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	tb := create(t, st, 1)
	long := "zzzz-a-very-long-region-name-beyond-sixteen"
	b, err := rows.FromMaps(tb.Schema(), []map[string]any{
		{"ts": "2026-11-28T01:00:00Z", "host": "b", "region": "eu", "cpu": 1.5, "mem": int64(-7)},
		{"ts": "2026-11-28T02:00:00Z", "host": "a", "region": long, "cpu": math.NaN(), "mem": int64(9)},
		{"ts": "2026-11-28T03:00:00Z", "host": "c", "region": "ap", "mem": int64(3)},
		{"ts": "2026-11-28T00:30:00Z", "host": "a", "region": "eu", "cpu": -2.25},
	}, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Append(ctx, b); err != nil {
		t.Fatal(err)
	}
	files, err := tb.DataFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 {
		t.Fatalf("%d files, want 1", len(files))
	}
	df := files[0]
	s := tb.Schema()
	id := func(name string) int32 { return int32(s.Fields[s.Index(name)].ID) }
	dec := func(name string, b []byte) any {
		v, err := iceberg.DecodeValue(s.Fields[s.Index(name)].Type, b)
		if err != nil {
			t.Fatalf("decode %s bound %x: %v", name, b, err)
		}
		return v
	}
	if df.RecordCount != 4 || df.Partition != schema.Day.Apply(1795824000000000) {
		t.Errorf("record count %d, partition %d", df.RecordCount, df.Partition)
	}
	checks := []struct {
		what      string
		got, want any
	}{
		{"value count ts", df.ValueCounts[id("ts")], int64(4)},
		{"value count cpu (nulls included)", df.ValueCounts[id("cpu")], int64(4)},
		{"null count cpu", df.NullCounts[id("cpu")], int64(1)},
		{"null count mem", df.NullCounts[id("mem")], int64(1)},
		{"NaN count cpu", df.NaNCounts[id("cpu")], int64(1)},
		{"lower ts", dec("ts", df.Lower[id("ts")]), int64(1795825800000000)},
		{"upper ts", dec("ts", df.Upper[id("ts")]), int64(1795834800000000)},
		{"lower host", string(df.Lower[id("host")]), "a"},
		{"upper host", string(df.Upper[id("host")]), "c"},
		{"lower cpu (NaN excluded)", dec("cpu", df.Lower[id("cpu")]), -2.25},
		{"upper cpu (NaN excluded)", dec("cpu", df.Upper[id("cpu")]), 1.5},
		{"lower mem", dec("mem", df.Lower[id("mem")]), int64(-7)},
		{"upper mem", dec("mem", df.Upper[id("mem")]), int64(9)},
		{"lower region", string(df.Lower[id("region")]), "ap"},
		{"upper region (truncated, rounded up)", string(df.Upper[id("region")]), "zzzz-a-very-lonh"},
		{"sort order", *df.SortOrderID, int32(1)},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
	if string(df.Upper[id("region")]) < long[:16] {
		t.Errorf("upper bound %q is below the true maximum", df.Upper[id("region")])
	}
	for _, f := range s.Fields {
		if df.ColumnSizes[int32(f.ID)] <= 0 {
			t.Errorf("column size of %s = %d", f.Name, df.ColumnSizes[int32(f.ID)])
		}
	}
	if _, ok := df.NaNCounts[id("mem")]; ok {
		t.Errorf("NaN count given for a long column")
	}
}
