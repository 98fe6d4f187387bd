package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNestedIgnoreUnknownField: a struct field the table lacks, at depth 2,
// is left out with --ignore-unknown from Parquet input as from Arrow input
// (and refused without it): both scan back as the table's struct.
func TestNestedIgnoreUnknownField(t *testing.T) {
	script := `import sys, pyarrow as pa, pyarrow.parquet as pq
st = pa.struct([("zz", pa.list_(pa.int64())), ("a", pa.int64()), ("c", pa.struct([("d", pa.float64()), ("yy", pa.map_(pa.string(), pa.string()))]))])
t = pa.table({"ts": pa.array([1, 2, 3], pa.timestamp("us", tz="UTC")), "host": ["x", "y", "z"],
  "st": pa.array([{"zz": [1], "a": 1, "c": {"d": 2.5, "yy": [("k", "v")]}}, None, {"zz": None, "a": None, "c": None}], st)})
if sys.argv[1].endswith(".parquet"):
    pq.write_table(t, sys.argv[1], row_group_size=2)
else:
    with pa.ipc.new_stream(sys.argv[1], t.schema) as w:
        w.write_table(t)
`
	for _, ext := range []string{"arrows", "parquet"} {
		dir := filepath.Join(t.TempDir(), "t")
		mustCLI(t, "", "create", dir, "--time", "ts", "--series", "host", "--column", "ts:timestamptz", "--column", "host:string",
			"--column", "st:struct<a:long,c:struct<d:double>>?")
		in := filepath.Join(t.TempDir(), "in."+ext)
		if out, err := exec.Command(python(t), "-c", script, in).CombinedOutput(); err != nil {
			t.Fatalf("pyarrow: %v\n%s", err, out)
		}
		code, _, errs := cli(t, "", "append", dir, in)
		if code == 0 || !strings.Contains(errs, `column "st.zz"`) || !strings.Contains(errs, "[UNKNOWN_COLUMN]") {
			t.Errorf("%s without --ignore-unknown: exit %d, %s", ext, code, errs)
		}
		if code, _, errs := cli(t, "", "append", dir, in, "--ignore-unknown"); code != 0 {
			t.Errorf("%s with --ignore-unknown: exit %d, %s", ext, code, errs)
			continue
		}
		equalLines(t, ext+" with --ignore-unknown", ndjsonShapes(t, dir, []string{"st"}),
			[]string{`x {"a":1,"c":{"d":2.5}}`, `y null`, `z {"a":null,"c":null}`})
	}
}
