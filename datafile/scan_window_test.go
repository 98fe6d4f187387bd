package datafile

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/scan"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/memstore"
)

// TestScanHoldsWindows: a file scanned in windows much shorter than its
// pages (8,192 rows) gives every row as written, nulls included, and
// between windows each column holds at most a window's decoded rows, not
// the page under it: the rest of the page stays bytes until a window
// reaches it (parquet.PageStream). Before, a column kept its pages
// decoded until the windows passed them, up to a page of rows per column
// of every file a scan merged.
func TestScanHoldsWindows(t *testing.T) {
	ctx := context.Background()
	sch, err := schema.NewWithoutIngest("ts", []string{"host"}, []schema.Field{
		{Name: "v", Type: schema.Long},
		{Name: "d", Type: schema.Double, Required: true},
		{Name: "s", Type: schema.String},
	}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	const n, window = 20_000, 300
	cols := make([]rows.Column, len(sch.Fields))
	for i := range n {
		host := fmt.Sprintf("h%d", i*3/n)
		for k, f := range sch.Fields {
			c := &cols[k]
			switch {
			case k == sch.Time:
				c.Ints = append(c.Ints, 1_700_000_000_000_000+int64(i%(n/3+1))*1_000_000)
			case f.Name == "host":
				c.Strs = append(c.Strs, host)
			case f.Name == "v":
				c.Ints = append(c.Ints, int64(i*i%1000))
				c.Nulls = append(c.Nulls, i%5 == 2 || (i > 9000 && i < 9500))
			case f.Name == "d":
				c.Floats = append(c.Floats, math.Sqrt(float64(i)))
			case f.Name == "s":
				c.Strs = append(c.Strs, fmt.Sprintf("label-%d", i%37))
				c.Nulls = append(c.Nulls, i%11 == 0)
			}
		}
	}
	for k := range cols { // a null row holds the zero value
		for i, null := range cols[k].Nulls {
			if null {
				if cols[k].Ints != nil {
					cols[k].Ints[i] = 0
				} else {
					cols[k].Strs[i] = ""
				}
			}
		}
	}
	specs := make([]parquet.ColumnSpec, len(sch.Fields))
	for k, f := range sch.Fields {
		specs[k] = parquet.ColumnSpec{Name: f.Name, FieldID: int32(f.ID), Type: f.Type, Required: f.Required}
	}
	w, err := parquet.NewWriter(specs, parquet.Options{Sorting: []parquet.SortingColumn{{Column: sch.Series[0]}, {Column: sch.Time}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(cols, n); err != nil {
		t.Fatal(err)
	}
	data, _, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	st := memstore.New()
	if err := st.Put(ctx, "data/f.parquet", data); err != nil {
		t.Fatal(err)
	}
	flt, err := scan.NewFilter(sch, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var stats ScanStats
	sh := &ScanShared{Store: &CountingStore{Store: st, Stats: &stats}, Stats: &stats, Dec: &parquet.PageDecoder{}, WindowRows: window, ReadBudget: 1 << 20}
	e := iceberg.ManifestEntry{DataFile: iceberg.DataFile{RecordCount: n, FileSize: int64(len(data))}}
	fs := NewFileScan(ctx, sh, "data/f.parquet", e, sch, flt, nil)
	got := make([]rows.Column, len(sch.Fields))
	batches := 0
	for {
		b, err := fs.Next()
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		batches++
		for k, f := range sch.Fields {
			c := b.Cols[k]
			held := fs.decd[k].buf.Len(fs.decd[k].typ(f.Type))
			if held > window {
				t.Fatalf("batch %d: column %q holds %d decoded rows, windows of %d", batches, f.Name, held, window)
			}
			g := &got[k]
			g.Ints, g.Floats, g.Strs = append(g.Ints, c.Ints...), append(g.Floats, c.Floats...), append(g.Strs, c.Strs...)
			if c.Nulls != nil {
				g.Nulls = append(g.Nulls, c.Nulls...)
			} else if cols[k].Nulls != nil {
				g.Nulls = append(g.Nulls, make([]bool, b.Len)...)
			}
		}
	}
	if batches < n/window {
		t.Fatalf("%d batches, want windows of %d rows", batches, window)
	}
	for k, f := range sch.Fields {
		g, want := got[k], cols[k]
		if !slices.Equal(g.Ints, want.Ints) || !slices.Equal(g.Floats, want.Floats) || !slices.Equal(g.Strs, want.Strs) || !slices.Equal(g.Nulls, want.Nulls) {
			t.Errorf("column %q: rows differ from those written", f.Name)
		}
	}
	if stats.PagesRead != stats.Pages {
		t.Errorf("%d pages decoded of %d", stats.PagesRead, stats.Pages)
	}
}
