package parquet

import (
	"slices"
	"testing"
)

// TestRowGroupRows: a row limit closes row groups at the first page
// boundary at or past it, whatever the byte limit; 0 leaves bytes alone.
func TestRowGroupRows(t *testing.T) {
	const n = 100_000
	for _, tc := range []struct {
		name string
		opt  Options
		want []int64
	}{
		{"no row limit", Options{}, []int64{n}},
		{"a whole number of pages", Options{RowGroupRows: 32_768}, []int64{32_768, 32_768, 32_768, 1_696}},
		{"rounded up to a page", Options{RowGroupRows: 40_000}, []int64{40_960, 40_960, 18_080}},
		{"small pages", Options{RowGroupRows: 30_000, PageRowLimit: 10_000}, []int64{30_000, 30_000, 30_000, 10_000}},
		{"bytes close first", Options{RowGroupRows: 90_000, RowGroupBytes: 256 << 10}, nil},
	} {
		data, _ := writeFile(t, benchSpecs, tc.opt, benchRows(n), n)
		f, err := Open(data)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got []int64
		for _, rg := range f.Meta().RowGroups {
			got = append(got, rg.NumRows)
		}
		if tc.want == nil { // the byte limit: more, smaller groups than the row limit alone
			if len(got) < 3 || slices.Max(got) >= 90_000 {
				t.Errorf("%s: row groups %v, want several under 90,000 rows", tc.name, got)
			}
			continue
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: row groups %v, want %v", tc.name, got, tc.want)
		}
	}
	if _, err := NewWriter(benchSpecs, Options{RowGroupRows: -1}); err == nil {
		t.Error("RowGroupRows -1: no error")
	}
}
