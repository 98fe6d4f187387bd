package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/timelake/timelake/arrowipc"
	"github.com/timelake/timelake/parquet"
	"github.com/timelake/timelake/rows"
	"github.com/timelake/timelake/schema"
)

// TestNumericTimeWarning: numbers in the time column, whatever the input
// format, are read as epoch units; append says so once, naming the column
// and the unit, and not for times given as times.
func TestNumericTimeWarning(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "m")
	mustCLI(t, "", "create", dir, "--time", "ts", "--series", "host", "--column", "cpu:double?")
	warning := func(unit, word string) string {
		return "timelake append: warning: column ts holds numbers, read as " + word + " since 1970-01-01 UTC (--time-unit " + unit +
			"); give --time-unit s, ms, us or ns if that is not their unit\n"
	}
	tmp := t.TempDir()

	// Parquet and Arrow inputs whose ts column is a long (epoch seconds).
	secs := []int64{1795824000, 1795824060, 1795824120}
	specs := []parquet.ColumnSpec{{Name: "ts", Type: schema.Long, Required: true}, {Name: "host", Type: schema.String, Required: true}}
	pw, err := parquet.NewWriter(specs, parquet.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cols := []rows.Column{{Ints: secs}, {Strs: []string{"a", "b", "c"}}}
	if err := pw.Write(cols, 3); err != nil {
		t.Fatal(err)
	}
	pq, _, err := pw.Finish()
	if err != nil {
		t.Fatal(err)
	}
	pqPath := filepath.Join(tmp, "long.parquet")
	os.WriteFile(pqPath, pq, 0o644)
	at := &schema.Table{Fields: []schema.Field{{ID: 1, Name: "ts", Type: schema.Long, Required: true}, {ID: 2, Name: "host", Type: schema.String, Required: true}},
		Time: -1, Ingest: -1}
	sw, err := arrowipc.NewStreamWriter(at)
	if err != nil {
		t.Fatal(err)
	}
	ar, err := sw.Append(nil, &rows.Batch{Schema: at, Cols: cols, Len: 3})
	if err != nil {
		t.Fatal(err)
	}
	arPath := filepath.Join(tmp, "long.arrows")
	os.WriteFile(arPath, sw.End(ar), 0o644)

	for _, c := range []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"CSV epoch ms", "ts,host,cpu\n1795824000000,a,1\n1795824060000,b,2\n", []string{"-", "--format", "csv"}, warning("ms", "milliseconds")},
		{"NDJSON epoch s", `{"ts":1795824000,"host":"a"}` + "\n" + `{"ts":1795824060.5,"host":"b"}` + "\n", []string{"-", "--format", "ndjson", "--time-unit", "s"}, warning("s", "seconds")},
		{"Parquet long", "", []string{pqPath, "--time-unit", "s"}, warning("s", "seconds")},
		{"Arrow long", "", []string{arPath, "--time-unit", "s"}, warning("s", "seconds")},
		// two files and batches of one row: still one warning
		{"two files", "", []string{pqPath, pqPath, "--time-unit", "s", "--batch-rows", "1"}, warning("s", "seconds")},
		{"RFC 3339 times", "ts,host,cpu\n2026-11-28T00:00:00Z,a,1\n", []string{"-", "--format", "csv"}, ""},
	} {
		code, _, errs := cli(t, c.stdin, append([]string{"append", dir}, c.args...)...)
		if code != 0 || errs != c.want {
			t.Errorf("%s: exit %d, stderr %q; want 0 and %q", c.name, code, errs, c.want)
		}
	}
	// the times are what the warning says: seconds since 1970
	if out := mustCLI(t, "", "scan", dir, "--series", "host=c"); out != "ts,host,cpu\n2026-11-28T00:02:00.000000Z,c,\n" {
		t.Errorf("scan of the Parquet rows = %q", out)
	}
}
