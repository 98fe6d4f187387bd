package evolve

import (
	"errors"
	"strings"
	"testing"

	"github.com/timelake/timelake/rows"
)

// TestAddNested: --add of a nested column and of struct fields (at any
// depth of structs) take fresh ids for every node after the last one;
// the current schema is left alone; what cannot be added is refused with
// its code.
func TestAddNested(t *testing.T) {
	cur := testSchema(t) // ids 1..7
	var changes []Change
	for _, arg := range []string{"attrs:struct<a:long, inner: struct<x: string>>", "attrs.c:list<int>", "attrs.inner.y:boolean", "m:map<long,double>"} {
		c, err := Parse("add", arg)
		if err != nil {
			t.Fatalf("%s: %v", arg, err)
		}
		if got := c.Arg(); arg == "m:map<long,double>" && got != "m:map<long, double>" {
			t.Errorf("Arg %q", got)
		}
		changes = append(changes, c)
	}
	next, last, err := Apply(cur, 7, changes)
	if err != nil {
		t.Fatal(err)
	}
	attrs := next.Fields[next.Index("attrs")]
	if attrs.ID != 8 || attrs.Nested.String() != "struct<a: long, inner: struct<x: string, y: boolean>, c: list<int>>" {
		t.Fatalf("attrs %d %s", attrs.ID, attrs.Nested)
	}
	// attrs 8; a 9, inner 10, x 11; c 12, its element 13; y 14; m 15, key 16, value 17
	if got := string(attrs.Nested.JSON()); !strings.Contains(got, `"id":9,"type":"long","name":"a"`) ||
		!strings.Contains(got, `"id":12,"type":{"type":"list","element-id":13`) || !strings.Contains(got, `"id":14,"type":"boolean","name":"y"`) {
		t.Errorf("ids: %s", got)
	}
	m := next.Fields[next.Index("m")]
	if m.ID != 15 || m.Nested.Key.ID != 16 || m.Nested.Value.ID != 17 || last != 17 {
		t.Errorf("m ids %d %d %d, last %d", m.ID, m.Nested.Key.ID, m.Nested.Value.ID, last)
	}
	if next.Index("_ingest_ts") != len(next.Fields)-1 {
		t.Errorf("_ingest_ts not last: %s", describe(next))
	}
	if cur.Index("attrs") >= 0 {
		t.Error("the current schema changed")
	}

	// a field added to a struct leaves the schema it came from alone
	again, _, err := Apply(next, last, []Change{mustParse(t, "attrs.d:string")})
	if err != nil {
		t.Fatal(err)
	}
	if next.Fields[next.Index("attrs")].Nested.String() == again.Fields[again.Index("attrs")].Nested.String() {
		t.Error("attrs.d not added, or added to the schema it came from too")
	}

	for _, c := range []struct{ arg, code, msg string }{
		{"attrs.a:long", rows.CodeDuplicateColumn, `the struct has a field "a"`},
		{"attrs.zz.q:long", rows.CodeUnknownColumn, `no struct field "zz"`},
		{"attrs.inner.x.q:long", rows.CodeUnknownColumn, `no struct field "x"`},
		{"m.q:long", CodeBadChange, `column "m" is map<long, double>, not a struct`},
		{"cpu.q:long", CodeBadChange, `column "cpu" is double, not a struct`},
	} {
		_, _, err := Apply(next, last, []Change{mustParse(t, c.arg)})
		var re *rows.Error
		if !errors.As(err, &re) || re.Code != c.code || !strings.Contains(re.Msg, c.msg) {
			t.Errorf("%s: %v, want %s %q", c.arg, err, c.code, c.msg)
		}
	}
	for _, arg := range []string{"k:map<list<long>,long>", "k:struct<>", "k:list<decimal>", "k:list<long"} {
		if _, err := Parse("add", arg); err == nil {
			t.Errorf("%s: parsed", arg)
		} else if re := (*rows.Error)(nil); !errors.As(err, &re) || re.Code != CodeBadType {
			t.Errorf("%s: %v, want %s", arg, err, CodeBadType)
		}
	}
	if _, err := Parse("widen", "cpu:list<double>"); err == nil {
		t.Error("a nested widen parsed")
	}
}

func mustParse(t *testing.T, arg string) Change {
	t.Helper()
	c, err := Parse("add", arg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
