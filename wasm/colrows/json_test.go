package colrows

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// TestJSONTag: the JSON text of a JavaScript object, Map or array (tag
// Json) is a map column's value, stored as the reader prints it (compact);
// for a string column it is TYPE_MISMATCH naming row and column, and a bad
// map value is the core's TYPE_MISMATCH as for NDJSON.
func TestJSONTag(t *testing.T) {
	sch := testSchema(t)
	nt, err := schema.ParseNested(json.RawMessage(`{"type":"map","key-id":20,"key":"string","value-id":21,"value":"string","value-required":false}`))
	if err != nil {
		t.Fatal(err)
	}
	sch.Fields = append(sch.Fields[:len(sch.Fields):len(sch.Fields)], schema.Field{ID: 20, Name: "tags", Type: schema.Nested, Nested: nt})
	ts := Column{Name: "ts", Tag: Number, F64: []float64{1e12, 1e12, 1e12}}
	host := strCol("host", "a", "b", "c")
	tj, off := strs(`{"env":"prod", "job":"api"}`, "", `{}`)
	in := &Input{Len: 3, Cols: []Column{ts, host, {Name: "tags", Tag: Mixed, Tags: []byte{byte(Json), byte(Null), byte(Json)}, Str: tj, Off: off}}}
	b, err := Build(sch, in, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := &b.Cols[sch.Index("tags")]
	if got := []string{c.Strs[0], c.Strs[2]}; got[0] != `{"env":"prod","job":"api"}` || got[1] != `{}` || !c.IsNull(1) || c.IsNull(0) {
		t.Errorf("tags %q nulls %v", got, c.Nulls)
	}

	for _, tc := range []struct {
		col  Column
		row  int
		name string
		says string
	}{
		{func() Column {
			s, o := strs(`{"a":"b"}`, `[1]`, `{}`)
			return Column{Name: "tags", Tag: Json, Str: s, Off: o}
		}(), 2, "tags", "map<string, string>"},
		{func() Column {
			s, o := strs(`{"a":"b"}`, `{"a":"b"}`, `[1]`)
			return Column{Name: "host", Tag: Json, Str: s, Off: o}
		}(), 1, "host", "a JavaScript object given for a string column"},
		{func() Column {
			s, o := strs(`1`, `2`, `[1]`)
			return Column{Name: "host", Tag: Mixed, Tags: []byte{byte(String), byte(String), byte(Json)}, Str: s, Off: o}
		}(), 3, "host", "a JavaScript array given"},
	} {
		cols := []Column{ts, host}
		if tc.col.Name == "host" {
			cols = []Column{ts}
		}
		_, err := Build(sch, &Input{Len: 3, Cols: append(cols, tc.col)}, rows.Options{})
		var re *rows.Error
		if !errors.As(err, &re) || re.Code != rows.CodeTypeMismatch || re.Row != tc.row || re.Column != tc.name || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want TYPE_MISMATCH row %d column %s saying %q", tc.name, err, tc.row, tc.name, tc.says)
		}
	}
	if err := (&Input{Len: 1, Cols: []Column{{Name: "x", Tag: Json + 1}}}).Check(); err == nil {
		t.Error("tag Json+1: want refused as unknown")
	}
}

// TestNestedFastIsSlow: the fast path for a nested column (each dictionary
// entry converted once, or each row) stores what the builder row by row
// does: the same texts, in the stored form, nulls where given.
func TestNestedFastIsSlow(t *testing.T) {
	for _, dict := range []bool{true, false} {
		sch, in := labelsInput(t, 300, true)
		if !dict {
			c := &in.Cols[len(in.Cols)-1]
			texts := make([]string, in.Len)
			for r := range texts {
				texts[r] = " " + c.str(r) // spaces: the stored form drops them
			}
			s, off := strs(texts...)
			*c = Column{Name: "tags", Tag: Mixed, Tags: make([]byte, in.Len), Str: s, Off: off}
			for r := range c.Tags {
				c.Tags[r] = byte(Json)
				if r%7 == 0 {
					c.Tags[r] = byte(Null)
				}
			}
		}
		p, err := newPlan(sch, in, rows.Options{})
		if err != nil {
			t.Fatal(err)
		}
		fast, ok := buildFast(sch, in, rows.Milliseconds, p)
		if !ok {
			t.Fatalf("dict %v: the fast path declined", dict)
		}
		slow, err := buildSlow(sch, in, rows.Options{}, p)
		if err != nil {
			t.Fatal(err)
		}
		tc := sch.Index("tags")
		f, s := fast.Cols[tc], slow.Cols[tc]
		for r := range in.Len {
			if f.Strs[r] != s.Strs[r] || f.IsNull(r) != s.IsNull(r) {
				t.Fatalf("dict %v row %d: fast %q (null %v), slow %q (null %v)", dict, r, f.Strs[r], f.IsNull(r), s.Strs[r], s.IsNull(r))
			}
		}
		if !dict && (!f.IsNull(0) || f.IsNull(1) || strings.HasPrefix(f.Strs[1], " ")) {
			t.Errorf("row 1: %q; want row 0 null and row 1 stored compact", f.Strs[1])
		}
	}
}
