package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestCreateNoIngestColumn: create --no-ingest-column makes a table
// without _ingest_ts (the property says so); appends, latest and
// compaction rank a duplicate key by commit, the later append winning;
// input naming _ingest_ts is UNKNOWN_COLUMN.
func TestCreateNoIngestColumn(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "metrics")
	out := mustCLI(t, "", "create", dir, "--time", "ts", "--series", "host",
		"--column", "cpu:double?", "--column", "mem:long", "--no-ingest-column", "--json")
	var created struct{ Columns int }
	if err := json.Unmarshal([]byte(out), &created); err != nil || created.Columns != 4 {
		t.Fatalf("create --json = %s (%v), want 4 columns", out, err)
	}
	steps := []struct {
		name       string
		argv       []string
		csv        string
		wantLatest string // host=mem of latest --json, by host
	}{
		{"first append", []string{"append", dir, "-", "--format", "csv"},
			"ts,host,cpu,mem\n2020-01-01T00:00:00Z,a,1,100\n2020-01-01T00:01:00Z,a,1,101\n2020-01-01T00:01:00Z,b,1,200\n2020-01-01T00:01:00Z,b,1,201\n",
			"a=101 b=201"},
		{"later append of the same keys", []string{"append", dir, "-", "--format", "csv"},
			"ts,host,cpu,mem\n2020-01-01T00:01:00Z,a,2,111\n2020-01-01T00:00:00Z,b,2,210\n",
			"a=111 b=201"},
		{"compaction", []string{"maintain", dir, "--compact"}, "", "a=111 b=201"},
	}
	for _, s := range steps {
		mustCLI(t, s.csv, s.argv...)
		var latest []map[string]any
		if err := json.Unmarshal([]byte(mustCLI(t, "", "latest", dir, "--json")), &latest); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range latest {
			if _, ok := r["_ingest_ts"]; ok {
				t.Errorf("%s: latest has _ingest_ts: %v", s.name, r)
			}
			b, _ := json.Marshal(r["mem"])
			got = append(got, r["host"].(string)+"="+string(b))
		}
		if g := strings.Join(got, " "); g != s.wantLatest {
			t.Errorf("%s: latest = %s, want %s", s.name, g, s.wantLatest)
		}
	}
	var info struct {
		Rows       int64
		Files      int64
		Properties map[string]string
	}
	if err := json.Unmarshal([]byte(mustCLI(t, "", "info", dir, "--json")), &info); err != nil {
		t.Fatal(err)
	}
	if info.Rows != 4 || info.Files != 1 || info.Properties["timelake.ingest-column"] != "false" {
		t.Errorf("info after compaction = %+v, want 4 rows (one per key) in 1 file, timelake.ingest-column=false", info)
	}
	code, _, errs := cli(t, "ts,host,mem,_ingest_ts\n2020-01-01T00:00:00Z,a,1,5\n", "append", dir, "-", "--format", "csv")
	if code == 0 || !strings.Contains(errs, `column "_ingest_ts": is not in this table`) || !strings.Contains(errs, "[UNKNOWN_COLUMN]") {
		t.Errorf("append naming _ingest_ts: exit %d, %q", code, errs)
	}
}

// TestNoIngestParquetUnknown: on a table without _ingest_ts, a Parquet
// input's column the table lacks (cpu here) is UNKNOWN_COLUMN, and skipped
// with --ignore-unknown.
func TestNoIngestParquetUnknown(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "m")
	mustCLI(t, "", "create", dir, "--time", "ts", "--series", "host", "--column", "mem:long", "--no-ingest-column")
	in := writeParquetInput(t)
	cases := []struct {
		name     string
		extra    []string
		wantCode int
		wantErr  string
	}{
		{"unknown column", nil, 1, `column "cpu": is not a column of the table [UNKNOWN_COLUMN]`},
		{"unknown column ignored", []string{"--ignore-unknown"}, 0, ""},
	}
	for _, c := range cases {
		code, _, errs := cli(t, "", append([]string{"append", dir, in}, c.extra...)...)
		if code != c.wantCode || !strings.Contains(errs, c.wantErr) {
			t.Errorf("%s: exit %d, %q; want exit %d with %q", c.name, code, errs, c.wantCode, c.wantErr)
		}
	}
}
