package arrowipc

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// nestedSchema is a table with nested columns of every kind, to several
// levels, with timestamps of both units among their leaves.
func nestedSchema(t testing.TB) *schema.Table {
	t.Helper()
	typ := func(js string) *schema.NestedType {
		nt, err := schema.ParseNested(json.RawMessage(js))
		if err != nil {
			t.Fatal(err)
		}
		return nt
	}
	return &schema.Table{Time: 0, Ingest: -1, Series: []int{1}, Fields: []schema.Field{
		{ID: 1, Name: "ts", Type: schema.Timestamptz, Required: true},
		{ID: 2, Name: "host", Type: schema.String, Required: true},
		{ID: 3, Name: "tags", Type: schema.Nested, Nested: typ(`{"type":"map","key-id":10,"key":"string","value-id":11,"value-required":false,"value":"string"}`)},
		{ID: 4, Name: "nums", Type: schema.Nested, Nested: typ(`{"type":"list","element-id":12,"element-required":false,"element":"long"}`)},
		{ID: 5, Name: "st", Type: schema.Nested, Nested: typ(`{"type":"struct","fields":[
			{"id":13,"name":"a","required":true,"type":"int"},
			{"id":14,"name":"b","required":false,"type":"string"},
			{"id":15,"name":"t","required":false,"type":"timestamptz"},
			{"id":16,"name":"l","required":false,"type":{"type":"list","element-id":17,"element-required":true,"element":"double"}},
			{"id":18,"name":"ns","required":false,"type":"timestamp_ns"}]}`)},
		{ID: 6, Name: "mk", Type: schema.Nested, Required: true, Nested: typ(`{"type":"map","key-id":19,"key":"long","value-id":20,"value-required":false,"value":{"type":"list","element-id":21,"element-required":false,"element":"boolean"}}`)},
		{ID: 7, Name: "deep", Type: schema.Nested, Nested: typ(`{"type":"list","element-id":22,"element-required":false,"element":{"type":"struct","fields":[
			{"id":23,"name":"x","required":false,"type":{"type":"map","key-id":24,"key":"timestamptz_ns","value-id":25,"value-required":false,"value":"timestamp"}}]}}`)},
	}}
}

// nestedRows are rows of nestedSchema as JSON text: nulls at every level,
// empty maps and lists, escapes, extreme numbers; a struct missing a
// member (null) and with one the type lacks (left out) last.
var nestedRows = [][]string{
	{`{"job":"api","zone":null,"é\n\"q\"":"日本😀"}`, `[1,null,-9223372036854775808,9223372036854775807]`,
		`{"a":-2147483648,"b":"x","t":"2024-01-02T03:04:05.123456Z","l":[1.5,-0,"NaN","+Inf","-Inf",1e+300,5e-324],"ns":"1677-09-21T00:12:43.145224192"}`,
		`{"1":[true,null,false],"-5":null,"0":[]}`, `[{"x":{"2262-04-11T23:47:16.854775807Z":"0001-01-01T00:00:00.000000","1970-01-01T00:00:00.000000001Z":null}},null,{"x":null},{"x":{}}]`},
	{``, ``, ``, `{}`, ``},
	{`{}`, `[]`, `{"a":0,"b":null,"t":null,"l":null,"ns":null}`, `{"9223372036854775807":[false]}`, `[]`},
	{`{"k":""}`, `[null]`, `{"a":7,"l":[],"zz":{"q":[1,{"r":null}]},"b":"\u00e9\ud83d\ude00\\/\t"}`, `{}`, `[null]`},
}

// nestedBatch is nestedRows as a batch ("" a null, but in mk).
func nestedBatch(t testing.TB, sch *schema.Table, texts [][]string, base int) *rows.Batch {
	b := &rows.Batch{Schema: sch, Len: len(texts), Cols: make([]rows.Column, len(sch.Fields))}
	for i, r := range texts {
		b.Cols[0].Ints = append(b.Cols[0].Ints, int64(base+i)*1_000_000)
		b.Cols[1].Strs = append(b.Cols[1].Strs, "h"+strconv.Itoa(i))
		for j, s := range r {
			c := &b.Cols[2+j]
			c.Strs = append(c.Strs, s)
			if c.Nulls == nil {
				c.Nulls = make([]bool, len(texts))
			}
			c.Nulls[i] = s == ""
		}
	}
	return b
}

// canonical re-encodes JSON text token by token, in order: numbers as the
// int64 or float64 they read as, strings escaped alike, so that two
// writers' texts of the same value compare equal.
func canonical(t *testing.T, s string) string {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var b []byte
	type frame struct {
		obj   bool
		n     int
		isKey bool
	}
	var stack []frame
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("canonical %q: %v", s, err)
		}
		if len(stack) > 0 {
			top := &stack[len(stack)-1]
			if _, end := tok.(json.Delim); !end || (tok != json.Delim('}') && tok != json.Delim(']')) {
				if top.obj {
					if top.n%2 == 0 && top.n > 0 {
						b = append(b, ',')
					} else if top.n%2 == 1 {
						b = append(b, ':')
					}
				} else if top.n > 0 {
					b = append(b, ',')
				}
				top.n++
			}
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				b = append(b, byte(v))
				stack = append(stack, frame{obj: v == '{'})
			default:
				b = append(b, byte(v))
				stack = stack[:len(stack)-1]
			}
		case json.Number:
			if i, err := strconv.ParseInt(string(v), 10, 64); err == nil && v != "-0" {
				b = strconv.AppendInt(b, i, 10)
			} else {
				f, _ := strconv.ParseFloat(string(v), 64)
				b = strconv.AppendFloat(b, f, 'g', -1, 64)
			}
		case string:
			b = rows.AppendJSONString(b, v)
		case bool:
			b = strconv.AppendBool(b, v)
		case nil:
			b = append(b, "null"...)
		}
	}
	return string(b)
}

// pyNested is what testdata/readnested.py says pyarrow read.
type pyNested struct {
	Schema []struct {
		Name     string            `json:"name"`
		Type     string            `json:"type"`
		Nullable bool              `json:"nullable"`
		IDs      map[string]string `json:"ids"`
	} `json:"schema"`
	Rows [][]*string `json:"rows"`
}

// TestWriterNestedPyarrow: pyarrow reads a stream with nested columns
// (two batches, the second all nulls but for a required map), validates it
// in full, and sees each column as the Arrow nested type of its Iceberg
// type with every field id, and each row's value as the text written.
func TestWriterNestedPyarrow(t *testing.T) {
	sch := nestedSchema(t)
	w, err := NewStreamWriter(sch)
	if err != nil {
		t.Fatal(err)
	}
	second := [][]string{{``, ``, ``, `{}`, ``}, {``, ``, ``, `{"3":null}`, ``}}
	var data []byte
	for i, texts := range [][][]string{nestedRows, second} {
		if data, err = w.Append(data, nestedBatch(t, sch, texts, 10*i)); err != nil {
			t.Fatal(err)
		}
	}
	data = w.End(data)
	path := filepath.Join(t.TempDir(), "n.arrows")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(python(t), filepath.Join("testdata", "readnested.py"), path)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pyarrow could not read the stream: %v\n%s", err, stderr.String())
	}
	var got pyNested
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	wantTypes := []string{"timestamp[us, tz=UTC]", "string", "map<string, string>", "list<element: int64>",
		"struct<a: int32 not null, b: string, t: timestamp[us, tz=UTC], l: list<element: double not null>, ns: timestamp[ns]>",
		"map<int64, list<element: bool>>", "list<element: struct<x: map<timestamp[ns, tz=UTC], timestamp[us]>>>"}
	wantIDs := map[string]string{"tags.key": "10", "tags.key!": "required", "tags.value": "11", "nums.element": "12",
		"st.a": "13", "st.a!": "required", "st.b": "14", "st.t": "15", "st.l": "16", "st.l.element": "17", "st.l.element!": "required", "st.ns": "18",
		"mk.key": "19", "mk.key!": "required", "mk.value": "20", "mk.value.element": "21",
		"deep.element": "22", "deep.element.x": "23", "deep.element.x.key": "24", "deep.element.x.key!": "required", "deep.element.x.value": "25"}
	for i, f := range got.Schema {
		sf := sch.Fields[i]
		if f.Name != sf.Name || f.Type != wantTypes[i] || f.Nullable == sf.Required || f.IDs[sf.Name] != strconv.Itoa(sf.ID) {
			t.Errorf("field %d: pyarrow sees %q %s nullable %v ids %v; want %q %s nullable %v id %d", i, f.Name, f.Type, f.Nullable, f.IDs, sf.Name, wantTypes[i], !sf.Required, sf.ID)
		}
		for k, v := range f.IDs {
			if k != sf.Name && wantIDs[k] != v {
				t.Errorf("pyarrow sees %s=%s; want %q", k, v, wantIDs[k])
			}
		}
	}
	all := append(append([][]string{}, nestedRows...), second...)
	// pyarrow reads a struct whole: the missing member null, the unknown left out
	all[3] = append([]string{}, all[3]...)
	all[3][2] = `{"a":7,"b":"é😀\\/\t","t":null,"l":[],"ns":null}`
	if len(got.Rows) != len(all) {
		t.Fatalf("pyarrow reads %d rows, want %d", len(got.Rows), len(all))
	}
	for i, r := range all {
		for j, s := range r {
			g := got.Rows[i][2+j]
			switch {
			case s == "" && j != 3:
				if g != nil {
					t.Errorf("row %d %s: pyarrow %s, want null", i+1, sch.Fields[2+j].Name, *g)
				}
			case g == nil:
				t.Errorf("row %d %s: pyarrow null, want %s", i+1, sch.Fields[2+j].Name, s)
			case canonical(t, *g) != canonical(t, s):
				t.Errorf("row %d %s:\npyarrow %s\nwant    %s", i+1, sch.Fields[2+j].Name, canonical(t, *g), canonical(t, s))
			}
		}
	}
}

// TestWriterNestedBadText: a nested value whose text does not fit the
// type is an error naming the column and row; the stream is unchanged.
func TestWriterNestedBadText(t *testing.T) {
	sch := nestedSchema(t)
	for _, c := range []struct {
		col  int
		text string
		want string
	}{
		{2, `{"a":1}`, `"1" is not a string value`},
		{3, `[1.5]`, `"1.5" is not a long value`},
		{3, `{"a":1}`, "not a JSON array"},
		{4, `{"a":1,"a":2}`, `"a" given twice`},
		{4, `{"a":1,"t":"2024-01-01"}`, "timestamptz"},
		{5, `{"x":[]}`, `"x" is not a long value`},
		{2, `{"a":"b"} x`, "text after the value"},
		{2, `{"a":"b"`, "closing brace"},
		{3, `[1,2`, "closing bracket"},
		{2, `{"a":"\ud800"}`, "surrogate"},
	} {
		w, err := NewStreamWriter(sch)
		if err != nil {
			t.Fatal(err)
		}
		b := nestedBatch(t, sch, [][]string{{``, ``, ``, `{}`, ``}, {``, ``, ``, `{}`, ``}}, 0)
		b.Cols[c.col].Strs[1], b.Cols[c.col].Nulls[1] = c.text, false
		out, err := w.Append(nil, b)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `column "`+sch.Fields[c.col].Name+`", row 2`) || len(out) != 0 {
			t.Errorf("%s %s: %v (%d bytes); want an error with %q", sch.Fields[c.col].Name, c.text, err, len(out), c.want)
		}
	}
}
