package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAppendParquetWithNestedColumn: a Parquet input with a map column
// (pyarrow's) is refused naming the column (UNKNOWN_COLUMN: Timelake
// writes no nested column yet), also under --evolve, leaving the table as
// it was; --ignore-unknown appends the other columns.
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
		if code == 0 || !strings.Contains(errs, `column "tags": is a nested column`) || !strings.Contains(errs, "[UNKNOWN_COLUMN]") {
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
