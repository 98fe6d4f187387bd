package arrowipc

import (
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// TestStreamLeavesNestedOut: a batch with a nested column (JSON text per
// row) streams without it; the other columns read back as written.
func TestStreamLeavesNestedOut(t *testing.T) {
	sch := &schema.Table{Time: 0, Ingest: -1, Series: []int{2}, Fields: []schema.Field{
		{ID: 1, Name: "ts", Type: schema.Timestamptz, Required: true},
		{ID: 2, Name: "tags", Type: schema.Nested, Nested: &schema.NestedType{Kind: schema.KindList, Elem: &schema.NestedField{ID: 5, Name: "element", Type: &schema.NestedType{Kind: schema.KindPrimitive, Prim: schema.Long}}}},
		{ID: 3, Name: "host", Type: schema.String, Required: true},
	}}
	w, err := NewStreamWriter(sch)
	if err != nil {
		t.Fatal(err)
	}
	b := &rows.Batch{Schema: sch, Len: 2, Cols: []rows.Column{{Ints: []int64{1, 2}}, {Strs: []string{"[1]", "[]"}}, {Strs: []string{"a", "b"}}}}
	data, err := w.Append(nil, b)
	if err != nil {
		t.Fatal(err)
	}
	data = w.End(data)
	cols, err := Columns(data)
	if err != nil || len(cols) != 2 || cols[0].Name != "ts" || cols[1].Name != "host" {
		t.Fatalf("columns %+v, %v; want ts and host", cols, err)
	}
	flat, _ := withoutNested(sch)
	got, err := Read(data, flat, rows.Options{})
	if err != nil || got.Len != 2 || got.Cols[1].Strs[1] != "b" || got.Cols[0].Ints[1] != 2 {
		t.Fatalf("read back %+v, %v", got, err)
	}
}
