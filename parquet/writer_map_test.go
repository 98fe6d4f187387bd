package parquet

import (
	"fmt"
	"strings"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// mapRows are labels as a table holds them: null maps, empty maps, null
// values, unicode and escaped keys, one key, many keys.
var mapRows = []*string{
	ptr(`{"host":"a","region":"eu"}`),
	nil,
	ptr(`{}`),
	ptr(`{"k":null}`),
	ptr(`{"ключ":"значение","名前":"値","emoji 🙂":"\"quoted\"\\back\nline"}`),
	ptr(`{"host":"a","region":"eu"}`),
	ptr(`{"only":""}`),
	nil,
	ptr(`{"a":"1","b":null,"c":"3","d":"4","e":"5"}`),
	ptr(`{}`),
}

func ptr(s string) *string { return &s }

// stringMap is map<string, string> with key and value ids k and v.
func stringMap(k, v int, valueRequired bool) *schema.NestedType {
	return &schema.NestedType{Kind: schema.KindMap,
		Key:   &schema.NestedField{ID: k, Name: "key", Required: true, Type: &schema.NestedType{Kind: schema.KindPrimitive, Prim: schema.String}},
		Value: &schema.NestedField{ID: v, Name: "value", Required: valueRequired, Type: &schema.NestedType{Kind: schema.KindPrimitive, Prim: schema.String}}}
}

func mapColumn(vs []*string) rows.Column {
	c := rows.Column{Strs: make([]string, len(vs)), Nulls: make([]bool, len(vs))}
	for i, v := range vs {
		if v == nil {
			c.Nulls[i] = true
		} else {
			c.Strs[i] = *v
		}
	}
	return c
}

// TestWriteMapRoundTrip writes a map<string, string> column beside flat
// columns (before and after it, so the leaves shift the sorting columns)
// and reads it back with the nested reader: the same JSON text per row,
// nulls and empties included, in every page layout and codec, with the
// field ids of the map, key and value.
func TestWriteMapRoundTrip(t *testing.T) {
	specs := []ColumnSpec{
		{Name: "host", FieldID: 1, Type: schema.String},
		{Name: "tags", FieldID: 2, Type: schema.Nested, Nested: stringMap(10, 11, false)},
		{Name: "ts", FieldID: 3, Type: schema.Long, Required: true},
	}
	var n int
	var all []*string
	for k := 0; k < 5; k++ { // 50 rows: several pages and row groups
		all = append(all, mapRows...)
	}
	n = len(all)
	host := rows.Column{Strs: make([]string, n)}
	ts := rows.Column{Ints: make([]int64, n)}
	for i := range n {
		host.Strs[i] = fmt.Sprintf("h%d", i%3)
		ts.Ints[i] = int64(i)
	}
	for _, o := range []Options{
		{},
		{Compat: true, Codec: Snappy},
		{PageRowLimit: 3, RowGroupRows: 7, Codec: Uncompressed},
		{PageRowLimit: 4, RowGroupRows: 9, Compat: true},
		{PageBytes: 40},
	} {
		t.Run(fmt.Sprintf("%+v", o), func(t *testing.T) {
			o.Sorting = []SortingColumn{{Column: 0}, {Column: 2}}
			w, err := NewWriter(specs, o)
			if err != nil {
				t.Fatal(err)
			}
			cols := []rows.Column{host, mapColumn(all), ts}
			// in two writes, the second starting mid-page
			sch := &schema.Table{Fields: []schema.Field{{Name: "host", Type: schema.String}, {Name: "tags", Type: schema.Nested}, {Name: "ts", Type: schema.Long}}}
			b := &rows.Batch{Schema: sch, Cols: cols, Len: n}
			if err := w.Write(rows.Slice(b, 0, 13).Cols, 13); err != nil {
				t.Fatal(err)
			}
			rest := rows.Slice(b, 13, n)
			if err := w.Write(rest.Cols, rest.Len); err != nil {
				t.Fatal(err)
			}
			data, st, err := w.Finish()
			if err != nil {
				t.Fatal(err)
			}
			if len(st.Columns) != 3 || st.Columns[1].HasBounds || st.Columns[1].CompressedSize == 0 {
				t.Fatalf("stats: %+v", st.Columns)
			}
			f, err := Open(data)
			if err != nil {
				t.Fatal(err)
			}
			m := f.Meta()
			if len(m.Nested) != 1 || m.Nested[0].Name != "tags" || m.Nested[0].FieldID != 2 {
				t.Fatalf("nested: %+v", m.Nested)
			}
			ids := map[string]int32{}
			for _, c := range m.Columns {
				ids[strings.Join(c.Path, ".")] = c.FieldID
			}
			if ids["tags.key_value.key"] != 10 || ids["tags.key_value.value"] != 11 || ids["ts"] != 3 {
				t.Fatalf("field ids: %v", ids)
			}
			for _, rg := range m.RowGroups {
				if s := rg.Sorting; len(s) != 2 || s[0].Column != 0 || s[1].Column != 3 {
					t.Fatalf("sorting columns %+v, want leaves 0 and 3", s)
				}
			}
			var got []*string
			var gotTs []int64
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
				tc, err := f.ReadColumn(rg, 3)
				if err != nil {
					t.Fatal(err)
				}
				gotTs = append(gotTs, tc.Ints...)
			}
			if len(got) != n || len(gotTs) != n {
				t.Fatalf("%d rows, %d ts; want %d", len(got), len(gotTs), n)
			}
			for i := range all {
				if show(got[i]) != show(all[i]) || gotTs[i] != int64(i) {
					t.Errorf("row %d: %s ts %d, want %s", i, show(got[i]), gotTs[i], show(all[i]))
				}
			}
		})
	}
}

// TestWriteMapRefused: a value that is not a JSON object of strings, a
// null in a required map or value, another nested shape: refused naming
// the row and column, nothing written.
func TestWriteMapRefused(t *testing.T) {
	for _, c := range []struct {
		text    *string
		req     bool
		valReq  bool
		message string
	}{
		{ptr(`[1]`), false, false, "row 1: column \"tags\": an array given for a map<string, string> (want a JSON object)"},
		{ptr(`{"a":1}`), false, false, `row 1: column "tags": at [a]: a number 1 given for a string`},
		{ptr(`{"a":{"b":"c"}}`), false, false, `at [a]: an object or array given for a string`},
		{ptr(`{"a":"b","a":"c"}`), false, false, `key "a" appears twice`},
		{ptr(`{"a":"b"} x`), false, false, "text after the value"},
		{ptr(`{"a":"b"`), false, false, "not a JSON object"},
		{nil, true, false, `row 1: column "tags" is required but null`},
		{ptr(`{"a":null}`), false, true, `at [a]: value is required but null`},
	} {
		specs := []ColumnSpec{{Name: "tags", FieldID: 2, Type: schema.Nested, Required: c.req, Nested: stringMap(10, 11, c.valReq)}}
		w, err := NewWriter(specs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		err = w.Write([]rows.Column{mapColumn([]*string{ptr(`{"x":"y"}`), c.text})}, 2)
		if err == nil || !strings.Contains(err.Error(), c.message) {
			t.Errorf("%s: %v, want %q", show(c.text), err, c.message)
		}
	}
	if _, err := NewWriter([]ColumnSpec{{Name: "l", Type: schema.Nested}}, Options{}); err == nil || !strings.Contains(err.Error(), "has no type") {
		t.Errorf("nested column without a type: %v", err)
	}
}

// BenchmarkWriteMap writes 100,000 rows of five labels each (a few
// distinct maps, as series' labels repeat) beside a time column.
func BenchmarkWriteMap(b *testing.B) {
	const n = 100_000
	tags := rows.Column{Strs: make([]string, n)}
	ts := rows.Column{Ints: make([]int64, n)}
	for i := range n {
		tags.Strs[i] = fmt.Sprintf(`{"job":"api","instance":"10.0.0.%d:9090","region":"eu","env":"prod","pod":"p-%d"}`, i%50, i%200)
		ts.Ints[i] = int64(i)
	}
	specs := []ColumnSpec{
		{Name: "ts", FieldID: 1, Type: schema.Long, Required: true},
		{Name: "tags", FieldID: 2, Type: schema.Nested, Nested: stringMap(10, 11, false)},
	}
	b.ReportAllocs()
	for b.Loop() {
		w, err := NewWriter(specs, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := w.Write([]rows.Column{ts, tags}, n); err != nil {
			b.Fatal(err)
		}
		data, _, err := w.Finish()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(data)), "file-bytes")
	}
}
