package rows

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/timelake/timelake/schema"
)

func nestedType(t *testing.T, js string) *schema.NestedType {
	t.Helper()
	nt, err := schema.ParseNested(json.RawMessage(js))
	if err != nil {
		t.Fatal(err)
	}
	return nt
}

const (
	structJSON = `{"type":"struct","fields":[{"id":2,"name":"a","required":false,"type":"long"},{"id":3,"name":"b","required":false,"type":{"type":"list","element-id":4,"element-required":false,"element":"string"}},{"id":5,"name":"r","required":true,"type":"boolean"}]}`
	mapJSON    = `{"type":"map","key-id":2,"key":"long","value-id":3,"value-required":false,"value":"double"}`
	listJSON   = `{"type":"list","element-id":2,"element-required":true,"element":{"type":"map","key-id":3,"key":"string","value-id":4,"value-required":false,"value":"timestamptz"}}`
)

// TestCanonicalNested: values of a struct, a map of long to double and a
// list of maps of timestamps become the reader's text (fields in the
// type's order, absent ones null; keys and numbers canonical; timestamps
// as scan prints them; NaN and infinities as strings).
func TestCanonicalNested(t *testing.T) {
	cases := []struct{ typ, in, want string }{
		{structJSON, `{ "r" : true, "a": 5 }`, `{"a":5,"b":null,"r":true}`},
		{structJSON, `{"b":["x",null,"y\u00e9"],"a":-1e3,"r":false}`, `{"a":-1000,"b":["x",null,"yé"],"r":false}`},
		{structJSON, `{"a":null,"b":[],"r":true}`, `{"a":null,"b":[],"r":true}`},
		{mapJSON, `{"01":1.50,"-2":"NaN","3":null,"4":"-Infinity","5":1e300}`, `{"1":1.5,"-2":"NaN","3":null,"4":"-Inf","5":1e+300}`},
		{mapJSON, `{}`, `{}`},
		{mapJSON, `{"1":1.5,"2":1e+300,"3":"NaN","4":null}`, `{"1":1.5,"2":1e+300,"3":"NaN","4":null}`},
		{mapJSON, `{"1":1.0}`, `{"1":1}`},
		{structJSON, `{"a":5,"b":null,"r":true}`, `{"a":5,"b":null,"r":true}`},
		{structJSON, `{"b":null,"a":5,"r":true}`, `{"a":5,"b":null,"r":true}`},
		{structJSON, `{"a":5,"b":["\u0041"],"r":true}`, `{"a":5,"b":["A"],"r":true}`},
		{structJSON, `{"a":5,"b":["\n\u0001"],"r":true}`, `{"a":5,"b":["\n\u0001"],"r":true}`},
		{listJSON, `[{"t":"2026-11-28T01:02:03.5+01:00"},{},{"n":null}]`, `[{"t":"2026-11-28T00:02:03.500000Z"},{},{"n":null}]`},
	}
	var tr NestedTree
	for _, c := range cases {
		got, _, err := CanonicalNested(&tr, nestedType(t, c.typ), c.in, nil)
		if err != nil || got != c.want {
			t.Errorf("%s: %q %v, want %q", c.in, got, err, c.want)
		}
		// the fast path (text kept as it is) agrees with printing it
		if printed := string(tr.AppendText(nil, nestedType(t, c.typ))); printed != got {
			t.Errorf("%s: kept %q, printed %q", c.in, got, printed)
		}
		// the reader's text is its own canonical form
		again, _, err := CanonicalNested(&tr, nestedType(t, c.typ), got, nil)
		if err != nil || again != got {
			t.Errorf("%s again: %q %v", got, again, err)
		}
	}
}

// TestNestedRefused: what does not fit the type is refused naming the
// path inside the value.
func TestNestedRefused(t *testing.T) {
	cases := []struct{ typ, in, want string }{
		{structJSON, `{"a":1,"r":true,"c":2}`, "at .c: no such field"},
		{structJSON, `{"a":"1","r":true}`, `at .a: a string "1" given for a long`},
		{structJSON, `{"a":1}`, "at .r: required field left out"},
		{structJSON, `{"r":null}`, "at .r: field is required but null"},
		{structJSON, `{"r":true,"b":["x",3]}`, "at .b[1]: a number 3 given for a string"},
		{structJSON, `{"r":true,"a":1.5}`, "at .a: 1.5 has a fraction"},
		{structJSON, `{"r":true,"r":false}`, "at .r: field given twice"},
		{structJSON, `[1]`, "an array given for a struct<a: long, b: list<string>, r: boolean> (want a JSON object)"},
		{structJSON, `{"r":true} x`, "text after the value"},
		{structJSON, `null`, "null"},
		{mapJSON, `{"1":1,"01":2}`, `key "1" appears twice`},
		{mapJSON, `{"x":1}`, `at [x]: key: cannot parse "x" as long`},
		{mapJSON, `{"1":"1"}`, `at [1]: a string "1" given for a double`},
		{listJSON, `[{"t":"yesterday"}]`, `at [0][t]: cannot parse "yesterday" as a time`},
		{listJSON, `[null]`, "at [0]: element is required but null"},
		{listJSON, `[{"t":1}]`, "at [0][t]: a number 1 given for a timestamptz"},
		{structJSON, "{\"r\":true,\"b\":[\"a\xffb\"]}", "at .b[0]: not valid UTF-8"},
		{structJSON, "{\"r\":true,\"b\":[\"\\n\xff\"]}", "at .b[0]: not valid UTF-8"},
		{structJSON, "{\"r\xff\":true}", "not valid UTF-8"},
		{structJSON, "{\"r\":true}\xff", "text after the value"},
	}
	var tr NestedTree
	for _, c := range cases {
		_, _, err := CanonicalNested(&tr, nestedType(t, c.typ), c.in, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.in, err, c.want)
		}
	}
}

// TestNestedBuilderError: the Builder's error names row, column and the
// path inside the value; a Go value is marshalled.
func TestNestedBuilderError(t *testing.T) {
	sch, err := schema.New("ts", nil, []schema.Field{{Name: "v", Type: schema.Long}}, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	sch.Fields = append(sch.Fields, schema.Field{ID: 10, Name: "attrs", Type: schema.Nested, Nested: nestedType(t, structJSON)})
	_, err = FromMaps(sch, []map[string]any{
		{"ts": "2026-11-28T00:00:00Z", "attrs": map[string]any{"a": 1, "r": true, "b": []any{"x"}}},
		{"ts": "2026-11-28T00:00:00Z", "attrs": `{"r":true,"b":["x",2]}`},
	}, Options{})
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeTypeMismatch || e.Row != 2 || e.Column != "attrs" || !strings.Contains(e.Msg, "at attrs.b[1]") {
		t.Fatalf("%v", err)
	}
	b, err := FromMaps(sch, []map[string]any{{"ts": "2026-11-28T00:00:00Z", "attrs": map[string]any{"r": true, "b": []any{"x"}, "a": 1}}}, Options{})
	if err != nil || len(b.Cols[sch.Index("attrs")].Strs) != 1 || b.Cols[sch.Index("attrs")].Strs[0] != `{"a":1,"b":["x"],"r":true}` {
		t.Fatalf("%v %+v", err, b.Cols)
	}
}

// TestCanonicalNestedNoCopy: text already canonical is kept as it is.
func TestCanonicalNestedNoCopy(t *testing.T) {
	nt := nestedType(t, `{"type":"map","key-id":2,"key":"string","value-id":3,"value-required":false,"value":"string"}`)
	var tr NestedTree
	var buf []byte
	in := `{"job":"api","x":null}`
	_, buf, _ = CanonicalNested(&tr, nt, in, buf)
	allocs := testing.AllocsPerRun(100, func() { _, buf, _ = CanonicalNested(&tr, nt, in, buf) })
	if allocs != 0 {
		t.Errorf("%v allocations for a canonical map", allocs)
	}
}

// FuzzCanonicalNested: any text against a struct, a map of long keys and
// a list of maps: no panic; what is taken is printed as a text that reads
// back as itself, the fast path (text kept) agreeing with printing it.
func FuzzCanonicalNested(f *testing.F) {
	for _, s := range []string{`{"a":5,"b":["x",null],"r":true}`, `{ "r" : false }`, `{"1":1.5,"-2":"NaN"}`,
		`[{"t":"2026-11-28T01:02:03.5+01:00"},{}]`, `{"b":["\u00e9\n"],"r":true}`, `[1]`, `{"r":true,"zz":{"q":[1,{"w":null}]}}`} {
		f.Add(s)
	}
	types := []*schema.NestedType{}
	for _, js := range []string{structJSON, mapJSON, listJSON} {
		nt, err := schema.ParseNested([]byte(js))
		if err != nil {
			f.Fatal(err)
		}
		types = append(types, nt)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, skip := range []bool{false, true} {
			for _, nt := range types {
				tr := NestedTree{SkipUnknown: skip}
				got, _, err := CanonicalNested(&tr, nt, text, nil)
				if err != nil {
					continue
				}
				if printed := string(tr.AppendText(nil, nt)); printed != got {
					t.Fatalf("%s %q: kept %q, printed %q", nt, text, got, printed)
				}
				again, _, err := CanonicalNested(&tr, nt, got, nil)
				if err != nil || again != got {
					t.Fatalf("%s %q: canonical %q reads as %q, %v", nt, text, got, again, err)
				}
			}
		}
	})
}
