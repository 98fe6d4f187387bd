package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// cli runs the command in-process and returns its exit code and output.
func cli(t *testing.T, stdin string, argv ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), argv, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func mustCLI(t *testing.T, stdin string, argv ...string) string {
	t.Helper()
	code, out, errs := cli(t, stdin, argv...)
	if code != 0 {
		t.Fatalf("timelake %s: exit %d\n%s", strings.Join(argv, " "), code, errs)
	}
	return out
}

// dirState is every file under dir with its bytes.
func dirState(t *testing.T, dir string) map[string]string {
	t.Helper()
	st := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		st[p] = string(b)
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return st
}

func newTable(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "metrics")
	mustCLI(t, "", "create", dir, "--time", "ts", "--series", "host",
		"--column", "cpu:double?", "--column", "mem:long", "--column", "ok:boolean?", "--column", "note:string?")
	return dir
}

const goodCSV = "ts,host,cpu,mem,ok,note\n" +
	"2026-11-28T10:00:00Z,a,1.5,100,true,x\n" +
	"2026-11-28T10:01:00Z,b,,200,,\n" +
	"2026-11-29T10:00:00Z,a,2.5,300,false,y\n"

func TestCreateAppendInfoLatestJSON(t *testing.T) {
	dir := newTable(t)
	out := mustCLI(t, goodCSV, "append", dir, "-", "--format", "csv", "--json")
	var res struct {
		Version, Rows, Files, Commits int
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("append --json: %v\n%s", err, out)
	}
	if res.Version != 2 || res.Rows != 3 || res.Files != 2 || res.Commits != 1 {
		t.Errorf("append = %+v, want version 2, 3 rows, 2 files, 1 commit", res)
	}
	var info struct {
		Version    int
		Rows       int64
		Files      int64
		MinTime    string `json:"min-time"`
		MaxTime    string `json:"max-time"`
		Partitions []struct{ Name string }
		Properties map[string]string
	}
	if err := json.Unmarshal([]byte(mustCLI(t, "", "info", dir, "--json")), &info); err != nil {
		t.Fatal(err)
	}
	if info.Version != 2 || info.Rows != 3 || info.Files != 2 || len(info.Partitions) != 2 ||
		info.MinTime != "2026-11-28T10:00:00Z" || info.MaxTime != "2026-11-29T10:00:00Z" ||
		info.Properties["write.parquet.compression-codec"] != "zstd" {
		t.Errorf("info = %+v", info)
	}
	var latest []map[string]any
	if err := json.Unmarshal([]byte(mustCLI(t, "", "latest", dir, "--json")), &latest); err != nil {
		t.Fatal(err)
	}
	if len(latest) != 2 || latest[0]["host"] != "a" || latest[0]["cpu"] != 2.5 || latest[1]["cpu"] != nil || latest[1]["mem"] != float64(200) {
		t.Errorf("latest = %v", latest)
	}
}

func TestAppendBatchesNDJSONAndParquet(t *testing.T) {
	dir := newTable(t)
	var nd strings.Builder
	for i := range 25 {
		nd.WriteString(`{"ts":"2026-11-28T10:00:` + twoDigits(i) + `Z","host":"h","mem":` + strconv.Itoa(i) + "}\n")
	}
	in := filepath.Join(t.TempDir(), "rows.ndjson")
	if err := os.WriteFile(in, []byte(nd.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := mustCLI(t, "", "append", dir, in, "--batch-rows", "10", "--commit-every", "1", "--json")
	var res struct{ Commits, Rows, Version int }
	json.Unmarshal([]byte(out), &res)
	if res.Commits != 3 || res.Rows != 25 || res.Version != 4 {
		t.Errorf("append in batches of 10 = %+v, want 3 commits of 25 rows, version 4", res)
	}
	// Our own data file, read back as Parquet input into a second table.
	var data string
	filepath.WalkDir(filepath.Join(dir, "data"), func(p string, d fs.DirEntry, err error) error {
		if strings.HasSuffix(p, ".parquet") && data == "" {
			data = p
		}
		return nil
	})
	// _ingest_ts is set by the writer: a file carrying it is refused...
	code, _, errs := cli(t, "", "append", newTable(t), data)
	if code != 1 || !strings.Contains(errs, `column "_ingest_ts"`) {
		t.Errorf("parquet with _ingest_ts: exit %d, %q", code, errs)
	}
	// ...while a user's Parquet file (a float column into a double, a null) is
	// aligned by column name.
	dir2 := newTable(t)
	pq := writeParquetInput(t)
	out = mustCLI(t, "", "append", dir2, pq, "--json")
	json.Unmarshal([]byte(out), &res)
	if res.Rows != 3 {
		t.Errorf("parquet append = %+v, want 3 rows", res)
	}
}

func twoDigits(i int) string { return string([]byte{byte('0' + i/10), byte('0' + i%10)}) }

func TestBadInput(t *testing.T) {
	dir := newTable(t)
	mustCLI(t, goodCSV, "append", dir, "-", "--format", "csv")
	corrupt := filepath.Join(t.TempDir(), "corrupt")
	mustCLI(t, "", "create", corrupt, "--time", "ts", "--series", "host")
	os.WriteFile(filepath.Join(corrupt, "metadata", "v2.metadata.json"), []byte(`{"format-version": 2, "table-uu`), 0o644)

	tests := []struct {
		name  string
		table string // default dir
		stdin string
		args  []string // after TABLE
		code  int
		want  []string // substrings of stderr
	}{
		{name: "unknown column", stdin: "ts,host,mem,gpu\n2026-11-28T10:00:00Z,a,1,2\n", args: []string{"-", "--format", "csv"}, code: 1,
			want: []string{"UNKNOWN_COLUMN", `column "gpu"`}},
		{name: "missing required column", stdin: "ts,host\n2026-11-28T10:00:00Z,a\n", args: []string{"-", "--format", "csv"}, code: 1,
			want: []string{`column "mem"`, "required"}},
		{name: "wrong type", stdin: "ts,host,mem\n2026-11-28T10:00:00Z,a,1\n2026-11-28T10:00:00Z,b,lots\n", args: []string{"-", "--format", "csv"}, code: 1,
			want: []string{"row 2", "line 3", `column "mem"`, `"lots"`}},
		{name: "unparsable time", stdin: "ts,host,mem\nyesterday,a,1\n", args: []string{"-", "--format", "csv"}, code: 1,
			want: []string{"row 1", `column "ts"`, `"yesterday"`}},
		{name: "time out of range", stdin: `{"ts":"10000-01-01T00:00:00Z","host":"a","mem":1}` + "\n", args: []string{"-", "--format", "ndjson"}, code: 1,
			want: []string{"row 1", `column "ts"`}},
		{name: "NaN time", stdin: `{"ts":"NaN","host":"a","mem":1}` + "\n", args: []string{"-", "--format", "ndjson"}, code: 1,
			want: []string{"row 1", `column "ts"`}},
		{name: "infinite numeric time", stdin: "ts,host,mem\n1e400,a,1\n", args: []string{"-", "--format", "csv"}, code: 1,
			want: []string{"row 1", `column "ts"`}},
		{name: "duplicate header column", stdin: "ts,host,mem,mem\n2026-11-28T10:00:00Z,a,1,2\n", args: []string{"-", "--format", "csv"}, code: 1,
			want: []string{"DUPLICATE_COLUMN", `column "mem"`}},
		{name: "empty input", stdin: "", args: []string{"-", "--format", "csv"}, code: 1,
			want: []string{"EMPTY_INPUT"}},
		{name: "header but no rows", stdin: "ts,host,mem\n", args: []string{"-", "--format", "csv"}, code: 1,
			want: []string{"EMPTY_INPUT"}},
		{name: "non-UTF-8 string", stdin: "ts,host,mem\n2026-11-28T10:00:00Z,a\xff,1\n", args: []string{"-", "--format", "csv"}, code: 1,
			want: []string{"INVALID_UTF8", "row 1", `column "host"`}},
		{name: "wrong field count", stdin: "ts,host,mem\n2026-11-28T10:00:00Z,a,1\n2026-11-28T10:00:00Z,a\n", args: []string{"-", "--format", "csv"}, code: 1,
			want: []string{"FIELD_COUNT", "line 3"}},
		{name: "append to a missing table", table: filepath.Join(t.TempDir(), "nope"), stdin: goodCSV, args: []string{"-", "--format", "csv"}, code: 1,
			want: []string{"no table at"}},
		{name: "corrupt metadata", table: corrupt, stdin: goodCSV, args: []string{"-", "--format", "csv"}, code: 1,
			want: []string{"v2.metadata.json", "corrupt"}},
		{name: "bad flag value", stdin: goodCSV, args: []string{"-", "--format", "xml"}, code: 2,
			want: []string{`--format "xml"`}},
		{name: "bad batch rows", stdin: goodCSV, args: []string{"-", "--batch-rows", "0"}, code: 2,
			want: []string{"--batch-rows"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tbl := dir
			if tc.table != "" {
				tbl = tc.table
			}
			before := dirState(t, tbl)
			code, _, errs := cli(t, tc.stdin, append([]string{"append", tbl}, tc.args...)...)
			if code != tc.code {
				t.Errorf("exit = %d, want %d; stderr: %s", code, tc.code, errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr %q lacks %q", errs, w)
				}
			}
			after := dirState(t, tbl)
			if len(before) != len(after) {
				t.Errorf("the table changed: %d files before, %d after", len(before), len(after))
			}
			for k, v := range before {
				if after[k] != v {
					t.Errorf("file %s changed", k)
				}
			}
		})
	}
}

func TestCreateErrors(t *testing.T) {
	dir := newTable(t)
	before := dirState(t, dir)
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"create", dir, "--time", "ts", "--series", "host"}, 1, "already exists"},
		{[]string{"create", t.TempDir() + "/x", "--series", "host"}, 2, "--time"},
		{[]string{"create", t.TempDir() + "/x", "--time", "ts", "--series", "h", "--column", "v:decimal"}, 2, `--column "v:decimal"`},
		{[]string{"create", t.TempDir() + "/x", "--time", "ts", "--series", "h", "--partition", "week"}, 2, "--partition"},
		{[]string{"create", t.TempDir() + "/x", "--time", "ts", "--series", "h", "--prop", "write.parquet.page-row-limit=lots"}, 1, "write.parquet.page-row-limit"},
		{[]string{"create", t.TempDir() + "/x", "--time", "ts", "--series", "h", "--prop", "timelake.retention=forever"}, 1, "timelake.retention=\"forever\": want a duration"},
		{[]string{"create", t.TempDir() + "/x", "--time", "ts", "--series", "h", "--prop", "timelake.time-column=x"}, 1, "[BAD_PROPERTY]"},
		{[]string{"create", t.TempDir() + "/x", "--time", "ts", "--series", "h", "--column", "h:double"}, 1, `series column "h"`},
		{[]string{"create", t.TempDir() + "/x", "--time", "ts", "--series", "h", "--column", "_ingest_ts:long"}, 1, `"_ingest_ts" is reserved [BAD_SCHEMA]`},
		{[]string{"create", t.TempDir() + "/x", "--time", "ts", "--series", "h", "--column", "v:long", "--column", "v:long"}, 1, `column "v" declared twice [BAD_SCHEMA]`},
		{[]string{"create", "gs://bucket/t", "--time", "ts", "--series", "h"}, 2, "s3://bucket/prefix"},
		{[]string{"create", "s3://bucket/a/../t", "--time", "ts", "--series", "h"}, 2, "dot segment"},
	}
	for _, tc := range tests {
		code, _, errs := cli(t, "", tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("timelake %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tc.args, " "), code, errs, tc.code, tc.want)
		}
	}
	after := dirState(t, dir)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("create on an existing table changed %s", k)
		}
	}
	if len(after) != len(before) {
		t.Errorf("create on an existing table added files")
	}
}

// TestLatestJSONNonFinite: NaN and infinities have no JSON number; latest
// --json writes them as scan does ("NaN", "Infinity", "-Infinity").
func TestLatestJSONNonFinite(t *testing.T) {
	dir := newTable(t)
	mustCLI(t, "ts,host,cpu,mem\n2026-11-28T10:00:00Z,a,NaN,1\n2026-11-28T10:00:00Z,b,Infinity,2\n2026-11-28T10:00:00Z,c,-Infinity,3\n", "append", dir, "-", "--format", "csv")
	var latest []map[string]any
	out := mustCLI(t, "", "latest", dir, "--json")
	if err := json.Unmarshal([]byte(out), &latest); err != nil {
		t.Fatalf("latest --json: %v\n%s", err, out)
	}
	got := map[any]any{}
	for _, r := range latest {
		got[r["host"]] = r["cpu"]
	}
	if got["a"] != "NaN" || got["b"] != "Infinity" || got["c"] != "-Infinity" {
		t.Errorf("latest cpu by host = %v, want NaN, Infinity, -Infinity as strings", got)
	}
}

// TestOneSeriesTable: create without --series makes a table of one series,
// keyed by time alone: a later row at the same time replaces the earlier.
func TestOneSeriesTable(t *testing.T) {
	dir := t.TempDir() + "/one"
	mustCLI(t, "", "create", dir, "--time", "ts", "--column", "v:double")
	in := "ts,v\n2026-11-20T00:00:00Z,1\n2026-11-20T00:01:00Z,2\n"
	mustCLI(t, in, "append", dir, "-", "--format", "csv")
	mustCLI(t, "ts,v\n2026-11-20T00:01:00Z,3\n", "append", dir, "-", "--format", "csv")
	out := mustCLI(t, "", "scan", dir, "--format", "ndjson")
	if got := strings.Count(out, "\n"); got != 2 || !strings.Contains(out, `"v":3`) {
		t.Errorf("scan: %q; want 2 rows, the later value 3 at 00:01", out)
	}
	if out := mustCLI(t, "", "latest", dir, "--json"); strings.Count(out, `"ts"`) != 1 || !strings.Contains(out, `"v": 3`) {
		t.Errorf("latest: %q; want the one latest row, v 3", out)
	}
	if out := mustCLI(t, "", "info", dir); !strings.Contains(out, "ts; one series") {
		t.Errorf("info: %q; want the key named", out)
	}
}
