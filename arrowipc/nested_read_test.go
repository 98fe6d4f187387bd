package arrowipc

import (
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// nestedTexts reads data's nested columns as the reader hands them to the
// builder: per row, per nested column of sch, its JSON text ("" a null).
// The builder (which checks and writes only some nested types) is left
// out: this is the conversion alone.
func nestedTexts(t testing.TB, data []byte, sch *schema.Table, opt rows.Options) ([][]string, error) {
	return nestedTextsN(t, data, sch, opt, math.MaxInt)
}

// nestedTextsN is nestedTexts of at most max rows.
func nestedTextsN(t testing.TB, data []byte, sch *schema.Table, opt rows.Options, max int) ([][]string, error) {
	t.Helper()
	r, err := NewReader(data, sch, opt)
	if err != nil {
		return nil, err
	}
	var out [][]string
	for {
		more, err := r.nextBatch()
		if err != nil {
			return nil, err
		}
		if !more || len(out) == max {
			return out, nil
		}
		for i := range min(r.n, max-len(out)) {
			var row []string
			for _, nv := range r.nested {
				if nv == nil {
					continue
				}
				if nv.null(i) {
					row = append(row, "")
					continue
				}
				text, err := nv.appendJSON(nil, i, false)
				if err != nil {
					var re *rows.Error
					if errors.As(err, &re) {
						re.Row = r.rowBase + i + 1
					}
					return nil, err
				}
				row = append(row, string(text))
			}
			out = append(out, row)
		}
	}
}

// TestReadNestedRoundTrip: the writer's stream of nested columns reads
// back as the same text, byte for byte, in the readers' form (a struct
// whole, in the table's order; numbers and escapes as they print them).
func TestReadNestedRoundTrip(t *testing.T) {
	sch := nestedSchema(t)
	w, err := NewStreamWriter(sch)
	if err != nil {
		t.Fatal(err)
	}
	data, err := w.Append(nil, nestedBatch(t, sch, nestedRows, 0))
	if err != nil {
		t.Fatal(err)
	}
	data = w.End(data)
	got, err := nestedTexts(t, data, sch, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := append([][]string{}, nestedRows...)
	want[3] = append([]string{}, want[3]...)
	want[3][2] = `{"a":7,"b":"é😀\\/\t","t":null,"l":[],"ns":null}`
	for i := range want {
		for j := range want[i] {
			if got[i][j] != want[i][j] {
				t.Errorf("row %d %s:\ngot  %s\nwant %s", i+1, sch.Fields[2+j].Name, got[i][j], want[i][j])
			}
		}
	}
}

// TestReadNestedPyarrow: pyarrow's nested arrays (list, large_list, map,
// struct, to two levels; dictionary, float16, unsigned, date and
// timestamp leaves of every unit; slices) read as the text Timelake's
// readers print, converted to the table's leaf types.
func TestReadNestedPyarrow(t *testing.T) {
	script := `import sys, datetime as dt, pyarrow as pa
utc = dt.timezone.utc
t0 = dt.datetime(2024, 1, 2, 3, 4, 5, 123456, tzinfo=utc)
st = pa.struct([("a", pa.uint8()), ("skip", pa.list_(pa.string())), ("b", pa.dictionary(pa.int8(), pa.string())),
    ("t", pa.timestamp("s")), ("d", pa.date32()), ("h", pa.float16())])
tbl = pa.table({
  "ts": pa.array([t0] * 4, pa.timestamp("us", tz="UTC")),
  "host": ["a", "b", "c", "d"],
  "ll": pa.array([[1, None], None, [], [2**31]], pa.large_list(pa.int64())),
  "mv": pa.array([[("k", {"x": [1.5, None]})], [("a", None), ("b", {"x": None})], None, []],
      pa.map_(pa.string(), pa.struct([("x", pa.list_(pa.float32()))]))),
  "st": pa.array([{"a": 255, "skip": ["z"], "b": "q", "t": dt.datetime(1970, 1, 1, 0, 0, 1), "d": dt.date(2000, 2, 29), "h": 0.5}, None,
      {"a": None, "skip": None, "b": None, "t": None, "d": None, "h": None}, {"a": 0, "skip": [], "b": "r", "t": None, "d": dt.date(1900, 1, 1), "h": -2.0}], st),
  "ns": pa.array([[1700000000123456789], [None], None, [-1]], pa.list_(pa.timestamp("ns", tz="UTC"))),
  "ms": pa.array([[(1, 1700000000123)], [], None, [(-1, 0)]], pa.map_(pa.int32(), pa.timestamp("ms"))),
}).slice(0, 4)
with pa.ipc.new_stream(sys.argv[1], tbl.schema) as w:
    w.write_table(tbl.slice(0, 1))
    w.write_table(tbl.slice(1))
`
	path := filepath.Join(t.TempDir(), "n.arrows")
	if out, err := exec.Command(python(t), "-c", script, path).CombinedOutput(); err != nil {
		t.Fatalf("pyarrow: %v\n%s", err, out)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	typ := func(js string) *schema.NestedType {
		nt, err := schema.ParseNested(json.RawMessage(js))
		if err != nil {
			t.Fatal(err)
		}
		return nt
	}
	sch := &schema.Table{Time: 0, Ingest: -1, Series: []int{1}, Fields: []schema.Field{
		{ID: 1, Name: "ts", Type: schema.Timestamptz, Required: true},
		{ID: 2, Name: "host", Type: schema.String, Required: true},
		{ID: 3, Name: "ll", Type: schema.Nested, Nested: typ(`{"type":"list","element-id":10,"element":"long"}`)},
		{ID: 4, Name: "mv", Type: schema.Nested, Nested: typ(`{"type":"map","key-id":11,"key":"string","value-id":12,"value":{"type":"struct","fields":[{"id":13,"name":"x","type":{"type":"list","element-id":14,"element":"double"}}]}}`)},
		{ID: 5, Name: "st", Type: schema.Nested, Nested: typ(`{"type":"struct","fields":[{"id":15,"name":"a","type":"int"},{"id":16,"name":"b","type":"string"},
			{"id":17,"name":"t","type":"timestamptz"},{"id":18,"name":"d","type":"timestamp_ns"},{"id":19,"name":"h","type":"float"},{"id":20,"name":"gone","type":"long"}]}`)},
		{ID: 6, Name: "ns", Type: schema.Nested, Nested: typ(`{"type":"list","element-id":21,"element":"timestamptz_ns"}`)},
		{ID: 7, Name: "ms", Type: schema.Nested, Nested: typ(`{"type":"map","key-id":22,"key":"long","value-id":23,"value":"timestamp"}`)},
	}}
	if _, err := nestedTexts(t, data, sch, rows.Options{}); err == nil || !strings.Contains(err.Error(), `"st.skip"`) {
		t.Fatalf("a struct field the table lacks: %v, want UNKNOWN_COLUMN naming st.skip", err)
	}
	got, err := nestedTexts(t, data, sch, rows.Options{IgnoreUnknown: true})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{`[1,null]`, `{"k":{"x":[1.5,null]}}`, `{"a":255,"b":"q","t":"1970-01-01T00:00:01.000000Z","d":"2000-02-29T00:00:00.000000000","h":0.5,"gone":null}`, `["2023-11-14T22:13:20.123456789Z"]`, `{"1":"2023-11-14T22:13:20.123000"}`},
		{``, `{"a":null,"b":{"x":null}}`, ``, `[null]`, `{}`},
		{`[]`, ``, `{"a":null,"b":null,"t":null,"d":null,"h":null,"gone":null}`, ``, ``},
		{`[2147483648]`, `{}`, `{"a":0,"b":"r","t":null,"d":"1900-01-01T00:00:00.000000000","h":-2,"gone":null}`, `["1969-12-31T23:59:59.999999999Z"]`, `{"-1":"1970-01-01T00:00:00.000000"}`},
	}
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i := range want {
		for j := range want[i] {
			if got[i][j] != want[i][j] {
				t.Errorf("row %d %s:\ngot  %s\nwant %s", i+1, sch.Fields[2+j].Name, got[i][j], want[i][j])
			}
		}
	}
}

// TestReadNestedIntoStringMap: an Arrow map<utf8, utf8> column appends to
// a map<string, string> column through the builder, as the text scan
// prints; a shape that does not fit is TYPE_MISMATCH naming the column.
func TestReadNestedIntoStringMap(t *testing.T) {
	sch := nestedSchema(t)
	tags := &schema.Table{Time: 0, Ingest: -1, Series: []int{1}, Fields: []schema.Field{sch.Fields[0], sch.Fields[1], sch.Fields[2]}}
	w, err := NewStreamWriter(tags)
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{`{"job":"api","zone":null,"é\n\"q\"":"日本😀"}`, ``, `{}`, `{"k":""}`}
	b := &rows.Batch{Schema: tags, Len: 4, Cols: []rows.Column{{Ints: []int64{1, 2, 3, 4}}, {Strs: []string{"a", "b", "c", "d"}}, {Strs: texts, Nulls: []bool{false, true, false, false}}}}
	data, err := w.Append(nil, b)
	if err != nil {
		t.Fatal(err)
	}
	data = w.End(data)
	got, err := Read(data, tags, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range texts {
		if got.Cols[2].Strs[i] != s || got.Cols[2].IsNull(i) != (s == "") {
			t.Errorf("row %d: %q (null %v), want %q", i+1, got.Cols[2].Strs[i], got.Cols[2].IsNull(i), s)
		}
	}
	// the tags stream into columns of other shapes
	for _, c := range []struct {
		js, code, col string
	}{
		{`{"type":"list","element-id":10,"element":"string"}`, rows.CodeTypeMismatch, "tags"},
		{`{"type":"map","key-id":10,"key":"string","value-id":11,"value":"long"}`, rows.CodeTypeMismatch, "tags.value"},
		{`{"type":"map","key-id":10,"key":"string","value-id":11,"value-required":true,"value":"string"}`, rows.CodeMissingColumn, "tags.value"},
	} {
		nt, err := schema.ParseNested(json.RawMessage(c.js))
		if err != nil {
			t.Fatal(err)
		}
		other := *tags
		other.Fields = append([]schema.Field{}, tags.Fields...)
		other.Fields[2].Nested = nt
		_, err = Read(data, &other, rows.Options{})
		var re *rows.Error
		if !errors.As(err, &re) || re.Code != c.code || re.Column != c.col {
			t.Errorf("into %s: %v; want %s naming %s", nt, err, c.code, c.col)
		}
	}
}

// TestReadNestedFixture: the committed nested.arrows (pyarrow's list,
// struct and map columns beside unsupported ones) reads into a table of
// those three nested columns.
func TestReadNestedFixture(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "nested.arrows"))
	if err != nil {
		t.Fatal(err)
	}
	typ := func(js string) *schema.NestedType {
		nt, err := schema.ParseNested(json.RawMessage(js))
		if err != nil {
			t.Fatal(err)
		}
		return nt
	}
	sch := &schema.Table{Time: 0, Ingest: -1, Series: []int{1}, Fields: []schema.Field{
		{ID: 1, Name: "ts", Type: schema.Timestamptz, Required: true},
		{ID: 2, Name: "host", Type: schema.String, Required: true},
		{ID: 3, Name: "lst", Type: schema.Nested, Nested: typ(`{"type":"list","element-id":10,"element":"long"}`)},
		{ID: 4, Name: "st", Type: schema.Nested, Nested: typ(`{"type":"struct","fields":[{"id":11,"name":"x","type":"long"},{"id":12,"name":"y","type":"string"}]}`)},
		{ID: 5, Name: "mp", Type: schema.Nested, Nested: typ(`{"type":"map","key-id":13,"key":"string","value-id":14,"value":"double"}`)},
	}}
	got, err := nestedTexts(t, data, sch, rows.Options{IgnoreUnknown: true})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{`[1,2]`, `{"x":1,"y":"q"}`, `{"k":1}`}, {``, ``, `{}`}}
	for i := range want {
		for j := range want[i] {
			if got[i][j] != want[i][j] {
				t.Errorf("row %d %s: got %s, want %s", i+1, sch.Fields[2+j].Name, got[i][j], want[i][j])
			}
		}
	}
}

// FuzzReadNested reads arbitrary bytes as Arrow IPC into nestedSchema's
// table: never a panic, every error a coded *rows.Error, every nested
// value it makes valid JSON. Seeds: the writer's stream of nestedRows and
// the committed nested fixture.
func FuzzReadNested(f *testing.F) {
	sch := nestedSchema(f)
	w, err := NewStreamWriter(sch)
	if err != nil {
		f.Fatal(err)
	}
	data, err := w.Append(nil, nestedBatch(f, sch, nestedRows, 0))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(w.End(data))
	if fx, err := os.ReadFile(filepath.Join("testdata", "nested.arrows")); err == nil {
		f.Add(fx)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		texts, err := nestedTextsN(t, data, sch, rows.Options{IgnoreUnknown: true}, 50)
		if err != nil {
			var re *rows.Error
			if !errors.As(err, &re) || re.Code == "" {
				t.Fatalf("%v (%T) is not a coded *rows.Error", err, err)
			}
			return
		}
		for _, row := range texts {
			for _, s := range row {
				if s != "" && !json.Valid([]byte(s)) {
					t.Fatalf("invalid JSON text %q", s)
				}
			}
		}
		// and the full path, through the builder
		r, err := NewReader(data, sch, rows.Options{IgnoreUnknown: true})
		if err != nil {
			return
		}
		for range 10 {
			if _, err := r.Next(3); err != nil {
				if err != io.EOF {
					var re *rows.Error
					if !errors.As(err, &re) || re.Code == "" {
						t.Fatalf("Next: %v (%T) is not a coded *rows.Error", err, err)
					}
				}
				return
			}
		}
	})
}

// TestReadNestedBounds: a batch of Next ends early once its nested text
// passes maxNestedText (every row still read, in order); a value past
// rows.MaxValueBytes is VALUE_TOO_LARGE; an Arrow struct lacking a
// required field of the table's is MISSING_COLUMN naming its path.
func TestReadNestedBounds(t *testing.T) {
	sch := nestedSchema(t)
	tags := &schema.Table{Time: 0, Ingest: -1, Series: []int{1}, Fields: []schema.Field{sch.Fields[0], sch.Fields[1], sch.Fields[2]}}
	stream := func(texts []string) []byte {
		w, err := NewStreamWriter(tags)
		if err != nil {
			t.Fatal(err)
		}
		b := &rows.Batch{Schema: tags, Len: len(texts), Cols: make([]rows.Column, 3)}
		for i, s := range texts {
			b.Cols[0].Ints = append(b.Cols[0].Ints, int64(i))
			b.Cols[1].Strs = append(b.Cols[1].Strs, "h")
			b.Cols[2].Strs = append(b.Cols[2].Strs, s)
		}
		data, err := w.Append(nil, b)
		if err != nil {
			t.Fatal(err)
		}
		return w.End(data)
	}
	defer func(old int) { maxNestedText = old }(maxNestedText)
	maxNestedText = 100
	var texts []string
	for i := range 50 {
		texts = append(texts, `{"k":"`+strings.Repeat("x", i)+`"}`)
	}
	r, err := NewReader(stream(texts), tags, rows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	batches := 0
	for {
		b, err := r.Next(1000)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		batches++
		got = append(got, b.Cols[2].Strs...)
	}
	if batches < 10 || strings.Join(got, "\n") != strings.Join(texts, "\n") {
		t.Errorf("%d batches, rows %v; want many batches of every row in order", batches, got)
	}

	_, err = Read(stream([]string{`{"k":"` + strings.Repeat("x", rows.MaxValueBytes) + `"}`}), tags, rows.Options{})
	var re *rows.Error
	if !errors.As(err, &re) || re.Code != rows.CodeValueTooLarge || re.Column != "tags" {
		t.Errorf("a value past MaxValueBytes: %v", err)
	}

	w, err := NewStreamWriter(sch)
	if err != nil {
		t.Fatal(err)
	}
	data, err := w.Append(nil, nestedBatch(t, sch, nestedRows, 0))
	if err != nil {
		t.Fatal(err)
	}
	other := *sch
	other.Fields = append([]schema.Field{}, sch.Fields...)
	st := *sch.Fields[4].Nested
	st.Fields = append(append([]schema.NestedField{}, st.Fields...), schema.NestedField{ID: 99, Name: "must", Required: true, Type: &schema.NestedType{Kind: schema.KindPrimitive, Prim: schema.Long}})
	other.Fields[4].Nested = &st
	_, err = nestedTexts(t, w.End(data), &other, rows.Options{})
	if !errors.As(err, &re) || re.Code != rows.CodeMissingColumn || re.Column != "st.must" {
		t.Errorf("a required struct field the input lacks: %v", err)
	}
}

// TestColumnsLeaveNestedOut: an evolving append adds no nested column:
// Columns gives the flat fields of a stream with nested ones.
func TestColumnsLeaveNestedOut(t *testing.T) {
	sch := nestedSchema(t)
	w, err := NewStreamWriter(sch)
	if err != nil {
		t.Fatal(err)
	}
	cols, err := Columns(w.End(nil))
	if err != nil || len(cols) != 2 || cols[0].Name != "ts" || cols[1].Name != "host" || cols[1].Type != schema.String {
		t.Errorf("Columns = %+v, %v; want ts and host", cols, err)
	}
}

// FuzzWriteNested writes arbitrary text as each nested column of
// nestedSchema: the writer refuses it with an error or writes a stream the
// reader reads back; that text, written and read again, is the same (the
// readers' form is a fixed point), and never a panic.
func FuzzWriteNested(f *testing.F) {
	sch := nestedSchema(f)
	for _, r := range nestedRows {
		for j, s := range r {
			f.Add(j, s)
		}
	}
	f.Fuzz(func(t *testing.T, col int, text string) {
		if col < 0 || col >= 5 {
			return
		}
		row := []string{``, ``, ``, `{}`, ``}
		row[col] = text
		once := func(row []string, textGiven bool) ([]string, error) {
			w, err := NewStreamWriter(sch)
			if err != nil {
				t.Fatal(err)
			}
			b := nestedBatch(t, sch, [][]string{row}, 0)
			if textGiven {
				b.Cols[2+col].Nulls[0] = false // "" given as text, not as a null
			}
			data, err := w.Append(nil, b)
			if err != nil {
				return nil, err
			}
			got, err := nestedTexts(t, w.End(data), sch, rows.Options{})
			if err != nil {
				var re *rows.Error
				if !errors.As(err, &re) || re.Code == "" {
					t.Fatalf("reading back %q: %v", text, err)
				}
				return nil, err
			}
			return got[0], nil
		}
		first, err := once(row, true)
		if err != nil {
			return
		}
		second, err := once(first, false) // read back "": a null
		if err != nil {
			t.Fatalf("%q read back as %q, which does not write again: %v", text, first[col], err)
		}
		if first[col] != second[col] {
			t.Fatalf("%q: read back as %q, then as %q", text, first[col], second[col])
		}
	})
}
