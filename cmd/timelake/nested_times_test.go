package main

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/timelake/timelake/internal/interoptest"
)

// TestNestedParquetTimeUnits: a Parquet input's nested timestamp leaves of
// another unit or zone (pyarrow writes nanoseconds by default; a
// millisecond timestamp without zone) fill the table's timestamp leaves as
// the Arrow input's and a flat Parquet column's do: converted to the
// table's unit, sub-units dropped. Both inputs scan back the same.
func TestNestedParquetTimeUnits(t *testing.T) {
	script := `import sys, pyarrow as pa, pyarrow.parquet as pq, datetime as dt
z = dt.timezone.utc
tm = pa.array([[("a", dt.datetime(2026, 1, 1, 0, 0, 0, 500, tzinfo=z)), ("b", None)], None], pa.map_(pa.string(), pa.timestamp("ns", tz="UTC")))
st = pa.array([{"t": dt.datetime(2026, 1, 1, 1, 2, 3, 4000), "n": [dt.datetime(2026, 1, 1, 0, 0, 0, 7, tzinfo=z)]}, {"t": None, "n": []}],
  pa.struct([("t", pa.timestamp("ms")), ("n", pa.list_(pa.timestamp("us", tz="UTC")))]))
t = pa.table({"ts": pa.array([1, 2], pa.timestamp("us", tz="UTC")), "host": ["x", "y"], "tm": tm, "st": st})
if sys.argv[1].endswith(".parquet"):
    pq.write_table(t, sys.argv[1])
else:
    with pa.ipc.new_stream(sys.argv[1], t.schema) as w:
        w.write_table(t)
`
	want := []string{
		`x {"a":"2026-01-01T00:00:00.000500Z","b":null} {"t":"2026-01-01T01:02:03.004000Z","n":["2026-01-01T00:00:00.000007000Z"]}`,
		`y null {"t":null,"n":[]}`,
	}
	for _, ext := range []string{"arrows", "parquet"} {
		dir := filepath.Join(t.TempDir(), "t")
		mustCLI(t, "", "create", dir, "--time", "ts", "--series", "host", "--column", "ts:timestamptz", "--column", "host:string",
			"--column", "tm:map<string,timestamptz>?", "--column", "st:struct<t:timestamptz, n:list<timestamptz_ns>>?")
		in := filepath.Join(t.TempDir(), "in."+ext)
		if out, err := exec.Command(python(t), "-c", script, in).CombinedOutput(); err != nil {
			t.Fatalf("pyarrow: %v\n%s", err, out)
		}
		if code, _, errs := cli(t, "", "append", dir, in); code != 0 {
			t.Errorf("%s: exit %d, %s", ext, code, errs)
			continue
		}
		equalLines(t, ext, ndjsonShapes(t, dir, []string{"tm", "st"}), want)
	}
}

// TestNestedKeyTypes: maps keyed by long, timestamptz (nanoseconds in the
// Parquet input) and boolean, from pyarrow's Parquet file and Arrow stream,
// scan back exactly as NDJSON, as Arrow pyarrow reads, through CSV into
// another table, and as iceberg-go reads them.
func TestNestedKeyTypes(t *testing.T) {
	script := `import sys, pyarrow as pa, pyarrow.parquet as pq, datetime as dt
z = dt.timezone.utc
p = sys.argv[2]
t = pa.table({"ts": pa.array([1, 2], pa.timestamp("us", tz="UTC")), "host": [p + "x", p + "y"],
  "ml": pa.array([[(7, "a"), (-2**63, None)], []], pa.map_(pa.int64(), pa.string())),
  "mt": pa.array([[(dt.datetime(2026, 1, 1, 0, 0, 0, 5, tzinfo=z), True)], None], pa.map_(pa.timestamp("ns", tz="UTC"), pa.bool_())),
  "mb": pa.array([[(True, [1.5, None, float("nan"), float("-inf")])], [(False, None)]], pa.map_(pa.bool_(), pa.list_(pa.float32())))})
if sys.argv[1].endswith(".parquet"):
    pq.write_table(t, sys.argv[1])
else:
    with pa.ipc.new_stream(sys.argv[1], t.schema) as w:
        w.write_table(t)
`
	cols := []string{"create", "", "--time", "ts", "--series", "host", "--column", "ts:timestamptz", "--column", "host:string",
		"--column", "ml:map<long,string>?", "--column", "mt:map<timestamptz,boolean>?", "--column", "mb:map<boolean,list<float>>?"}
	create := func() string {
		dir := filepath.Join(t.TempDir(), "t")
		cols[1] = dir
		mustCLI(t, "", cols...)
		return dir
	}
	dir := create()
	for _, in := range []struct{ file, prefix string }{{"in.parquet", "P"}, {"in.arrows", "A"}} {
		path := filepath.Join(t.TempDir(), in.file)
		if out, err := exec.Command(python(t), "-c", script, path, in.prefix).CombinedOutput(); err != nil {
			t.Fatalf("pyarrow: %v\n%s", err, out)
		}
		mustCLI(t, "", "append", dir, path)
	}
	mustCLI(t, "", "maintain", dir)
	names := []string{"ml", "mt", "mb"}
	var want []string
	for _, p := range []string{"A", "P"} {
		want = append(want,
			p+`x {"7":"a","-9223372036854775808":null} {"2026-01-01T00:00:00.000005Z":true} {"true":[1.5,null,"NaN","-Inf"]}`,
			p+`y {} null {"false":null}`)
	}
	equalLines(t, "NDJSON scan", ndjsonShapes(t, dir, names), want)
	equalLines(t, "Arrow scan read by pyarrow", arrowShapes(t, dir, names, map[string]string{
		"ml": "map<int64, string>", "mt": "map<timestamp[us, tz=UTC], bool>", "mb": "map<bool, list<element: float>>"}), want)
	csv := filepath.Join(t.TempDir(), "out.csv")
	mustCLI(t, "", "scan", dir, "--format", "csv", "-o", csv)
	again := create()
	mustCLI(t, "", "append", again, csv)
	equalLines(t, "CSV → another table", ndjsonShapes(t, again, names), want)
	got := interoptest.Summarize(t, interoptest.IcebergGo, latestMetadata(t, dir), interoptest.Query{Time: "ts", Series: []string{"host"}, Values: names})
	var lines []string
	for _, v := range got.Values {
		lines = append(lines, string(v))
	}
	if got.Error != "" {
		t.Fatalf("iceberg-go: %s", got.Error)
	}
	equalLines(t, "iceberg-go", lines, scanObjectsOf(t, dir, names))
}
