package rows

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/timelake/timelake/schema"
)

// TestFollowNested: rows held under an older schema follow a newer one
// whose struct (inside a list) had a field renamed, one dropped, one added
// and its fields reordered: each text re-printed as the new type, fields
// matched by id; the old batch's texts unchanged; an unchanged type keeps
// the column as it is.
func TestFollowNested(t *testing.T) {
	nested := func(js string) *schema.NestedType {
		nt, err := schema.ParseNested(json.RawMessage(js))
		if err != nil {
			t.Fatal(err)
		}
		return nt
	}
	typ, nt, err := schema.ParseTypeText("list<struct<a: long>>")
	if err != nil {
		t.Fatal(err)
	}
	from, err := schema.New("ts", []string{"host"}, []schema.Field{{Name: "st", Type: typ, Nested: nt}}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	from.Fields[from.Index("st")].Nested = nested(`{"type":"list","element-id":9,"element":{"type":"struct","fields":[
		{"id":10,"name":"a","type":"long"},{"id":11,"name":"b","type":{"type":"list","element-id":12,"element":"string"}},{"id":13,"name":"c","type":"string"}]}}`)
	to := *from
	to.Fields = slices.Clone(from.Fields)
	to.Fields[to.Index("st")].Nested = nested(`{"type":"list","element-id":9,"element":{"type":"struct","fields":[
		{"id":13,"name":"cc","type":"string"},{"id":10,"name":"a","type":"long"},{"id":14,"name":"d","type":"double"}]}}`)

	b := &Batch{Schema: from, Len: 3, Cols: make([]Column, len(from.Fields))}
	for i, f := range from.Fields {
		b.Cols[i] = NullsOf(f.Type, 3)
		if f.Required {
			b.Cols[i].Nulls = nil
		}
	}
	st := &b.Cols[from.Index("st")]
	st.Strs = []string{`[{"a":1,"b":["x"],"c":"q"},null,{"a":null,"b":null,"c":null}]`, ``, `[]`}
	st.Nulls = []bool{false, true, false}
	got, err := Follow(b, &to)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`[{"cc":"q","a":1,"d":null},null,{"cc":null,"a":null,"d":null}]`, ``, `[]`}
	if g := got.Cols[to.Index("st")].Strs; !slices.Equal(g, want) {
		t.Errorf("followed: %q\nwant %q", g, want)
	}
	if st.Strs[0] != `[{"a":1,"b":["x"],"c":"q"},null,{"a":null,"b":null,"c":null}]` {
		t.Errorf("the old batch's text changed: %s", st.Strs[0])
	}
	// the same type: the column shared as it is
	same := *from
	same.Fields = slices.Clone(from.Fields)
	got, err = Follow(b, &same)
	if err != nil {
		t.Fatal(err)
	}
	if &got.Cols[same.Index("st")].Strs[0] != &st.Strs[0] {
		t.Errorf("an unchanged nested type copied its texts")
	}
}
