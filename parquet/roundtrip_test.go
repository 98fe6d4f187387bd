package parquet

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// allTypes is one column of every type, optional unless said, with the
// required ones first.
var allTypes = []ColumnSpec{
	{Name: "ts", FieldID: 1, Type: schema.Timestamptz, Required: true},
	{Name: "host", FieldID: 2, Type: schema.String, Required: true},
	{Name: "l", FieldID: 3, Type: schema.Long},
	{Name: "i", FieldID: 4, Type: schema.Int},
	{Name: "d", FieldID: 5, Type: schema.Double},
	{Name: "f", FieldID: 6, Type: schema.Float},
	{Name: "b", FieldID: 7, Type: schema.Boolean},
	{Name: "s", FieldID: 8, Type: schema.String},
	{Name: "t2", FieldID: 9, Type: schema.Timestamptz},
	{Name: "ri", FieldID: 10, Type: schema.Int, Required: true},
	{Name: "rd", FieldID: 11, Type: schema.Double, Required: true},
	{Name: "rb", FieldID: 12, Type: schema.Boolean, Required: true},
}

// makeRows builds n rows of allTypes with nulls, NaN, extremes, empty and
// non-ASCII strings.
func makeRows(n int, seed int) []rows.Column {
	cols := make([]rows.Column, len(allTypes))
	for c, spec := range allTypes {
		col := &cols[c]
		if !spec.Required {
			col.Nulls = make([]bool, n)
		}
		for i := range n {
			k := i + seed
			null := !spec.Required && (k%7 == 3 || ((c == 7 || c == 8) && k > n/2))
			if col.Nulls != nil {
				col.Nulls[i] = null
			}
			switch spec.Type {
			case schema.Timestamptz:
				v := int64(1_700_000_000_000_000) + int64(k)*1_000_000
				if c == 8 && k%11 == 0 {
					v = -int64(k) * 12345
				}
				col.Ints = append(col.Ints, zeroIf(null, v))
			case schema.Long:
				v := int64(k*k) - 5000
				switch k % 13 {
				case 1:
					v = math.MaxInt64
				case 2:
					v = math.MinInt64
				}
				col.Ints = append(col.Ints, zeroIf(null, v))
			case schema.Int:
				v := int64(int32(k * 7919))
				switch k % 17 {
				case 1:
					v = math.MaxInt32
				case 2:
					v = math.MinInt32
				}
				col.Ints = append(col.Ints, zeroIf(null, v))
			case schema.Double, schema.Float:
				v := float64(k)*0.25 - 100
				switch k % 19 {
				case 1:
					v = math.NaN()
				case 2:
					v = math.Inf(-1)
				case 3:
					v = math.Copysign(0, -1)
				}
				if null {
					v = 0
				}
				col.Floats = append(col.Floats, v)
			case schema.Boolean:
				col.Bools = append(col.Bools, !null && k%3 == 0)
			case schema.String:
				var v string
				if c == 1 {
					v = fmt.Sprintf("host-%03d", k/50)
				} else {
					switch k % 5 {
					case 0:
						v = ""
					case 1:
						v = "héllo wörld ✓ " + strings.Repeat("é", k%90)
					default:
						v = fmt.Sprintf("v%d", k%300)
					}
				}
				if null {
					v = ""
				}
				col.Strs = append(col.Strs, v)
			}
		}
	}
	return cols
}

func zeroIf(null bool, v int64) int64 {
	if null {
		return 0
	}
	return v
}

// sliceRows returns rows [a,b) of cols.
func sliceRows(cols []rows.Column, a, b int) []rows.Column {
	out := make([]rows.Column, len(cols))
	for i, c := range cols {
		o := &out[i]
		if c.Ints != nil {
			o.Ints = c.Ints[a:b]
		}
		if c.Floats != nil {
			o.Floats = c.Floats[a:b]
		}
		if c.Bools != nil {
			o.Bools = c.Bools[a:b]
		}
		if c.Strs != nil {
			o.Strs = c.Strs[a:b]
		}
		if c.Nulls != nil {
			o.Nulls = c.Nulls[a:b]
		}
	}
	return out
}

// concat appends column b to a.
func concat(a, b rows.Column, prevLen int) rows.Column {
	if b.Nulls != nil && a.Nulls == nil {
		a.Nulls = make([]bool, prevLen)
	}
	if a.Nulls != nil {
		if b.Nulls == nil {
			a.Nulls = append(a.Nulls, make([]bool, len(b.Ints)+len(b.Floats)+len(b.Bools)+len(b.Strs))...)
		} else {
			a.Nulls = append(a.Nulls, b.Nulls...)
		}
	}
	a.Ints = append(a.Ints, b.Ints...)
	a.Floats = append(a.Floats, b.Floats...)
	a.Bools = append(a.Bools, b.Bools...)
	a.Strs = append(a.Strs, b.Strs...)
	return a
}

// readAll reads every column of every row group of a file.
func readAll(t testing.TB, data []byte) (*File, []rows.Column) {
	t.Helper()
	f, err := Open(data)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	out := make([]rows.Column, len(f.Schema()))
	n := 0
	for rg := range f.NumRowGroups() {
		for c := range out {
			col, err := f.ReadColumn(rg, c)
			if err != nil {
				t.Fatalf("ReadColumn(%d, %d): %v", rg, c, err)
			}
			out[c] = concat(out[c], col, n)
		}
		n += int(f.Meta().RowGroups[rg].NumRows)
	}
	return f, out
}

// sameColumn compares columns treating NaN as equal to NaN, -0 apart from
// +0, and nil Nulls as all false.
func sameColumn(t *testing.T, name string, got, want rows.Column, n int) {
	t.Helper()
	for i := range n {
		gn, wn := got.IsNull(i), want.IsNull(i)
		if gn != wn {
			t.Fatalf("column %s row %d: null %v, want %v", name, i, gn, wn)
		}
		if wn {
			continue
		}
		var g, w any
		switch {
		case want.Ints != nil:
			g, w = got.Ints[i], want.Ints[i]
		case want.Floats != nil:
			gb, wb := math.Float64bits(got.Floats[i]), math.Float64bits(want.Floats[i])
			if math.IsNaN(want.Floats[i]) {
				gb, wb = boolBits(math.IsNaN(got.Floats[i])), 1
			}
			g, w = gb, wb
		case want.Bools != nil:
			g, w = got.Bools[i], want.Bools[i]
		default:
			g, w = got.Strs[i], want.Strs[i]
		}
		if !reflect.DeepEqual(g, w) {
			t.Fatalf("column %s row %d: got %v, want %v", name, i, g, w)
		}
	}
	if l := got.Len(allTypesByName(name)); l != n {
		t.Fatalf("column %s: %d rows, want %d", name, l, n)
	}
}

func boolBits(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func allTypesByName(name string) schema.Type {
	for _, s := range allTypes {
		if s.Name == name {
			return s.Type
		}
	}
	return 0
}

func TestRoundTrip(t *testing.T) {
	const n = 20_000
	want := makeRows(n, 0)
	// floats written as FLOAT come back narrowed
	for i, v := range want[5].Floats {
		want[5].Floats[i] = float64(float32(v))
	}
	cases := []struct {
		name  string
		opt   Options
		batch int
	}{
		{"default", Options{}, n},
		{"streaming small batches", Options{}, 1000},
		{"compat", Options{Compat: true}, 3333},
		{"uncompressed", Options{Codec: Uncompressed}, n},
		{"snappy", Options{Codec: Snappy}, n},
		{"small pages and row groups", Options{PageRowLimit: 100, RowGroupBytes: 64 << 10}, 777},
		{"zstd level 3", Options{ZstdLevel: 3}, n},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, err := NewWriter(allTypes, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			for a := 0; a < n; a += tc.batch {
				if err := w.Write(sliceRows(want, a, min(a+tc.batch, n)), min(a+tc.batch, n)-a); err != nil {
					t.Fatal(err)
				}
			}
			data, st, err := w.Finish()
			if err != nil {
				t.Fatal(err)
			}
			f, got := readAll(t, data)
			if f.NumRows() != n || st.Rows != n {
				t.Fatalf("rows: file %d, stats %d, want %d", f.NumRows(), st.Rows, n)
			}
			for c, spec := range allTypes {
				sameColumn(t, spec.Name, got[c], want[c], n)
			}
			for i, ci := range f.Schema() {
				s := allTypes[i]
				if ci.Name != s.Name || ci.FieldID != s.FieldID || ci.Type != s.Type || ci.Required != s.Required {
					t.Errorf("schema column %d: got %+v, want %+v", i, ci, s)
				}
			}
			if len(st.RowGroupOffsets) != f.NumRowGroups() {
				t.Errorf("stats give %d row group offsets, file has %d row groups", len(st.RowGroupOffsets), f.NumRowGroups())
			}
		})
	}
}
