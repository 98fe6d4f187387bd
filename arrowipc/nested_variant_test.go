package arrowipc

import (
	"strings"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// TestWriterVariantAsText: a variant column, and a variant inside a
// struct, go out as utf8 holding the value's JSON text (a null variant a
// null): read back into a table whose variants are strings, each row is
// the text written.
func TestWriterVariantAsText(t *testing.T) {
	typ := func(s string) (schema.Type, *schema.NestedType) {
		tt, nt, err := schema.ParseTypeText(s)
		if err != nil {
			t.Fatal(err)
		}
		return tt, nt
	}
	vt, vn := typ("variant")
	st, sn := typ("struct<a: long, v: variant>")
	sn.AssignIDs(func() func() int { id := 10; return func() int { id++; return id } }())
	sch := &schema.Table{Time: 0, Ingest: -1, Fields: []schema.Field{
		{ID: 1, Name: "ts", Type: schema.Timestamptz, Required: true},
		{ID: 2, Name: "v", Type: vt, Nested: vn},
		{ID: 3, Name: "st", Type: st, Nested: sn},
	}}
	vals := []string{`{"a":[1,"x",null],"b":{"c":true}}`, ``, `12.5`, `"s"`}
	sts := []string{`{"a":1,"v":{"k":[1,2]}}`, `{"a":2,"v":null}`, ``, `{"a":null,"v":"q"}`}
	b := &rows.Batch{Schema: sch, Len: len(vals), Cols: make([]rows.Column, 3)}
	for i := range vals {
		b.Cols[0].Ints = append(b.Cols[0].Ints, int64(i))
		for j, s := range []string{vals[i], sts[i]} {
			c := &b.Cols[1+j]
			c.Strs, c.Nulls = append(c.Strs, s), append(c.Nulls, s == "")
		}
	}
	w, err := NewStreamWriter(sch)
	if err != nil {
		t.Fatal(err)
	}
	data, err := w.Append(nil, b)
	if err != nil {
		t.Fatal(err)
	}
	data = w.End(data)

	_, sText := typ("struct<a: long, v: string>")
	sText.AssignIDs(func() func() int { id := 10; return func() int { id++; return id } }())
	asText := &schema.Table{Time: 0, Ingest: -1, Fields: []schema.Field{
		{ID: 1, Name: "ts", Type: schema.Timestamptz, Required: true},
		{ID: 2, Name: "v", Type: schema.String},
		{ID: 3, Name: "st", Type: schema.Nested, Nested: sText},
	}}
	got, err := Read(data, asText, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantSt := []string{`{"a":1,"v":"{\"k\":[1,2]}"}`, `{"a":2,"v":null}`, ``, `{"a":null,"v":"\"q\""}`}
	for i := range vals {
		if g := text(&got.Cols[1], i); g != vals[i] {
			t.Errorf("row %d v = %q, want %q", i, g, vals[i])
		}
		if g := text(&got.Cols[2], i); g != wantSt[i] {
			t.Errorf("row %d st = %q, want %q", i, g, wantSt[i])
		}
	}
	// a variant read from Arrow inside a struct is refused, naming it
	if _, err := Read(data, sch, rows.Options{}); err == nil || !strings.Contains(err.Error(), "st.v") {
		t.Errorf("reading a struct's variant from Arrow: %v, want an error naming st.v", err)
	}
}

func text(c *rows.Column, i int) string {
	if c.IsNull(i) {
		return ""
	}
	return c.Strs[i]
}
