package main

import (
	"os/exec"
	"path/filepath"
	"testing"
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
