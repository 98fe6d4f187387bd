package datafile

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
	"github.com/timelake/timelake/store/memstore"
)

// TestNestedColumnsRead reads the pyarrow file of parquet's
// testdata/nested (3 row groups of maps, lists and structs) through a
// Cursor (window by window, as a scan without a key and the index
// catch-up do), through ReadSorted (a file sorted in memory) and through
// FetchValues (a merge's winners): every path gives pyarrow's values, a
// struct field renamed in the table reads under its new name (by field
// id), and a nested field the file lacks is null.
func TestNestedColumnsRead(t *testing.T) {
	ctx := context.Background()
	data, err := os.ReadFile("../parquet/testdata/nested/v2_dict.parquet")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("../parquet/testdata/nested/expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string][]*string
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	st := memstore.New()
	if err := st.Put(ctx, "data/f.parquet", data); err != nil {
		t.Fatal(err)
	}
	nested := func(id int, name, typ string) schema.Field {
		nt, err := schema.ParseNested(json.RawMessage(typ))
		if err != nil {
			t.Fatal(err)
		}
		return schema.Field{ID: id, Name: name, Type: schema.Nested, Nested: nt}
	}
	// ts, the file's row number, stands as the key (ReadSorted sorts by it)
	sch := &schema.Table{Time: 0, Ingest: -1, Fields: []schema.Field{
		{ID: 1, Name: "ts", Type: schema.Long, Required: true},
		nested(2, "tags", `{"type":"map","key-id":11,"key":"string","value-id":12,"value":"string","value-required":false}`),
		// "a" (id 14) renamed to "alpha" in the table
		nested(4, "st", `{"type":"struct","fields":[{"id":14,"name":"alpha","required":false,"type":"long"},{"id":15,"name":"b","required":false,"type":"string"}]}`),
		nested(5, "ll", `{"type":"list","element-id":16,"element":{"type":"list","element-id":17,"element":"long","element-required":false},"element-required":false}`),
		nested(99, "added", `{"type":"list","element-id":98,"element":"long","element-required":false}`),
	}}
	expect := func(col string, i int) (string, bool) {
		if col == "added" {
			return "", true
		}
		w := want[col][i]
		if w == nil {
			return "", true
		}
		if col == "st" {
			s := *w
			if len(s) > 5 && s[:5] == `{"a":` {
				s = `{"alpha":` + s[5:]
			}
			return s, false
		}
		return *w, false
	}
	check := func(how string, cols []rows.Column, rowOf func(k int) int) {
		t.Helper()
		for c, fld := range sch.Fields[1:] {
			col := &cols[c+1]
			for k := range col.Strs {
				i := rowOf(k)
				w, null := expect(fld.Name, i)
				if col.IsNull(k) != null || !null && col.Strs[k] != w {
					t.Errorf("%s: %s row %d: %q (null %v), want %q (null %v)", how, fld.Name, i, col.Strs[k], col.IsNull(k), w, null)
				}
			}
		}
	}
	var read int64
	f, err := Open(ctx, st, "data/f.parquet", int64(len(data)), sch, nil, &read)
	if err != nil {
		t.Fatal(err)
	}
	if f.ClaimsSorted(sch) {
		t.Errorf("a file with nested columns claims to be sorted")
	}

	// a cursor, windows of 5 rows over row groups of 16
	var dec parquet.PageDecoder
	cur := NewCursor(f, sch, &dec, 1, 5, 1<<20)
	cur.AnyOrder = true
	seen := 0
	for {
		ok, err := cur.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		first := int(cur.Rows) - cur.N
		for c := range cur.Cols {
			if c > 0 && len(cur.Cols[c].Strs) != cur.N {
				t.Fatalf("cursor: column %d has %d rows in a window of %d", c, len(cur.Cols[c].Strs), cur.N)
			}
		}
		check("cursor", cur.Cols, func(k int) int { return first + k })
		seen += cur.N
	}
	if seen != 40 {
		t.Errorf("cursor read %d rows, want 40", seen)
	}

	// the whole file, sorted in memory, as a foreign file is
	f, err = Open(ctx, st, "data/f.parquet", int64(len(data)), sch, nil, &read)
	if err != nil {
		t.Fatal(err)
	}
	cols, n, _, err := f.ReadSorted(ctx, sch, nil)
	if err != nil || n != 40 {
		t.Fatalf("ReadSorted: %d rows, %v", n, err)
	}
	ts := cols[0].Ints
	check("ReadSorted", cols, func(k int) int { return int(ts[k]) })

	// winners picked from row group 1
	out := &rows.Batch{Schema: sch, Len: 3, Cols: make([]rows.Column, len(sch.Fields))}
	for i := range out.Cols {
		out.Cols[i].Strs = make([]string, 3)
	}
	in := []WantRow{{Row: 0, Out: 2}, {Row: 5, Out: 0}, {Row: 15, Out: 1}}
	for i, fld := range sch.Fields[1:] {
		if err := f.FetchValues(ctx, 1, i+1, fld, in, out, &dec); err != nil {
			t.Fatalf("FetchValues %s: %v", fld.Name, err)
		}
	}
	check("FetchValues", out.Cols, func(k int) int { return 16 + []int{5, 15, 0}[k] })

	// without the tail held, a nested column's leaves (tags: key and
	// value) come in one request
	var stats ScanStats
	f.st = &CountingStore{Store: st, Stats: &stats}
	f.tail = nil
	out.Cols[1] = rows.Column{Strs: make([]string, 3)}
	if err := f.FetchValues(ctx, 1, 1, sch.Fields[1], in, out, &dec); err != nil {
		t.Fatal(err)
	}
	if stats.Requests != 1 {
		t.Errorf("tags of a row group: %d requests, want 1", stats.Requests)
	}
	check("FetchValues, fetched", out.Cols, func(k int) int { return 16 + []int{5, 15, 0}[k] })
}
