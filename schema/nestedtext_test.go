package schema

import (
	"strings"
	"testing"
)

// TestParseTypeText: nested type text as create and alter take it reads
// back as NestedType.String prints it; bad text is refused naming where.
func TestParseTypeText(t *testing.T) {
	for in, want := range map[string]string{
		"map<string,string>":                       "map<string, string>",
		"struct<a:long,b:list<string>>":            "struct<a: long, b: list<string>>",
		" list< list<timestamptz> > ":              "list<list<timestamptz>>",
		"map<long, struct<x: double, y: boolean>>": "map<long, struct<x: double, y: boolean>>",
		"array<int>":                               "list<int>",
	} {
		typ, nt, err := ParseTypeText(in)
		if err != nil || typ != Nested || nt.String() != want {
			t.Errorf("%q: %v %v %v, want %s", in, typ, nt, err, want)
			continue
		}
		if again, err := ParseNested(nt.JSON()); err != nil || again.String() != want {
			t.Errorf("%q: JSON round trip %v %v", in, again, err)
		}
	}
	if typ, nt, err := ParseTypeText("double"); err != nil || typ != Double || nt != nil {
		t.Errorf("double: %v %v %v", typ, nt, err)
	}
	for in, want := range map[string]string{
		"map<string>":              "want a comma",
		"map<list<long>, string>":  "a map's key is a primitive type",
		"struct<a:long, a:string>": `field "a" twice`,
		"struct<a long>":           `want : after field "a"`,
		"list<decimal(9,2)>":       "decimal",
		"list<long>>":              "after the type",
		"struct<>":                 "want a field name",
		strings.Repeat("list<", 40) + "long" + strings.Repeat(">", 40): "deeper than",
	} {
		if _, _, err := ParseTypeText(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}

// TestNewNested: New gives the nodes of nested columns fresh ids after
// the columns' (the caller's type untouched), and refuses a nested time
// or series column.
func TestNewNested(t *testing.T) {
	_, attrs, _ := ParseTypeText("struct<a: long, b: list<string>>")
	_, tags, _ := ParseTypeText("map<string, string>")
	s, err := New("ts", []string{"host"}, []Field{{Name: "attrs", Type: Nested, Nested: attrs}, {Name: "tags", Type: Nested, Nested: tags}}, Day)
	if err != nil {
		t.Fatal(err)
	}
	// ts 1, host 2, attrs 3, tags 4, _ingest_ts 5; a 6, b 7, element 8; key 9, value 10
	got := s.Fields[s.Index("attrs")].Nested
	if got.Fields[0].ID != 6 || got.Fields[1].ID != 7 || got.Fields[1].Type.Elem.ID != 8 {
		t.Errorf("attrs ids %s", got.JSON())
	}
	if m := s.Fields[s.Index("tags")].Nested; m.Key.ID != 9 || m.Value.ID != 10 || m.Key.Required != true || m.Value.Required {
		t.Errorf("tags %s", m.JSON())
	}
	if attrs.Fields[0].ID != 0 {
		t.Error("the caller's type was given ids")
	}
	if _, err := New("ts", []string{"tags"}, []Field{{Name: "tags", Type: Nested, Nested: tags}}, Day); err == nil || !strings.Contains(err.Error(), `series column "tags" must be string, long or int, not map<string, string>`) {
		t.Errorf("nested series: %v", err)
	}
	if _, err := New("ts", nil, []Field{{Name: "ts", Type: Nested, Nested: tags}}, Day); err == nil || !strings.Contains(err.Error(), "time column") {
		t.Errorf("nested time: %v", err)
	}
}
