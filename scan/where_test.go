package scan

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// whereSchema: ts, host, cpu double, tags map<string,string>, attrs
// struct<a: long, b: string, f: double, ok: boolean, labels: map<string,string>, l: list<long>>,
// and a column whose name holds a dot.
func whereSchema(t testing.TB) *schema.Table {
	t.Helper()
	nested := func(raw string) *schema.NestedType {
		nt, err := schema.ParseNested(json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		return nt
	}
	strMap := `{"type":"map","key-id":%d,"key":"string","value-id":%d,"value":"string","value-required":false}`
	m := func(k, v int) string {
		return strings.Replace(strings.Replace(strMap, "%d", itoa(k), 1), "%d", itoa(v), 1)
	}
	fields := []schema.Field{
		{Name: "cpu", Type: schema.Double},
		{Name: "tags", Type: schema.Nested, Nested: nested(m(10, 11))},
		{Name: "attrs", Type: schema.Nested, Nested: nested(`{"type":"struct","fields":[` +
			`{"id":20,"name":"a","required":false,"type":"long"},{"id":21,"name":"b","required":false,"type":"string"},` +
			`{"id":22,"name":"f","required":false,"type":"double"},{"id":23,"name":"ok","required":false,"type":"boolean"},` +
			`{"id":24,"name":"labels","required":false,"type":` + m(25, 26) + `},` +
			`{"id":27,"name":"l","required":false,"type":{"type":"list","element-id":28,"element":"long","element-required":false}}]}`)},
		{Name: "k8s.labels", Type: schema.Nested, Nested: nested(m(30, 31))},
	}
	// schema.New takes primitive columns (create has no nested type): the
	// nested ones are set after, as a table another engine made reads them.
	flat := make([]schema.Field, len(fields))
	for i, f := range fields {
		flat[i] = schema.Field{Name: strings.ReplaceAll(f.Name, ".", "_"), Type: schema.String}
	}
	sch, err := schema.New("ts", []string{"host"}, flat, schema.Day)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fields {
		// another engine's column name may hold a dot, which Timelake's own may not
		i := sch.Index(strings.ReplaceAll(f.Name, ".", "_"))
		sch.Fields[i] = f
	}
	return sch
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestWhereMatch: each condition against row texts — present, missing,
// null map, null value, escaped keys and values, nested paths, numbers,
// booleans, NaN — with = and != splitting the rows between them.
func TestWhereMatch(t *testing.T) {
	sch := whereSchema(t)
	type row struct {
		text string
		null bool
	}
	tagRows := []row{
		{`{"env":"prod","job":"api"}`, false},                    // 0
		{`{"job":"api","env":"dev"}`, false},                     // 1
		{`{"job":"api"}`, false},                                 // 2 key missing
		{``, true},                                               // 3 null map
		{`{"env":null}`, false},                                  // 4 null value
		{`{}`, false},                                            // 5 empty
		{`{"e\u006ev":"pr\u006fd"}`, false},                      // 6 escapes in key and value
		{`{"a\"]b":"x","env":"prod\n"}`, false},                  // 7 a key with ] and ", a value with a newline
		{` { "env" : "prod" , "x" : [1,{"env":"no"}] } `, false}, // 8 spaces; a nested value skipped
		{`{"x":{"env":"prod"},"env":"test"}`, false},             // 9 the same key deeper is not the member
	}
	attrRows := []row{
		{`{"a":5,"b":"x","f":1.5,"ok":true,"labels":{"env":"prod"},"l":[1,2]}`, false},
		{`{"a":-5,"b":null,"f":"NaN","ok":false,"labels":null,"l":null}`, false},
		{`{"a":null,"b":"y","f":1e3,"ok":null,"labels":{},"l":[]}`, false},
		{``, true},
	}
	cases := []struct {
		expr string
		rows []row
		want []int // the rows = matches; != must match the others
	}{
		{"tags[env]=prod", tagRows, []int{0, 6, 8}},
		{"tags[env]=dev", tagRows, []int{1}},
		{`tags["a\"]b"]=x`, tagRows, []int{7}},
		{"tags[env]=prod\n", tagRows, []int{7}},
		{"tags[env]=", tagRows, nil},
		{"tags[job]=api", tagRows, []int{0, 1, 2}},
		{"attrs.a=5", attrRows, []int{0}},
		{"attrs.a=-5", attrRows, []int{1}},
		{"attrs.b=x", attrRows, []int{0}},
		{"attrs.f=1.5", attrRows, []int{0}},
		{"attrs.f=1000", attrRows, []int{2}},
		{"attrs.f=NaN", attrRows, []int{1}},
		{"attrs.ok=false", attrRows, []int{1}},
		{"attrs.labels[env]=prod", attrRows, []int{0}},
		{"k8s.labels[env]=prod", []row{{`{"env":"prod"}`, false}, {`{"env":"dev"}`, false}}, []int{0}},
	}
	for _, c := range cases {
		for _, op := range []string{"=", "!="} {
			expr := strings.Replace(c.expr, "=", op, 1)
			ws, err := ParseWheres(sch, []string{expr})
			if err != nil {
				t.Fatalf("%q: %v", expr, err)
			}
			w := &ws[0]
			for i, r := range c.rows {
				want := false
				for _, k := range c.want {
					want = want || k == i
				}
				if op == "!=" {
					want = !want
				}
				if got := w.Match(r.text, r.null); got != want {
					t.Errorf("%q on row %d %q (null %v): %v, want %v", expr, i, r.text, r.null, got, want)
				}
			}
		}
	}
}

// TestWhereMatcher: several conditions are ANDed, over a batch whose
// columns are the projection's.
func TestWhereMatcher(t *testing.T) {
	sch := whereSchema(t)
	ws, err := ParseWheres(sch, []string{"tags[env]=prod", "tags[job]!=db"})
	if err != nil {
		t.Fatal(err)
	}
	proj := Subset(sch, func(i int) bool { return i == sch.Time || i == sch.Series[0] || sch.Fields[i].Name == "tags" })
	b := &rows.Batch{Schema: proj, Len: 4, Cols: make([]rows.Column, len(proj.Fields))}
	tc := proj.Index("tags")
	b.Cols[tc] = rows.Column{Strs: []string{`{"env":"prod","job":"api"}`, `{"env":"prod","job":"db"}`, `{"env":"dev"}`, ``}, Nulls: []bool{false, false, false, true}}
	m := ws.Matcher(proj)
	var got []int
	for i := 0; i < b.Len; i++ {
		if m(b, i) {
			got = append(got, i)
		}
	}
	if len(got) != 1 || got[0] != 0 {
		t.Errorf("rows passing: %v, want [0]", got)
	}
	if Wheres(nil).Matcher(proj) != nil {
		t.Error("no conditions: want a nil matcher")
	}
}

// TestWhereRefused: each bad expression is a coded error naming it.
func TestWhereRefused(t *testing.T) {
	sch := whereSchema(t)
	cases := []struct{ expr, code, says string }{
		{"cpu=1", CodeBadFilter, "column cpu is double, not a map or struct"},
		{"host=a", CodeBadFilter, "not a map or struct"},
		{"nope[env]=prod", CodeUnknownColumn, "no such column (map and struct columns: tags, attrs, k8s.labels)"},
		{"tags", CodeBadFilter, "want COLUMN[KEY]=VALUE"},
		{"tags[env]", CodeBadFilter, "no = or != after tags[env]"},
		{"tags[env=prod", CodeBadFilter, "[ without ]"},
		{"tags=prod", CodeBadFilter, "give a path into tags"},
		{"tags.env=prod", CodeBadFilter, "tags is map<string, string>, not a struct"},
		{"attrs[a]=1", CodeBadFilter, "not a map"},
		{"attrs.zz=1", CodeBadFilter, `attrs has no field "zz" (fields: a, b, f, ok, labels, l)`},
		{"attrs.a=x", CodeBadFilter, `attrs.a is long: "x" is not an integer`},
		{"attrs.f=x", CodeBadFilter, `is not a number`},
		{"attrs.ok=yes", CodeBadFilter, `is not true or false`},
		{"attrs.labels=x", CodeBadFilter, "attrs.labels is map<string, string>: the path must end"},
		{"attrs.l=1", CodeBadFilter, "attrs.l is list<long>"},
		{`tags["env]=x`, CodeBadFilter, "closing quote"},
		{"tags[env]<prod", CodeBadFilter, `unexpected "<prod"`},
	}
	for _, c := range cases {
		_, err := ParseWheres(sch, []string{"tags[ok]=1", c.expr})
		var re *rows.Error
		if !errors.As(err, &re) || re.Code != c.code || !strings.Contains(err.Error(), c.says) || (re.Value != c.expr) {
			t.Errorf("%q: err %v, want %s saying %q and naming the expression", c.expr, err, c.code, c.says)
		}
		if err != nil && !strings.Contains(err.Error(), strconv.Quote(c.expr)) {
			t.Errorf("%q: the error %q does not name the expression", c.expr, err)
		}
	}
}

// BenchmarkWhereMatch: one label condition over a row's 8-label JSON text.
func BenchmarkWhereMatch(b *testing.B) {
	sch := whereSchema(b)
	ws, err := ParseWheres(sch, []string{"tags[status]=500"})
	if err != nil {
		b.Fatal(err)
	}
	text := `{"env":"prod","region":"eu-west-1","az":"eu-west-1a","job":"api","instance":"10.0.4.2:9090","service":"svc-02","version":"v1.3.0","status":"500"}`
	for b.Loop() {
		if !ws[0].Match(text, false) {
			b.Fatal("no match")
		}
	}
}
