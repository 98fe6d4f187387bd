package parquet

import (
	"encoding/binary"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

func writeFile(t testing.TB, specs []ColumnSpec, opt Options, cols []rows.Column, n int) ([]byte, *FileStats) {
	t.Helper()
	w, err := NewWriter(specs, opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(cols, n); err != nil {
		t.Fatal(err)
	}
	data, st, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return data, st
}

// TestPageStructure checks pages of exactly PageRowLimit rows (the last of a
// row group smaller), through the offset index, and the column index.
func TestPageStructure(t *testing.T) {
	const n = 100_000
	data, _ := writeFile(t, benchSpecs, Options{}, benchRows(n), n)
	f, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	if f.NumRowGroups() != 1 {
		t.Fatalf("%d row groups, want 1", f.NumRowGroups())
	}
	wantPages := (n + DefaultPageRowLimit - 1) / DefaultPageRowLimit // 13
	for c, spec := range benchSpecs {
		oi, err := f.OffsetIndex(0, c)
		if err != nil || oi == nil {
			t.Fatalf("column %s: offset index %v, %v", spec.Name, oi, err)
		}
		if len(oi.Pages) != wantPages {
			t.Fatalf("column %s: %d pages, want %d", spec.Name, len(oi.Pages), wantPages)
		}
		cc := &f.Meta().RowGroups[0].Columns[c]
		for i, p := range oi.Pages {
			if want := int64(i * DefaultPageRowLimit); p.FirstRowIndex != want {
				t.Errorf("column %s page %d: first row %d, want %d", spec.Name, i, p.FirstRowIndex, want)
			}
			if i == 0 && p.Offset != cc.Meta.DataPageOffset {
				t.Errorf("column %s: first page at %d, data_page_offset %d", spec.Name, p.Offset, cc.Meta.DataPageOffset)
			}
			if i > 0 && p.Offset != oi.Pages[i-1].Offset+int64(oi.Pages[i-1].CompressedPageSize) {
				t.Errorf("column %s page %d: offset %d does not follow the previous page", spec.Name, i, p.Offset)
			}
			// the page header agrees
			h, _, err := readPageHeader(data[p.Offset:])
			if err != nil {
				t.Fatal(err)
			}
			wantRows := DefaultPageRowLimit
			if i == wantPages-1 {
				wantRows = n - i*DefaultPageRowLimit
			}
			if h.Type != pageDataV2 || int(h.NumRows) != wantRows {
				t.Errorf("column %s page %d: type %d with %d rows, want v2 with %d", spec.Name, i, h.Type, h.NumRows, wantRows)
			}
		}
		ci, err := f.ColumnIndex(0, c)
		if err != nil || ci == nil {
			t.Fatalf("column %s: column index %v, %v", spec.Name, ci, err)
		}
		if len(ci.NullPages) != wantPages || len(ci.NullCounts) != wantPages {
			t.Errorf("column %s: column index has %d pages, %d null counts, want %d", spec.Name, len(ci.NullPages), len(ci.NullCounts), wantPages)
		}
		wantOrder := map[string]BoundaryOrder{"host": Ascending, "_ingest_ts": Ascending, "cpu": Unordered, "region": Descending} // region: the last page holds only hosts 98 and 99
		if w, ok := wantOrder[spec.Name]; ok && ci.BoundaryOrder != w {
			t.Errorf("column %s: boundary order %d, want %d", spec.Name, ci.BoundaryOrder, w)
		}
	}
	// pages end where the chunk ends
	for c := range benchSpecs {
		cc := &f.Meta().RowGroups[0].Columns[c]
		oi, _ := f.OffsetIndex(0, c)
		last := oi.Pages[len(oi.Pages)-1]
		if end := last.Offset + int64(last.CompressedPageSize); end != cc.Start()+cc.Meta.TotalCompressedSize {
			t.Errorf("column %d: last page ends at %d, chunk at %d", c, end, cc.Start()+cc.Meta.TotalCompressedSize)
		}
	}
}

func TestRowGroupSplit(t *testing.T) {
	const n = 100_000
	data, st := writeFile(t, benchSpecs, Options{RowGroupBytes: 256 << 10}, benchRows(n), n)
	f, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	if f.NumRowGroups() < 3 {
		t.Fatalf("%d row groups, want several", f.NumRowGroups())
	}
	var total int64
	for r, rg := range f.Meta().RowGroups {
		if r < f.NumRowGroups()-1 && rg.NumRows%DefaultPageRowLimit != 0 {
			t.Errorf("row group %d has %d rows, not a whole number of pages", r, rg.NumRows)
		}
		if rg.FileOffset != st.RowGroupOffsets[r] || rg.FileOffset != rg.Columns[0].Start() {
			t.Errorf("row group %d: file_offset %d, stats offset %d, first chunk %d", r, rg.FileOffset, st.RowGroupOffsets[r], rg.Columns[0].Start())
		}
		if rg.Ordinal != int16(r) {
			t.Errorf("row group %d: ordinal %d", r, rg.Ordinal)
		}
		total += rg.NumRows
	}
	if total != n {
		t.Errorf("row groups hold %d rows, want %d", total, n)
	}
}

// TestDecodePageWindows reads pages one at a time from byte ranges planned
// from the offset index, as a streaming reader would.
func TestDecodePageWindows(t *testing.T) {
	const n = 30_000
	cols := makeRows(n, 5)
	data, _ := writeFile(t, allTypes, Options{}, cols, n)
	f, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	// a footer-only reader: what a getRange client does
	size, err := FooterSize(data[len(data)-8:], int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	meta, err := ParseFooter(data[len(data)-8-size:], int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for c, spec := range allTypes {
		chunk, err := meta.Chunk(0, c)
		if err != nil {
			t.Fatal(err)
		}
		oi, _ := f.OffsetIndex(0, c)
		var dict Dictionary
		if m := chunk.Meta; m.HasDictionaryPage {
			window := data[m.DictionaryPageOffset:m.DataPageOffset]
			if k, err := DecodePage(chunk, window, &dict, nil); err != nil || k != len(window) {
				t.Fatalf("column %s dictionary page: used %d of %d bytes, %v", spec.Name, k, len(window), err)
			}
		}
		// pages in reverse order: each window stands alone
		for i := len(oi.Pages) - 1; i >= 0; i-- {
			p := oi.Pages[i]
			var got rows.Column
			window := data[p.Offset : p.Offset+int64(p.CompressedPageSize)]
			if _, err := DecodePage(chunk, window, &dict, &got); err != nil {
				t.Fatalf("column %s page %d: %v", spec.Name, i, err)
			}
			end := n
			if i+1 < len(oi.Pages) {
				end = int(oi.Pages[i+1].FirstRowIndex)
			}
			want := sliceRows(cols[c:c+1], int(p.FirstRowIndex), end)[0]
			if spec.Type == schema.Float {
				want.Floats = append([]float64(nil), want.Floats...)
				for k, v := range want.Floats {
					want.Floats[k] = float64(float32(v))
				}
			}
			sameColumn(t, spec.Name, got, want, end-int(p.FirstRowIndex))
		}
	}
}

func TestFileStats(t *testing.T) {
	const n = 20_000
	cols := makeRows(n, 0)
	data, st := writeFile(t, allTypes, Options{RowGroupBytes: 100 << 10}, cols, n)
	f, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	if st.Rows != n {
		t.Errorf("Rows %d, want %d", st.Rows, n)
	}
	for c, spec := range allTypes {
		got := st.Columns[c]
		var want ColumnStats
		want.Values = n
		col := cols[c]
		first := true
		for i := range n {
			if col.IsNull(i) {
				want.Nulls++
				continue
			}
			switch {
			case spec.Type.IsInteger():
				v := col.Ints[i]
				if first || v < want.MinInt {
					want.MinInt = v
				}
				if first || v > want.MaxInt {
					want.MaxInt = v
				}
			case spec.Type.IsFloat():
				v := col.Floats[i]
				if spec.Type == schema.Float {
					v = float64(float32(v))
				}
				if math.IsNaN(v) {
					want.NaNs++
					continue
				}
				if first || v < want.MinFloat {
					want.MinFloat = v
				}
				if first || v > want.MaxFloat {
					want.MaxFloat = v
				}
			case spec.Type == schema.Boolean:
				v := col.Bools[i]
				want.MinBool = (first || want.MinBool) && v
				want.MaxBool = (!first && want.MaxBool) || v
			default:
				v := col.Strs[i]
				if first || v < want.MinStr {
					want.MinStr = v
				}
				if first || v > want.MaxStr {
					want.MaxStr = v
				}
			}
			first = false
		}
		want.HasBounds = !first
		var size int64
		for _, rg := range f.Meta().RowGroups {
			size += rg.Columns[c].Meta.TotalCompressedSize
		}
		want.CompressedSize = size
		if got != want {
			t.Errorf("column %s stats:\n got %+v\nwant %+v", spec.Name, got, want)
		}
	}
}

func TestStringBoundTruncation(t *testing.T) {
	long := strings.Repeat("a", 100)
	tests := []struct {
		name            string
		min, max        string
		wantMin         string
		wantMax         string
		minExact, maxEx bool
	}{
		{"short", "abc", "abd", "abc", "abd", true, true},
		{"ascii", long, long, long[:64], long[:63] + "b", false, false},
		{"two-byte runes", strings.Repeat("é", 50), strings.Repeat("é", 50), strings.Repeat("é", 32), strings.Repeat("é", 31) + "ê", false, false},
		{"cut inside a rune", "x" + strings.Repeat("é", 40), "x" + strings.Repeat("é", 40), "x" + strings.Repeat("é", 31), "x" + strings.Repeat("é", 30) + "ê", false, false},
		{"max rune kept whole", long, strings.Repeat("\U0010FFFF", 20), long[:64], strings.Repeat("\U0010FFFF", 20), false, true},
		{"max rune after a normal one", long, "a" + strings.Repeat("\U0010FFFF", 20), long[:64], "b", false, false},
		{"before surrogates", long, strings.Repeat("\uD7FF", 30), long[:64], strings.Repeat("\uD7FF", 20) + "\uE000", false, false},
		{"invalid utf-8", long, strings.Repeat("\xff", 70) + "\xfe" + strings.Repeat("\xff", 70), long[:64], strings.Repeat("\xff", 70) + "\xfe" + strings.Repeat("\xff", 70), false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := &bounds{has: true, minS: tc.min, maxS: tc.max}
			lo, loEx := appendBound(nil, schema.String, b, false)
			hi, hiEx := appendBound(nil, schema.String, b, true)
			if string(lo) != tc.wantMin || loEx != tc.minExact {
				t.Errorf("min: got %q (exact %v), want %q (exact %v)", lo, loEx, tc.wantMin, tc.minExact)
			}
			if string(hi) != tc.wantMax || hiEx != tc.maxEx {
				t.Errorf("max: got %q (exact %v), want %q (exact %v)", hi, hiEx, tc.wantMax, tc.maxEx)
			}
			if string(lo) > tc.min || string(hi) < tc.max {
				t.Errorf("bounds [%q, %q] do not cover [%q, %q]", lo, hi, tc.min, tc.max)
			}
		})
	}
}

func TestWriteErrors(t *testing.T) {
	specs := []ColumnSpec{
		{Name: "ts", Type: schema.Timestamptz, Required: true},
		{Name: "n", Type: schema.Int},
	}
	tests := []struct {
		name string
		cols []rows.Column
		n    int
		want string
	}{
		{"null in required", []rows.Column{{Ints: []int64{1, 2}, Nulls: []bool{false, true}}, {Ints: []int64{1, 2}}}, 2, `row 1: column "ts" is required but null`},
		{"int out of range", []rows.Column{{Ints: []int64{1, 2}}, {Ints: []int64{1, 1 << 40}}}, 2, `row 1: column "n" value 1099511627776 does not fit an int`},
		{"short column", []rows.Column{{Ints: []int64{1}}, {Ints: []int64{1, 2}}}, 2, `column "ts" has 1 values, want 2`},
		{"column count", []rows.Column{{Ints: []int64{1}}}, 1, "got 1 columns, the writer has 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, err := NewWriter(specs, Options{})
			if err != nil {
				t.Fatal(err)
			}
			err = w.Write(tc.cols, tc.n)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got error %v, want one containing %q", err, tc.want)
			}
			// nothing was written: the writer still works
			if err := w.Write([]rows.Column{{Ints: []int64{7}}, {Ints: []int64{8}}}, 1); err != nil {
				t.Fatal(err)
			}
			data, st, err := w.Finish()
			if err != nil || st.Rows != 1 {
				t.Fatalf("Finish: %d rows, %v", st.Rows, err)
			}
			if _, err := Open(data); err != nil {
				t.Fatal(err)
			}
		})
	}
	if _, err := NewWriter([]ColumnSpec{{Name: "a", Type: schema.Long}, {Name: "a", Type: schema.Long}}, Options{}); err == nil {
		t.Error("duplicate column names accepted")
	}
	if _, err := NewWriter(specs, Options{Sorting: []SortingColumn{{Column: 5}}}); err == nil {
		t.Error("sorting column out of range accepted")
	}
}

// TestDictionaryFallback: a column of distinct long strings passes the
// dictionary limit; later pages are PLAIN and everything reads back.
func TestDictionaryFallback(t *testing.T) {
	const n = 40_000
	specs := []ColumnSpec{{Name: "id", Type: schema.String, Required: true}}
	col := rows.Column{}
	for i := range n {
		col.Strs = append(col.Strs, strings.Repeat("x", 40)+string(rune('a'+i%26))+itoa(i))
	}
	data, _ := writeFile(t, specs, Options{}, []rows.Column{col}, n)
	f, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	m := f.Meta().RowGroups[0].Columns[0].Meta
	var dictPages, plainPages int32
	for _, s := range m.EncodingStats {
		switch {
		case s.Encoding == EncRLEDictionary:
			dictPages += s.Count
		case s.PageType != int32(pageDictionary) && s.Encoding == EncPlain:
			plainPages += s.Count
		}
	}
	if dictPages == 0 || plainPages == 0 {
		t.Errorf("encoding stats %+v: want both dictionary and PLAIN data pages", m.EncodingStats)
	}
	got, err := f.ReadColumn(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	sameColumn2(t, got.Strs, col.Strs)
	// the dictionary page stays within the limit
	h, _, err := readPageHeader(data[m.DictionaryPageOffset:])
	if err != nil || h.UncompressedSize > DictionaryLimit {
		t.Errorf("dictionary page of %d bytes (limit %d), %v", h.UncompressedSize, DictionaryLimit, err)
	}
}

func sameColumn2(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d values, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("row %d: got %q, want %q", i, got[i], want[i])
		}
	}
}

func itoa(i int) string {
	return string(binary.AppendUvarint(nil, uint64(i))) // distinct bytes per i; not decimal
}

var update = flag.Bool("update", false, "regenerate testdata/pyarrow with pyarrow_write.py")

// TestReadCommittedPyarrowFiles reads the small pyarrow and DuckDB files in
// testdata/pyarrow (made by pyarrow_write.py, values in manifest.json; -update
// remakes them): the reader is checked against them even without Python.
func TestReadCommittedPyarrowFiles(t *testing.T) {
	if *update {
		out := runPython(t, "testdata/pyarrow_write.py", "testdata/pyarrow", "12")
		if err := os.WriteFile("testdata/pyarrow/manifest.json", out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile("testdata/pyarrow/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var manifest []struct {
		File     string           `json:"file"`
		Expected map[string][]any `json:"expected"`
	}
	decodeJSON(t, b, &manifest)
	for _, m := range manifest {
		data, err := os.ReadFile(filepath.Join("testdata/pyarrow", m.File))
		if err != nil {
			t.Fatal(err)
		}
		f, err := Open(data)
		if err != nil {
			t.Fatalf("%s: %v", m.File, err)
		}
		for c, info := range f.Schema() {
			var col rows.Column
			n := 0
			for rg := range f.NumRowGroups() {
				part, err := f.ReadColumnAs(rg, c, info.Type.InMicros()) // the manifest floors nanoseconds
				if err != nil {
					t.Fatalf("%s: %v", m.File, err)
				}
				col = concat(col, part, n)
				n += int(f.Meta().RowGroups[rg].NumRows)
			}
			checkValues(t, m.File, info.Name, info.Type.InMicros(), col, m.Expected[info.Name])
		}
	}
}

func TestEmptyFile(t *testing.T) {
	w, err := NewWriter(allTypes, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(make([]rows.Column, len(allTypes)), 0); err != nil {
		t.Fatal(err)
	}
	data, st, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	if f.NumRows() != 0 || f.NumRowGroups() != 0 || st.Rows != 0 || len(f.Schema()) != len(allTypes) {
		t.Errorf("empty file: %d rows, %d row groups, %d columns", f.NumRows(), f.NumRowGroups(), len(f.Schema()))
	}
	if st.Columns[0].HasBounds {
		t.Error("empty column has bounds")
	}
	if _, _, err := w.Finish(); err == nil {
		t.Error("second Finish succeeded")
	}
}

// TestNaNOnlyPage: a page with only NaNs has no bounds, so its chunk gets no
// column index (an offset index still), and no min/max statistics if the
// whole chunk is NaN.
func TestNaNOnlyPage(t *testing.T) {
	specs := []ColumnSpec{{Name: "x", Type: schema.Double, Required: true}}
	col := rows.Column{Floats: []float64{math.NaN(), math.NaN(), 1, 2}}
	data, st := writeFile(t, specs, Options{PageRowLimit: 2}, []rows.Column{col}, 4)
	f, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	cc := f.Meta().RowGroups[0].Columns[0]
	if cc.HasColumnIndex || !cc.HasOffsetIndex {
		t.Errorf("column index %v, offset index %v; want none and one", cc.HasColumnIndex, cc.HasOffsetIndex)
	}
	if s := st.Columns[0]; s.NaNs != 2 || !s.HasBounds || s.MinFloat != 1 || s.MaxFloat != 2 {
		t.Errorf("stats %+v, want 2 NaNs, bounds [1, 2]", s)
	}
	data, st = writeFile(t, specs, Options{}, []rows.Column{{Floats: []float64{math.NaN()}}}, 1)
	f, _ = Open(data)
	if m := f.Meta().RowGroups[0].Columns[0].Meta; m.Stats.HasMin || m.Stats.HasMax || st.Columns[0].HasBounds {
		t.Errorf("all-NaN chunk has bounds: %+v / %+v", m.Stats, st.Columns[0])
	}
}
