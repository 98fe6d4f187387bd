package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/timelake/timelake/commit"
	"github.com/timelake/timelake/iceberg"
	"github.com/timelake/timelake/internal/testenv"
	"github.com/timelake/timelake/store/dirstore"
	"github.com/timelake/timelake/table"
)

// addNestedColumn commits another engine's schema change to the table at
// dir: a column of the nested type typ (Iceberg schema JSON, its ids
// above the table's) with field id id, lastID the new last column id.
// (as Spark or pyiceberg add one; create and alter take nested type text
// too, see nested_shapes_cli_test.go)
func addNestedColumn(t *testing.T, dir, name, typ string, id, lastID int) {
	t.Helper()
	ctx := context.Background()
	st, err := dirstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tb, err := table.Open(ctx, st, testenv.New(1))
	if err != nil {
		t.Fatal(err)
	}
	md := *tb.Metadata()
	cur := *md.CurrentSchema()
	cur.Fields = append(append([]iceberg.SchemaField(nil), cur.Fields...), iceberg.SchemaField{ID: id, Name: name, Type: json.RawMessage(typ)})
	md.Schemas = []iceberg.Schema{cur}
	md.LastColumnID = lastID
	raw, err := md.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := st.PutIfAbsent(ctx, commit.MetadataKey(tb.Version()+1), raw); err != nil || !ok {
		t.Fatalf("schema change: %v %v", ok, err)
	}
	if err := st.Put(ctx, "metadata/version-hint.text", []byte(strconv.Itoa(tb.Version()+1))); err != nil {
		t.Fatal(err)
	}
}

const tagsType = `{"type":"map","key-id":10,"key":"string","value-id":11,"value-required":false,"value":"string"}`

// tagsTable is a table ts, host, cpu with tags map<string, string> added.
func tagsTable(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "t")
	mustCLI(t, "", "create", dir, "--time", "ts", "--series", "host", "--column", "ts:timestamptz", "--column", "host:string", "--column", "cpu:double?")
	addNestedColumn(t, dir, "tags", tagsType, 5, 11)
	return dir
}

// pyNestedOut is what arrowipc/testdata/readnested.py says pyarrow read.
type pyNestedOut struct {
	Schema []struct {
		Name string            `json:"name"`
		Type string            `json:"type"`
		IDs  map[string]string `json:"ids"`
	} `json:"schema"`
	Rows [][]*string `json:"rows"`
}

// scanArrowTags runs scan --format arrow on dir and has pyarrow read it
// (validated in full): each row's host and tags (JSON text; "-" null).
func scanArrowTags(t *testing.T, dir string) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "out.arrows")
	mustCLI(t, "", "scan", dir, "--format", "arrow", "--columns", "host,tags", "-o", path)
	var stderr bytes.Buffer
	cmd := exec.Command(python(t), filepath.Join("..", "..", "arrowipc", "testdata", "readnested.py"), path)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pyarrow: %v\n%s", err, stderr.String())
	}
	var got pyNestedOut
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	hc, tc := -1, -1
	for i, f := range got.Schema {
		switch f.Name {
		case "host":
			hc = i
		case "tags":
			tc = i
			if f.Type != "map<string, string>" || f.IDs["tags"] != "5" || f.IDs["tags.key"] != "10" || f.IDs["tags.value"] != "11" {
				t.Fatalf("pyarrow sees tags as %+v; want map<string, string> with ids 5, 10, 11", f)
			}
		}
	}
	if hc < 0 || tc < 0 {
		t.Fatalf("pyarrow sees the schema %+v; want host and tags", got.Schema)
	}
	var lines []string
	for _, r := range got.Rows {
		var host string
		json.Unmarshal([]byte(*r[hc]), &host)
		tags := "-"
		if r[tc] != nil {
			tags = *r[tc]
		}
		lines = append(lines, host+" "+tags)
	}
	return lines
}

// ndjsonTags is scan's NDJSON of dir as "host tags" lines.
func ndjsonTags(t *testing.T, dir string) []string {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(mustCLI(t, "", "scan", dir, "--format", "ndjson", "--columns", "host,tags")), "\n") {
		var r struct {
			Host string          `json:"host"`
			Tags json.RawMessage `json:"tags"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		tags := string(r.Tags)
		if tags == "null" {
			tags = "-"
		}
		lines = append(lines, r.Host+" "+tags)
	}
	return lines
}

func equalLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n%s\nwant\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// tagRowsWant are the tags each test appends, by host, as scan prints them.
var tagRowsWant = []string{
	`a {"job":"api","zone":null,"é\n\"q\"":"日本😀"}`,
	`b -`,
	`c {}`,
	`d {"k":""}`,
}

// TestNestedArrowRoundTrip: a map<string, string> column appended from
// pyarrow's Arrow IPC (a map<utf8, utf8> beside flat columns) scans back
// exactly, as NDJSON and as --format arrow, which pyarrow reads as the
// same map type with the table's field ids.
func TestNestedArrowRoundTrip(t *testing.T) {
	dir := tagsTable(t)
	in := filepath.Join(t.TempDir(), "in.arrows")
	script := `import sys, pyarrow as pa
t = pa.table({"ts": pa.array([1_700_000_000_000_000 + i for i in range(4)], pa.timestamp("us", tz="UTC")), "host": ["a", "b", "c", "d"],
  "tags": pa.array([[("job", "api"), ("zone", None), ("é\n\"q\"", "日本😀")], None, [], [("k", "")]], pa.map_(pa.string(), pa.string()))})
with pa.ipc.new_stream(sys.argv[1], t.schema) as w:
    w.write_table(t.slice(0, 2))
    w.write_table(t.slice(2))
`
	if out, err := exec.Command(python(t), "-c", script, in).CombinedOutput(); err != nil {
		t.Fatalf("pyarrow: %v\n%s", err, out)
	}
	mustCLI(t, "", "append", dir, in)
	equalLines(t, "NDJSON scan", ndjsonTags(t, dir), tagRowsWant)
	equalLines(t, "Arrow scan read by pyarrow", scanArrowTags(t, dir), tagRowsWant)
	// --evolve: the nested column fills the table's, no column or schema is added
	before := strings.Count(mustCLI(t, "", "info", dir), "tags")
	mustCLI(t, "", "append", dir, in, "--evolve")
	equalLines(t, "after append --evolve", ndjsonTags(t, dir), tagRowsWant)
	if info := mustCLI(t, "", "info", dir); strings.Count(info, "tags") != before {
		t.Errorf("info after --evolve:\n%s", info)
	}

	// the scan's own Arrow output appends to another table as the same rows
	again := tagsTable(t)
	out := filepath.Join(t.TempDir(), "scan.arrows")
	mustCLI(t, "", "scan", dir, "--format", "arrow", "--columns", "ts,host,cpu,tags", "-o", out)
	mustCLI(t, "", "append", again, out)
	equalLines(t, "Arrow → table → Arrow → table", ndjsonTags(t, again), tagRowsWant)

	// a list given for the map: refused naming the column, the table unchanged
	bad := filepath.Join(t.TempDir(), "bad.arrows")
	script = `import sys, pyarrow as pa
t = pa.table({"ts": pa.array([1], pa.timestamp("us", tz="UTC")), "host": ["a"], "tags": pa.array([["x"]], pa.list_(pa.string()))})
with pa.ipc.new_stream(sys.argv[1], t.schema) as w:
    w.write_table(t)
`
	if out, err := exec.Command(python(t), "-c", script, bad).CombinedOutput(); err != nil {
		t.Fatalf("pyarrow: %v\n%s", err, out)
	}
	state := dirState(t, dir)
	code, _, errs := cli(t, "", "append", dir, bad)
	if code == 0 || !strings.Contains(errs, "[TYPE_MISMATCH]") || !strings.Contains(errs, `column "tags"`) || !strings.Contains(errs, "map<string, string>") {
		t.Errorf("a list for the map: exit %d, %s", code, errs)
	}
	if after := dirState(t, dir); len(after) != len(state) {
		t.Errorf("the refused append changed the table")
	}
}

// TestNestedNDJSONToArrow: tags appended as NDJSON objects scan as Arrow
// maps pyarrow reads exactly.
func TestNestedNDJSONToArrow(t *testing.T) {
	dir := tagsTable(t)
	nd := `{"ts":"2026-11-28T00:00:00Z","host":"a","tags":{"job":"api","zone":null,"\u00e9\n\"q\"":"日本😀"}}
{"ts":"2026-11-28T00:00:00Z","host":"b","tags":null}
{"ts":"2026-11-28T00:00:00Z","host":"c","tags":{}}
{"ts":"2026-11-28T00:00:00Z","host":"d","cpu":1.5,"tags":{ "k" : "" }}
`
	mustCLI(t, nd, "append", dir, "-", "--format", "ndjson")
	equalLines(t, "Arrow scan read by pyarrow", scanArrowTags(t, dir), tagRowsWant)
}

// TestNestedParquetInput: pyarrow's Parquet file with a map<string,
// string> column appends into the table's tags (two row groups, a null
// map, an empty one, a null value) and scans back exactly, as NDJSON and
// Arrow; a map of another value type, a list, and a flat column of the
// name are refused naming the column, the table unchanged.
func TestNestedParquetInput(t *testing.T) {
	dir := tagsTable(t)
	in := filepath.Join(t.TempDir(), "in.parquet")
	script := `import sys, pyarrow as pa, pyarrow.parquet as pq
t = pa.table({"ts": pa.array([1_700_000_000_000_000 + i for i in range(4)], pa.timestamp("us", tz="UTC")), "host": ["a", "b", "c", "d"],
  "cpu": [1.0, None, 2.0, 3.0],
  "tags": pa.array([[("job", "api"), ("zone", None), ("é\n\"q\"", "日本😀")], None, [], [("k", "")]], pa.map_(pa.string(), pa.string()))})
pq.write_table(t, sys.argv[1], row_group_size=2, data_page_version=sys.argv[2])
`
	for _, pages := range []string{"1.0", "2.0"} {
		if out, err := exec.Command(python(t), "-c", script, in, pages).CombinedOutput(); err != nil {
			t.Fatalf("pyarrow: %v\n%s", err, out)
		}
		mustCLI(t, "", "append", dir, in, "--evolve") // the nested column fills the table's; none added
		equalLines(t, "NDJSON scan, pages "+pages, ndjsonTags(t, dir), tagRowsWant)
		equalLines(t, "Arrow scan read by pyarrow, pages "+pages, scanArrowTags(t, dir), tagRowsWant)
	}

	before := dirState(t, dir)
	for _, c := range []struct{ col, want string }{
		{`pa.array([[("k", 1)]], pa.map_(pa.string(), pa.int64()))`, `column "tags.value": is long in the Parquet input, string in the table`},
		{`pa.array([["k"]], pa.list_(pa.string()))`, `column "tags": is a list (list<string>) in the Parquet input, map<string, string> in the table`},
		{`pa.array([{"k": "v"}])`, `column "tags": is a struct (struct<k: string>) in the Parquet input`},
		{`pa.array(['{"k":"v"}'])`, ``}, // a flat string of JSON text: taken as the map's text, as CSV's
	} {
		script := `import sys, pyarrow as pa, pyarrow.parquet as pq
pq.write_table(pa.table({"ts": pa.array([1], pa.timestamp("us", tz="UTC")), "host": ["z"], "tags": ` + c.col + `}), sys.argv[1])`
		bad := filepath.Join(t.TempDir(), "bad.parquet")
		if out, err := exec.Command(python(t), "-c", script, bad).CombinedOutput(); err != nil {
			t.Fatalf("pyarrow: %v\n%s", err, out)
		}
		code, _, errs := cli(t, "", "append", dir, bad)
		if c.want == "" {
			if code != 0 {
				t.Errorf("%s: exit %d, %s", c.col, code, errs)
			}
			continue
		}
		if code == 0 || !strings.Contains(errs, c.want) || !strings.Contains(errs, "[") {
			t.Errorf("%s: exit %d, %s; want %q", c.col, code, errs, c.want)
		}
		if after := dirState(t, dir); len(after) != len(before) {
			t.Errorf("%s: the refused append changed the table", c.col)
		}
	}
	if got := ndjsonTags(t, dir); len(got) != 5 || got[4] != `z {"k":"v"}` {
		t.Errorf("after the JSON text cell: %v", got)
	}
}
