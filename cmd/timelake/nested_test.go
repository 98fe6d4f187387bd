package main

import (
	"bufio"
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// TestAppendParquetWithNestedColumn: a Parquet input with a map column
// (pyarrow's) the table lacks is refused naming the column
// (UNKNOWN_COLUMN), also under --evolve (which adds no nested column),
// leaving the table as it was; --ignore-unknown appends the other
// columns. (Into a table with the column: TestNestedParquetInput.)
func TestAppendParquetWithNestedColumn(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.parquet")
	script := `import sys, pyarrow as pa, pyarrow.parquet as pq
pq.write_table(pa.table({"ts": pa.array([1_700_000_000_000_000], pa.timestamp("us", tz="UTC")), "host": ["a"], "cpu": [1.5],
    "tags": pa.array([[("job", "api")]], pa.map_(pa.string(), pa.string()))}), sys.argv[1])`
	if out, err := exec.Command(python(t), "-c", script, in).CombinedOutput(); err != nil {
		t.Fatalf("pyarrow: %v\n%s", err, out)
	}
	tbl := filepath.Join(dir, "t")
	mustCLI(t, "", "create", tbl, "--time", "ts", "--series", "host", "--column", "ts:timestamptz", "--column", "host:string", "--column", "cpu:double?")
	before := dirState(t, tbl)
	for _, extra := range [][]string{nil, {"--evolve"}} {
		code, _, errs := cli(t, "", append([]string{"append", tbl, in}, extra...)...)
		if code == 0 || !strings.Contains(errs, `column "tags": is a nested column`) || !strings.Contains(errs, "--evolve does not add nested columns") || !strings.Contains(errs, "[UNKNOWN_COLUMN]") {
			t.Errorf("append %v: exit %d, %s; want UNKNOWN_COLUMN naming tags", extra, code, errs)
		}
	}
	if after := dirState(t, tbl); len(after) != len(before) {
		t.Errorf("the refused appends changed the table: %d files, were %d", len(after), len(before))
	}
	mustCLI(t, "", "append", tbl, in, "--ignore-unknown")
	if out := mustCLI(t, "", "scan", tbl); out != "ts,host,cpu\n2023-11-14T22:13:20.000000Z,a,1.5\n" {
		t.Errorf("scan: %q", out)
	}
}

// TestParquetOutputWritesNested: scan --format parquet writes a batch
// with a nested column (JSON text) as a Parquet nested column that reads
// back as the same values; a map keyed by a struct (not written) is left
// out.
func TestParquetOutputWritesNested(t *testing.T) {
	str := &schema.NestedType{Kind: schema.KindPrimitive, Prim: schema.String}
	sch := &schema.Table{Time: 0, Ingest: -1, Series: []int{2}, Fields: []schema.Field{
		{ID: 1, Name: "ts", Type: schema.Timestamptz, Required: true},
		{ID: 2, Name: "tags", Type: schema.Nested, Nested: &schema.NestedType{Kind: schema.KindMap,
			Key:   &schema.NestedField{ID: 5, Name: "key", Required: true, Type: str},
			Value: &schema.NestedField{ID: 6, Name: "value", Type: str}}},
		{ID: 3, Name: "host", Type: schema.String, Required: true},
		{ID: 4, Name: "odd", Type: schema.Nested, Nested: &schema.NestedType{Kind: schema.KindMap,
			Key: &schema.NestedField{ID: 7, Name: "key", Required: true, Type: &schema.NestedType{Kind: schema.KindStruct,
				Fields: []schema.NestedField{{ID: 9, Name: "a", Type: str}}}},
			Value: &schema.NestedField{ID: 8, Name: "value", Type: str}}},
	}}
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	out := newScanOut("parquet", w)
	b := &rows.Batch{Schema: sch, Len: 2, Cols: []rows.Column{{Ints: []int64{1, 2}}, {Strs: []string{`{"a":"b"}`, `{}`}}, {Strs: []string{"a", "b"}}, {Strs: []string{"", ""}, Nulls: []bool{true, true}}}}
	if err := out.write(b); err != nil {
		t.Fatal(err)
	}
	if err := out.finish(sch); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f, err := parquet.Open(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if n := f.Meta().Nested; len(n) != 1 || n[0].Name != "tags" || n[0].FieldID != 2 {
		t.Fatalf("nested columns %+v, want tags alone", n)
	}
	tags, err := f.ReadNested(0, 0, nil)
	if err != nil || len(tags.Strs) != 2 || tags.Strs[0] != `{"a":"b"}` || tags.Strs[1] != `{}` {
		t.Errorf("tags: %q %v", tags.Strs, err)
	}
}

// TestTextOutputsOfNested: NDJSON writes a nested value as a JSON value,
// CSV as a JSON text cell, null as null and an empty cell.
func TestTextOutputsOfNested(t *testing.T) {
	sch := &schema.Table{Time: 0, Ingest: -1, Fields: []schema.Field{
		{ID: 1, Name: "ts", Type: schema.Timestamptz, Required: true},
		{ID: 2, Name: "nums", Type: schema.Nested, Nested: &schema.NestedType{Kind: schema.KindList,
			Elem: &schema.NestedField{ID: 5, Name: "element", Type: &schema.NestedType{Kind: schema.KindPrimitive, Prim: schema.Long}}}},
	}}
	b := &rows.Batch{Schema: sch, Len: 2, Cols: []rows.Column{{Ints: []int64{0, 1}}, {Strs: []string{`[1,null,"x\"y"]`, ""}, Nulls: []bool{false, true}}}}
	for format, want := range map[string]string{
		"ndjson": `{"ts":"1970-01-01T00:00:00.000000Z","nums":[1,null,"x\"y"]}` + "\n" + `{"ts":"1970-01-01T00:00:00.000001Z","nums":null}` + "\n",
		"csv":    "ts,nums\n" + `1970-01-01T00:00:00.000000Z,"[1,null,""x\""y""]"` + "\n1970-01-01T00:00:00.000001Z,\n",
	} {
		var buf bytes.Buffer
		w := bufio.NewWriter(&buf)
		out := newScanOut(format, w)
		if err := out.write(b); err != nil {
			t.Fatal(err)
		}
		if err := out.finish(sch); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if buf.String() != want {
			t.Errorf("%s:\n%s\nwant\n%s", format, buf.String(), want)
		}
	}
}

// TestCreateAlterNested: create --column and alter --add take nested type
// text (a struct field too); append NDJSON and CSV, scan NDJSON and CSV
// give the values back exactly; a nested series column is BAD_SCHEMA, a
// bad value TYPE_MISMATCH naming its path.
func TestCreateAlterNested(t *testing.T) {
	dir := t.TempDir() + "/t"
	mustCLI(t, "", "create", dir, "--time", "ts", "--series", "host", "--column", "tags:map<string,long>?", "--column", "attrs:struct<a:long,b:list<string>>?")
	mustCLI(t, "", "alter", dir, "--add", "attrs.c:double", "--add", "nums:list<double>")
	out := mustCLI(t, "", "info", dir)
	if !strings.Contains(out, "tags:map<string, long>? attrs:struct<a: long, b: list<string>, c: double>? nums:list<double>?") {
		t.Fatalf("info:\n%s", out)
	}
	mustCLI(t, `{"ts":"2026-11-28T00:00:00Z","host":"a","tags":{"x":1},"attrs":{"c":0.5,"b":["p",null]},"nums":[1.5,"NaN"]}`+"\n", "append", dir, "-", "--format", "ndjson")
	mustCLI(t, "ts,host,tags,attrs,nums\n2026-11-28T01:00:00Z,a,{},\"{\"\"a\"\":7}\",\n", "append", dir, "-", "--format", "csv")
	got := mustCLI(t, "", "scan", dir, "--format", "ndjson")
	want := `{"ts":"2026-11-28T00:00:00.000000Z","host":"a","tags":{"x":1},"attrs":{"a":null,"b":["p",null],"c":0.5},"nums":[1.5,"NaN"]}
{"ts":"2026-11-28T01:00:00.000000Z","host":"a","tags":{},"attrs":{"a":7,"b":null,"c":null},"nums":null}
`
	if got != want {
		t.Errorf("scan:\n%s\nwant:\n%s", got, want)
	}
	code, _, stderr := cli(t, `{"ts":"2026-11-28T02:00:00Z","host":"a","attrs":{"b":[1]}}`+"\n", "append", dir, "-", "--format", "ndjson")
	if code == 0 || !strings.Contains(stderr, "at attrs.b[0]") || !strings.Contains(stderr, "[TYPE_MISMATCH]") {
		t.Errorf("bad value: %d %s", code, stderr)
	}
	code, _, stderr = cli(t, "", "create", t.TempDir()+"/u", "--time", "ts", "--series", "host", "--column", "host:list<string>")
	if code == 0 || !strings.Contains(stderr, "[BAD_SCHEMA]") {
		t.Errorf("nested series: %d %s", code, stderr)
	}
}
