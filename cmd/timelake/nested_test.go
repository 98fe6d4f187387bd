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

// TestParquetOutputLeavesNestedOut: scan --format parquet writes a batch
// with a nested column (JSON text) without it; the other columns as given.
func TestParquetOutputLeavesNestedOut(t *testing.T) {
	sch := &schema.Table{Time: 0, Ingest: -1, Series: []int{2}, Fields: []schema.Field{
		{ID: 1, Name: "ts", Type: schema.Timestamptz, Required: true},
		{ID: 2, Name: "tags", Type: schema.Nested, Nested: &schema.NestedType{Kind: schema.KindMap,
			Key:   &schema.NestedField{ID: 5, Name: "key", Required: true, Type: &schema.NestedType{Kind: schema.KindPrimitive, Prim: schema.String}},
			Value: &schema.NestedField{ID: 6, Name: "value", Type: &schema.NestedType{Kind: schema.KindPrimitive, Prim: schema.String}}}},
		{ID: 3, Name: "host", Type: schema.String, Required: true},
	}}
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	out := newScanOut("parquet", w)
	b := &rows.Batch{Schema: sch, Len: 2, Cols: []rows.Column{{Ints: []int64{1, 2}}, {Strs: []string{`{"a":"b"}`, `{}`}}, {Strs: []string{"a", "b"}}}}
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
	if cols := f.Schema(); len(cols) != 2 || cols[0].Name != "ts" || cols[1].Name != "host" || len(f.Meta().Nested) != 0 {
		t.Fatalf("columns %+v, want ts and host", cols)
	}
	host, err := f.ReadColumn(0, 1)
	if err != nil || host.Strs[1] != "b" {
		t.Errorf("host: %v %v", host.Strs, err)
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
