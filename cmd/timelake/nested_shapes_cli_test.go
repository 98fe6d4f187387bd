package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The combinations of nested inputs and outputs on tables created with
// nested columns by `create --column`: Arrow (pyarrow's streams and the
// committed nested.arrows), Parquet (pyarrow's files, pages v1 and v2,
// several row groups) and NDJSON appended into a list, a struct to depth
// 3, a map of longs and a map of lists of structs; compacted between the
// appends; scanned back exactly as NDJSON and as Arrow pyarrow reads.

// shapesColumns are the table's columns: a list of longs, a struct holding
// a list and a struct holding a map (depth 3), a map of longs and a map of
// lists of structs (depth 3).
var shapesColumns = []string{
	"ts:timestamptz", "host:string",
	"lst:list<long>?",
	"st:struct<a:long, b:list<string>, c:struct<d:double, e:map<string,long>>>?",
	"mp:map<string,long>?",
	"deep:map<string,list<struct<a:long>>>?",
}

var shapesNames = []string{"lst", "st", "mp", "deep"}

// shapesRows are the nested values of the four rows every source appends,
// as scan prints them (lst, st, mp, deep): the int64 ends and a long past
// 2^53, escapes and unicode, nulls at every level, empties.
var shapesRows = [][4]string{
	{`[9223372036854775807,-9223372036854775808,null,0]`,
		`{"a":9007199254740993,"b":["x",null,"é\"\n"],"c":{"d":1.5,"e":{"k":1,"z":null}}}`,
		`{"k":-5,"日本":null}`,
		`{"q":[{"a":1},null,{"a":null}],"r":[]}`},
	{`null`, `null`, `null`, `null`},
	{`[]`, `{"a":null,"b":[],"c":null}`, `{}`, `{}`},
	{`[7]`, `{"a":-1,"b":null,"c":{"d":-0.25,"e":{}}}`, `{"":0}`, `{"x":null}`},
}

// shapesPy makes the rows as a pyarrow table of the given host prefix
// (hosts P1..P4, one microsecond apart).
const shapesPy = `import sys, pyarrow as pa, pyarrow.parquet as pq
p = sys.argv[2]
st = pa.struct([("a", pa.int64()), ("b", pa.list_(pa.string())), ("c", pa.struct([("d", pa.float64()), ("e", pa.map_(pa.string(), pa.int64()))]))])
deep = pa.map_(pa.string(), pa.list_(pa.struct([("a", pa.int64())])))
t = pa.table({
  "ts": pa.array([1_700_000_000_000_000 + i for i in range(4)], pa.timestamp("us", tz="UTC")),
  "host": [p + "1", p + "2", p + "3", p + "4"],
  "lst": pa.array([[2**63 - 1, -2**63, None, 0], None, [], [7]], pa.list_(pa.int64())),
  "st": pa.array([{"a": 2**53 + 1, "b": ["x", None, "é\"\n"], "c": {"d": 1.5, "e": [("k", 1), ("z", None)]}}, None,
                  {"a": None, "b": [], "c": None}, {"a": -1, "b": None, "c": {"d": -0.25, "e": []}}], st),
  "mp": pa.array([[("k", -5), ("日本", None)], None, [], [("", 0)]], pa.map_(pa.string(), pa.int64())),
  "deep": pa.array([[("q", [{"a": 1}, None, {"a": None}]), ("r", [])], None, [], [("x", None)]], deep),
})
out = sys.argv[1]
if out.endswith(".parquet"):
    pq.write_table(t, out, row_group_size=2, data_page_version=sys.argv[3])
else:
    with pa.ipc.new_stream(out, t.schema) as w:
        w.write_table(t.slice(0, 3))
        w.write_table(t.slice(3))
`

func shapesTable(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "t")
	args := []string{"create", dir, "--time", "ts", "--series", "host"}
	for _, c := range shapesColumns {
		args = append(args, "--column", c)
	}
	mustCLI(t, "", args...)
	return dir
}

// shapesWant is the lines "host lst st mp deep" the hosts of the prefixes
// have, sorted.
func shapesWant(prefixes ...string) []string {
	var want []string
	for _, p := range prefixes {
		for i, r := range shapesRows {
			want = append(want, p+string(rune('1'+i))+" "+strings.Join(r[:], " "))
		}
	}
	sort.Strings(want)
	return want
}

// ndjsonShapes is scan's NDJSON of dir as "host lst st mp deep" lines.
func ndjsonShapes(t *testing.T, dir string, names []string) []string {
	t.Helper()
	var lines []string
	out := strings.TrimSpace(mustCLI(t, "", "scan", dir, "--format", "ndjson", "--columns", "host,"+strings.Join(names, ",")))
	for _, l := range strings.Split(out, "\n") {
		var r map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		var host string
		json.Unmarshal(r["host"], &host)
		line := host
		for _, n := range names {
			v := string(r[n])
			if v == "" {
				v = "absent"
			}
			line += " " + v
		}
		lines = append(lines, line)
	}
	sort.Strings(lines)
	return lines
}

// arrowShapes has pyarrow read scan --format arrow of dir (validated in
// full) and returns the same lines, checking each column's Arrow type.
func arrowShapes(t *testing.T, dir string, names []string, types map[string]string) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "out.arrows")
	mustCLI(t, "", "scan", dir, "--format", "arrow", "--columns", "host,"+strings.Join(names, ","), "-o", path)
	out, err := exec.Command(python(t), filepath.Join("..", "..", "arrowipc", "testdata", "readnested.py"), path).Output()
	if err != nil {
		t.Fatalf("pyarrow: %v", err)
	}
	var got pyNestedOut
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, f := range got.Schema {
		col[f.Name] = i
		if want, ok := types[f.Name]; ok && f.Type != want {
			t.Errorf("pyarrow sees %s as %s; want %s", f.Name, f.Type, want)
		}
	}
	var lines []string
	for _, r := range got.Rows {
		var host string
		json.Unmarshal([]byte(*r[col["host"]]), &host)
		line := host
		for _, n := range names {
			i, ok := col[n]
			if !ok {
				t.Fatalf("pyarrow sees no column %s in %+v", n, got.Schema)
			}
			v := "null"
			if r[i] != nil {
				v = *r[i]
			}
			line += " " + v
		}
		lines = append(lines, line)
	}
	sort.Strings(lines)
	return lines
}

var shapesArrowTypes = map[string]string{
	"lst":  "list<element: int64>",
	"st":   "struct<a: int64, b: list<element: string>, c: struct<d: double, e: map<string, int64>>>",
	"mp":   "map<string, int64>",
	"deep": "map<string, list<element: struct<a: int64>>>",
}

func makeShapes(t *testing.T, path, prefix string, extra ...string) {
	t.Helper()
	args := append([]string{"-c", shapesPy, path, prefix}, extra...)
	if out, err := exec.Command(python(t), args...).CombinedOutput(); err != nil {
		t.Fatalf("pyarrow: %v\n%s", err, out)
	}
}

// shapesNDJSON is the rows as NDJSON of hosts prefix1..prefix4.
func shapesNDJSON(prefix string) string {
	var b strings.Builder
	for i, r := range shapesRows {
		b.WriteString(`{"ts":"2023-11-14T22:13:20.00000` + string(rune('0'+i)) + `Z","host":"` + prefix + string(rune('1'+i)) + `"`)
		for j, n := range shapesNames {
			b.WriteString(`,"` + n + `":` + r[j])
		}
		b.WriteString("}\n")
	}
	return b.String()
}

// TestNestedShapesInputs: pyarrow's Arrow stream, pyarrow's Parquet files
// (pages v1 and v2, row groups of two rows) and NDJSON of the same values
// append into the created table's list, struct and map columns, a
// compaction between each; every row scans back exactly as NDJSON and as
// Arrow that pyarrow reads as the table's nested types.
func TestNestedShapesInputs(t *testing.T) {
	dir := shapesTable(t)
	tmp := t.TempDir()
	check := func(step string, prefixes ...string) {
		t.Helper()
		want := shapesWant(prefixes...)
		equalLines(t, step+": NDJSON scan", ndjsonShapes(t, dir, shapesNames), want)
		equalLines(t, step+": Arrow scan read by pyarrow", arrowShapes(t, dir, shapesNames, shapesArrowTypes), want)
	}

	arrow := filepath.Join(tmp, "in.arrows")
	makeShapes(t, arrow, "A")
	mustCLI(t, "", "append", dir, arrow, "--format", "arrow")
	check("Arrow", "A")
	mustCLI(t, "", "maintain", dir)
	check("Arrow, maintained", "A")

	for _, pages := range []string{"1.0", "2.0"} {
		pq := filepath.Join(tmp, "in"+pages+".parquet")
		prefix := "P" + pages[:1]
		makeShapes(t, pq, prefix, pages)
		mustCLI(t, "", "append", dir, pq)
	}
	check("Arrow, Parquet", "A", "P1", "P2")
	mustCLI(t, "", "maintain", dir)
	check("Arrow, Parquet, maintained", "A", "P1", "P2")

	mustCLI(t, shapesNDJSON("N"), "append", dir, "-", "--format", "ndjson")
	check("Arrow, Parquet, NDJSON", "A", "P1", "P2", "N")
	mustCLI(t, "", "maintain", dir)
	check("all, maintained", "A", "P1", "P2", "N")

	// the scan's own Arrow output appends to a second table as the same rows
	again := shapesTable(t)
	out := filepath.Join(tmp, "scan.arrows")
	mustCLI(t, "", "scan", dir, "--format", "arrow", "-o", out)
	mustCLI(t, "", "append", again, out, "--format", "arrow")
	equalLines(t, "scan's Arrow → second table", ndjsonShapes(t, again, shapesNames), shapesWant("A", "P1", "P2", "N"))
	// and its Parquet output too
	pqOut := filepath.Join(tmp, "scan.parquet")
	mustCLI(t, "", "scan", dir, "--format", "parquet", "-o", pqOut)
	third := shapesTable(t)
	mustCLI(t, "", "append", third, pqOut)
	equalLines(t, "scan's Parquet → third table", ndjsonShapes(t, third, shapesNames), shapesWant("A", "P1", "P2", "N"))
}

// TestNestedFixtureArrow: the committed arrowipc/testdata/nested.arrows (a
// list of longs, a struct of an int and a string, a map<string, long>,
// beside columns the table lacks) appends into a table created with those
// columns and scans back exactly, before and after a compaction.
func TestNestedFixtureArrow(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t")
	mustCLI(t, "", "create", dir, "--time", "ts", "--series", "host", "--column", "ts:timestamptz", "--column", "host:string",
		"--column", "cpu:double?", "--column", "lst:list<long>?", "--column", "st:struct<x:int,y:string>?", "--column", "mp:map<string,long>?")
	fixture := filepath.Join("..", "..", "arrowipc", "testdata", "nested.arrows")
	code, _, errs := cli(t, "", "append", dir, fixture, "--format", "arrow")
	if code == 0 || !strings.Contains(errs, "[UNKNOWN_COLUMN]") {
		t.Errorf("the fixture's extra columns without --ignore-unknown: exit %d, %s", code, errs)
	}
	mustCLI(t, "", "append", dir, fixture, "--format", "arrow", "--ignore-unknown")
	names := []string{"lst", "st", "mp"}
	want := []string{`a [1,2] {"x":1,"y":"q"} {"k":1}`, `b null null {}`}
	types := map[string]string{"lst": "list<element: int64>", "st": "struct<x: int32, y: string>", "mp": "map<string, int64>"}
	equalLines(t, "NDJSON scan", ndjsonShapes(t, dir, names), want)
	equalLines(t, "Arrow scan read by pyarrow", arrowShapes(t, dir, names, types), want)
	mustCLI(t, "", "append", dir, fixture, "--format", "arrow", "--ignore-unknown")
	mustCLI(t, "", "maintain", dir)
	equalLines(t, "NDJSON scan, appended twice and maintained", ndjsonShapes(t, dir, names), want)
	equalLines(t, "Arrow scan, appended twice and maintained", arrowShapes(t, dir, names, types), want)
}

// TestNestedShapesDeepMismatch: an Arrow or Parquet input whose nested
// column differs from the table's at depth 3 is refused with the code and
// the path of the difference, the table unchanged.
func TestNestedShapesDeepMismatch(t *testing.T) {
	dir := shapesTable(t)
	before := dirState(t, dir)
	for _, c := range []struct{ st, ext, want string }{
		{`pa.struct([("c", pa.struct([("e", pa.map_(pa.string(), pa.string()))]))])`, "arrows", `st.c.e.value`},
		{`pa.struct([("c", pa.struct([("e", pa.map_(pa.string(), pa.string()))]))])`, "parquet", `st.c.e.value`},
		{`pa.struct([("c", pa.struct([("zz", pa.int64())]))])`, "arrows", `st.c.zz`},
		{`pa.struct([("c", pa.struct([("zz", pa.int64())]))])`, "parquet", `st.c.zz`},
		{`pa.struct([("b", pa.list_(pa.list_(pa.string())))])`, "arrows", `st.b`},
		{`pa.struct([("b", pa.list_(pa.list_(pa.string())))])`, "parquet", `st.b`},
	} {
		script := `import sys, pyarrow as pa, pyarrow.parquet as pq
t = pa.table({"ts": pa.array([1], pa.timestamp("us", tz="UTC")), "host": ["z"], "st": pa.array([None], ` + c.st + `)})
if sys.argv[1].endswith(".parquet"):
    pq.write_table(t, sys.argv[1])
else:
    with pa.ipc.new_stream(sys.argv[1], t.schema) as w:
        w.write_table(t)
`
		bad := filepath.Join(t.TempDir(), "bad."+c.ext)
		if out, err := exec.Command(python(t), "-c", script, bad).CombinedOutput(); err != nil {
			t.Fatalf("pyarrow: %v\n%s", err, out)
		}
		code, _, errs := cli(t, "", "append", dir, bad)
		if code == 0 || !strings.Contains(errs, c.want) || !(strings.Contains(errs, "[TYPE_MISMATCH]") || strings.Contains(errs, "[UNKNOWN_COLUMN]")) {
			t.Errorf("%s %s: exit %d, %s; want the path %s", c.ext, c.st, code, errs, c.want)
		} else {
			t.Logf("%s: %s", c.ext, strings.TrimSpace(errs))
		}
		if after := dirState(t, dir); len(after) != len(before) {
			t.Errorf("%s %s: the refused append changed the table", c.ext, c.st)
		}
	}
}
