package parquet

import (
	"fmt"
	"strings"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// TestPagesCutByBytes: pages close at PageBytes of string values as well as
// at PageRowLimit rows, so large values never make a page readers refuse:
// 9,000 values of 9 KB (81 MB, one page of 8,192 rows before) and two of
// 10 MB (20 MB) are written in pages of at most PageBytes (or one value),
// and read back exactly.
func TestPagesCutByBytes(t *testing.T) {
	for _, c := range []struct {
		name      string
		n, size   int
		wantPages int // at least
	}{
		{"9000 x 9 KB", 9000, 9 << 10, 9000 * (9 << 10) / DefaultPageBytes},
		{"2 x 10 MB", 2, 10 << 20, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			specs := []ColumnSpec{{Name: "k", Type: schema.Long, Required: true}, {Name: "v", Type: schema.String}}
			cols := []rows.Column{{}, {}}
			for i := range c.n {
				cols[0].Ints = append(cols[0].Ints, int64(i))
				// distinct values: no dictionary to make the pages small
				cols[1].Strs = append(cols[1].Strs, fmt.Sprintf("%06d", i)+strings.Repeat(string(rune('a'+i%26)), c.size-6))
			}
			data, _ := writeFile(t, specs, Options{RowGroupRows: 1 << 20}, cols, c.n)
			f, err := Open(data)
			if err != nil {
				t.Fatal(err)
			}
			pages := 0
			for rg := range f.Meta().RowGroups {
				oi, err := f.OffsetIndex(rg, 1)
				if err != nil {
					t.Fatal(err)
				}
				for k, p := range oi.Pages {
					pages++
					h, _, err := readPageHeader(data[p.Offset:])
					if err != nil {
						t.Fatal(err)
					}
					rowsIn := int64(f.Meta().RowGroups[rg].NumRows) - p.FirstRowIndex
					if k+1 < len(oi.Pages) {
						rowsIn = oi.Pages[k+1].FirstRowIndex - p.FirstRowIndex
					}
					if int64(h.UncompressedSize) > DefaultPageBytes+int64(c.size)+64 && rowsIn > 1 {
						t.Errorf("page %d of row group %d: %d bytes in %d rows, over %d", k, rg, h.UncompressedSize, rowsIn, DefaultPageBytes)
					}
					if h.UncompressedSize > MaxPageBytes {
						t.Errorf("page of %d bytes, over what readers accept (%d)", h.UncompressedSize, MaxPageBytes)
					}
				}
				got, err := f.ReadColumn(rg, 1)
				if err != nil {
					t.Fatalf("read back: %v", err)
				}
				first := 0
				for r := 0; r < rg; r++ {
					first += int(f.Meta().RowGroups[r].NumRows)
				}
				for i, s := range got.Strs {
					if s != cols[1].Strs[first+i] {
						t.Fatalf("row %d differs", first+i)
					}
				}
			}
			if pages < c.wantPages {
				t.Errorf("%d pages, want at least %d (cut by bytes)", pages, c.wantPages)
			}
		})
	}
}
