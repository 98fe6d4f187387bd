package parquet

import (
	"fmt"
	"strings"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// variantRows are JSON values as a table holds them (canonical: compact,
// keys sorted), with nulls: objects, arrays, scalars of each JSON kind,
// a long string, decimals and doubles, unicode.
var variantRows = []*string{
	ptr(`{"host":"a","n":1,"tags":["x",{"y":false,"z":null}]}`),
	nil,
	ptr(`null`),
	ptr(`42`),
	ptr(`-1.50`),
	ptr(`1e+300`),
	ptr(`"` + strings.Repeat("long ", 20) + `"`),
	ptr(`{"ключ":"значение","名前":"\"q\"\\\n"}`),
	ptr(`[]`),
	ptr(`{}`),
	ptr(`true`),
	ptr(`{"host":"b","n":2,"tags":[]}`),
}

// TestWriteVariantRoundTrip writes a variant column between flat ones
// and reads it back with the nested reader: the same JSON per row, nulls
// included, in every page layout and codec; the file's schema is the
// VARIANT group with the column's field id.
func TestWriteVariantRoundTrip(t *testing.T) {
	var all []*string
	for range 5 {
		all = append(all, variantRows...)
	}
	n := len(all)
	host := rows.Column{Strs: make([]string, n)}
	ts := rows.Column{Ints: make([]int64, n)}
	for i := range n {
		host.Strs[i] = fmt.Sprintf("h%d", i%3)
		ts.Ints[i] = int64(i)
	}
	for _, required := range []bool{false, true} {
		for _, o := range []Options{
			{},
			{Compat: true, Codec: Snappy},
			{PageRowLimit: 3, RowGroupRows: 7, Codec: Uncompressed},
			{PageBytes: 40},
		} {
			t.Run(fmt.Sprintf("required=%v/%+v", required, o), func(t *testing.T) {
				vals := all
				if required {
					vals = nil
					for _, v := range all {
						if v != nil {
							vals = append(vals, v)
						}
					}
				}
				n := len(vals)
				specs := []ColumnSpec{
					{Name: "host", FieldID: 1, Type: schema.String},
					{Name: "v", FieldID: 2, Type: schema.Nested, Nested: schema.VariantType(), Required: required},
					{Name: "ts", FieldID: 3, Type: schema.Long, Required: true},
				}
				o.Sorting = []SortingColumn{{Column: 0}, {Column: 2}}
				w, err := NewWriter(specs, o)
				if err != nil {
					t.Fatal(err)
				}
				cols := []rows.Column{{Strs: host.Strs[:n]}, mapColumn(vals), {Ints: ts.Ints[:n]}}
				if required {
					cols[1].Nulls = nil
				}
				sch := &schema.Table{Fields: []schema.Field{{Name: "host", Type: schema.String}, {Name: "v", Type: schema.Nested}, {Name: "ts", Type: schema.Long}}}
				b := &rows.Batch{Schema: sch, Cols: cols, Len: n}
				for _, part := range []*rows.Batch{rows.Slice(b, 0, 7), rows.Slice(b, 7, n)} {
					if err := w.Write(part.Cols, part.Len); err != nil {
						t.Fatal(err)
					}
				}
				data, st, err := w.Finish()
				if err != nil {
					t.Fatal(err)
				}
				if len(st.Columns) != 3 || st.Columns[1].HasBounds || st.Columns[1].CompressedSize == 0 || st.Columns[1].Values != int64(n) {
					t.Fatalf("stats: %+v", st.Columns)
				}
				f, err := Open(data)
				if err != nil {
					t.Fatal(err)
				}
				m := f.Meta()
				if len(m.Nested) != 1 || m.Nested[0].Name != "v" || m.Nested[0].FieldID != 2 || m.Nested[0].Required != required {
					t.Fatalf("nested: %+v", m.Nested)
				}
				var paths []string
				for _, c := range m.Columns {
					paths = append(paths, strings.Join(c.Path, "."))
				}
				if strings.Join(paths, " ") != "host v.metadata v.value ts" {
					t.Fatalf("leaves %v", paths)
				}
				for _, rg := range m.RowGroups {
					if s := rg.Sorting; len(s) != 2 || s[0].Column != 0 || s[1].Column != 3 {
						t.Fatalf("sorting columns %+v, want leaves 0 and 3", s)
					}
				}
				var got []*string
				for rg := range m.RowGroups {
					col, err := f.ReadNested(rg, 0, nil)
					if err != nil {
						t.Fatal(err)
					}
					for i, s := range col.Strs {
						if col.IsNull(i) {
							got = append(got, nil)
						} else {
							got = append(got, &s)
						}
					}
				}
				if len(got) != n {
					t.Fatalf("%d rows, want %d", len(got), n)
				}
				for i := range vals {
					if show(got[i]) != show(vals[i]) {
						t.Errorf("row %d: %s, want %s", i, show(got[i]), show(vals[i]))
					}
				}
			})
		}
	}
}

// TestWriteVariantRefused: text that is not one JSON value, and a null in
// a required variant, are refused naming the row and column.
func TestWriteVariantRefused(t *testing.T) {
	for _, c := range []struct {
		col      rows.Column
		required bool
		want     string
	}{
		{rows.Column{Strs: []string{`1`, `{"a":1,}`}}, false, `row 1: column "v": not a JSON value`},
		{rows.Column{Strs: []string{`{"a":1,"a":2}`}}, false, `row 0: column "v": not a JSON value for a variant: key "a" twice`},
		{rows.Column{Strs: []string{`1`, ``}, Nulls: []bool{false, true}}, true, `row 1: column "v" is required but null`},
	} {
		w, err := NewWriter([]ColumnSpec{{Name: "v", FieldID: 1, Type: schema.Nested, Nested: schema.VariantType(), Required: c.required}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		err = w.Write([]rows.Column{c.col}, len(c.col.Strs))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

// TestWriteVariantInStruct: struct<a: long, v: variant> is written with
// v a VARIANT group under the struct (paths s.v.metadata, s.v.value) and
// read back as the rows' JSON (a null field, a null struct); the file's
// node ids are the type's, so a scan does not re-print the rows
// (ConformNested), and a bad variant is refused naming the row.
func TestWriteVariantInStruct(t *testing.T) {
	_, nt, err := schema.ParseTypeText("struct<a: long, v: variant>")
	if err != nil {
		t.Fatal(err)
	}
	nt.AssignIDs(func() func() int { id := 10; return func() int { id++; return id } }())
	spec := ColumnSpec{Name: "s", FieldID: 1, Type: schema.Nested, Nested: nt}
	texts := []string{`{"a":1,"v":{"b":[1,2.50],"a":"x"}}`, `{"a":2,"v":null}`, ``, `{"a":null,"v":-7}`}
	col := rows.Column{}
	for _, s := range texts {
		col.Strs, col.Nulls = append(col.Strs, s), append(col.Nulls, s == "")
	}
	w, err := NewWriter([]ColumnSpec{spec}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write([]rows.Column{col}, len(texts)); err != nil {
		t.Fatal(err)
	}
	data, _, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	m := f.Meta()
	var paths []string
	for _, c := range m.Columns {
		paths = append(paths, strings.Join(c.Path, "."))
	}
	if strings.Join(paths, " ") != "s.a s.v.metadata s.v.value" {
		t.Fatalf("leaves %v", paths)
	}
	if got, want := fmt.Sprint(m.Nested[0].NodeIDs()), fmt.Sprint(nt.NodeIDs()); got != want {
		t.Errorf("file node ids %s, type's %s", got, want)
	}
	got, err := f.ReadNested(0, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`{"a":1,"v":{"a":"x","b":[1,2.50]}}`, `{"a":2,"v":null}`, ``, `{"a":null,"v":-7}`}
	for i := range want {
		g := got.Strs[i]
		if got.IsNull(i) {
			g = ""
		}
		if g != want[i] {
			t.Errorf("row %d: %q, want %q", i, g, want[i])
		}
	}
	w, err = NewWriter([]ColumnSpec{spec}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	bad := rows.Column{Strs: []string{`{"a":1}`, `{"a":1,"v":{"n":1,"n":2}}`}}
	if err := w.Write([]rows.Column{bad}, 2); err == nil || !strings.Contains(err.Error(), `row 1: column "s": not a JSON value for a variant: key "n" twice`) {
		t.Errorf("a struct's bad variant: %v", err)
	}
}
