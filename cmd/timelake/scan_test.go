package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/timelake/timelake/parquet"
)

// scanTable is newTable with goodCSV appended, then a rewrite of b's row.
func scanTable(t *testing.T) (dir, firstSnapshot string) {
	t.Helper()
	dir = newTable(t)
	mustCLI(t, goodCSV, "append", dir, "-", "--format", "csv")
	var info struct {
		SnapshotID string `json:"snapshot-id"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, "", "info", dir, "--json")), &info); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, "ts,host,cpu,mem\n2026-11-28T10:01:00Z,b,NaN,201\n2026-11-28T11:00:00.5Z,c,-Infinity,-7\n", "append", dir, "-", "--format", "csv")
	return dir, info.SnapshotID
}

func TestScanCLI(t *testing.T) {
	dir, first := scanTable(t)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"csv", nil, "ts,host,cpu,mem,ok,note\n" +
			"2026-11-28T10:00:00.000000Z,a,1.5,100,true,x\n" +
			"2026-11-29T10:00:00.000000Z,a,2.5,300,false,y\n" +
			"2026-11-28T10:01:00.000000Z,b,NaN,201,,\n" +
			"2026-11-28T11:00:00.500000Z,c,-Infinity,-7,,\n"},
		{"ndjson", []string{"--format", "ndjson", "--series", "host=b,c"},
			`{"ts":"2026-11-28T10:01:00.000000Z","host":"b","cpu":"NaN","mem":201,"ok":null,"note":null}` + "\n" +
				`{"ts":"2026-11-28T11:00:00.500000Z","host":"c","cpu":"-Infinity","mem":-7,"ok":null,"note":null}` + "\n"},
		{"time range and projection", []string{"--from", "2026-11-28T10:00:30Z", "--to", "2026-11-29", "--columns", "mem"},
			"ts,host,mem\n2026-11-28T10:01:00.000000Z,b,201\n2026-11-28T11:00:00.500000Z,c,-7\n"},
		{"epoch milliseconds", []string{"--from", "1795946400000", "--columns", "mem"}, "ts,host,mem\n2026-11-29T10:00:00.000000Z,a,300\n"},
		{"raw", []string{"--raw", "--series", "host=b", "--columns", "mem"},
			"ts,host,mem\n2026-11-28T10:01:00.000000Z,b,200\n2026-11-28T10:01:00.000000Z,b,201\n"},
		{"as of the first snapshot", []string{"--as-of", first, "--series", "host=b", "--columns", "mem"},
			"ts,host,mem\n2026-11-28T10:01:00.000000Z,b,200\n"},
		{"limit", []string{"--limit", "1", "--columns", "note"}, "ts,host,note\n2026-11-28T10:00:00.000000Z,a,x\n"},
		{"empty result", []string{"--series", "host=zz", "--columns", "mem"}, "ts,host,mem\n"},
		{"repeated series flags", []string{"--series", "host=a", "--series", "host=c", "--columns", "mem", "--to", "2026-11-29"},
			"ts,host,mem\n2026-11-28T10:00:00.000000Z,a,100\n2026-11-28T11:00:00.500000Z,c,-7\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := mustCLI(t, "", append([]string{"scan", dir}, tc.args...)...)
			if got != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestScanCLIStatsAndOutput(t *testing.T) {
	dir, _ := scanTable(t)
	out := filepath.Join(t.TempDir(), "out.ndjson")
	code, stdout, stderr := cli(t, "", "scan", dir, "--series", "host=a", "--format", "ndjson", "-o", out, "--stats")
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil || strings.Count(string(b), "\n") != 2 {
		t.Fatalf("-o file: %q, %v", b, err)
	}
	var st struct {
		SnapshotID string `json:"snapshot-id"`
		Files      int    `json:"files"`
		FilesRead  int    `json:"files-read"`
		PagesRead  int    `json:"pages-read"`
		Requests   int    `json:"requests"`
		BytesRead  int64  `json:"bytes-read"`
		Rows       int    `json:"rows"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(stderr)), &st); err != nil {
		t.Fatalf("--stats: %v\n%s", err, stderr)
	}
	if st.Rows != 2 || st.Files != 3 || st.FilesRead == 0 || st.Requests == 0 || st.BytesRead == 0 || st.SnapshotID == "" {
		t.Errorf("stats %+v", st)
	}
}

func TestScanCLIBadInput(t *testing.T) {
	dir, _ := scanTable(t)
	cases := []struct {
		args []string
		exit int
		want string
	}{
		{[]string{"--columns", "nope"}, 1, "[UNKNOWN_COLUMN]"},
		{[]string{"--series", "nope=1"}, 1, "[UNKNOWN_COLUMN]"},
		{[]string{"--series", "mem=1"}, 1, "[BAD_FILTER]"},
		{[]string{"--series", "host="}, 1, "[BAD_FILTER]"},
		{[]string{"--from", "soon"}, 1, "[BAD_TIME]"},
		{[]string{"--from", "2026-11-29", "--to", "2026-11-28"}, 1, "[BAD_RANGE]"},
		{[]string{"--as-of", "1234567890123456"}, 1, "[NO_SNAPSHOT]"},
		{[]string{"--as-of", "2000-01-01"}, 1, "[NO_SNAPSHOT]"},
		{[]string{"--format", "xml"}, 2, "want csv, ndjson, parquet or arrow"},
		{[]string{"--limit", "-3"}, 2, "--limit"},
		{[]string{"--series", "host"}, 2, "COL=V"},
	}
	for _, tc := range cases {
		code, _, stderr := cli(t, "", append([]string{"scan", dir}, tc.args...)...)
		if code != tc.exit || !strings.Contains(stderr, tc.want) {
			t.Errorf("scan %s: exit %d, %s; want exit %d with %q", strings.Join(tc.args, " "), code, stderr, tc.exit, tc.want)
		}
	}
	// an integer series needs integers
	idir := filepath.Join(t.TempDir(), "ints")
	mustCLI(t, "", "create", idir, "--time", "ts", "--series", "sensor", "--column", "sensor:long", "--column", "v:double")
	mustCLI(t, "ts,sensor,v\n2026-11-28T10:00:00Z,7,1\n", "append", idir, "-", "--format", "csv")
	if got := mustCLI(t, "", "scan", idir, "--series", "sensor=7"); got != "ts,sensor,v\n2026-11-28T10:00:00.000000Z,7,1\n" {
		t.Errorf("integer series: %q", got)
	}
	if code, _, stderr := cli(t, "", "scan", idir, "--series", "sensor=x7"); code != 1 || !strings.Contains(stderr, "[BAD_FILTER]") {
		t.Errorf("integer series given text: exit %d, %s", code, stderr)
	}
}

// TestScanCatalogTable: scan reads a table a REST catalog keeps.
func TestScanCatalogTable(t *testing.T) {
	c := authCatalog(t)
	tbl := namespace(t) + ".scanned"
	mustCatCLI(t, c, "", "create", tbl, "--time", "ts", "--series", "host", "--column", "cpu:double?", "--column", "mem:long")
	mustCatCLI(t, c, catCSV1, "append", tbl, "-", "--format", "csv")
	mustCatCLI(t, c, catCSV2, "append", tbl, "-", "--format", "csv")
	got := mustCatCLI(t, c, "", "scan", tbl, "--series", "host=a,b", "--to", "2026-11-29")
	want := "ts,host,cpu,mem\n2026-11-28T10:00:00.000000Z,a,1.5,100\n2026-11-28T11:00:00.000000Z,a,2.5,300\n2026-11-28T10:01:00.000000Z,b,,200\n"
	if got != want {
		t.Fatalf("scan of a catalog table:\n%s\nwant\n%s", got, want)
	}
}

// TestScanCLIParquet: --format parquet writes a file the append reads back
// to the same rows; an empty result is a file of the projected columns.
func TestScanCLIParquet(t *testing.T) {
	dir, _ := scanTable(t)
	out := filepath.Join(t.TempDir(), "out.parquet")
	mustCLI(t, "", "scan", dir, "--format", "parquet", "-o", out)
	copyDir := newTable(t)
	mustCLI(t, "", "append", copyDir, out)
	if a, b := mustCLI(t, "", "scan", dir), mustCLI(t, "", "scan", copyDir); a != b {
		t.Fatalf("the parquet output appended elsewhere scans to\n%s\nnot\n%s", b, a)
	}
	empty := filepath.Join(t.TempDir(), "empty.parquet")
	mustCLI(t, "", "scan", dir, "--series", "host=zz", "--columns", "mem", "--format", "parquet", "-o", empty)
	data, err := os.ReadFile(empty)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parquet.Open(data)
	if err != nil || f.NumRows() != 0 || len(f.Schema()) != 3 {
		t.Fatalf("empty result: %v, %d rows, %d columns; want 0 rows of ts, host, mem", err, f.NumRows(), len(f.Schema()))
	}
}

// TestScanCLIValues: floats print as the float they are, strings escape,
// in CSV and NDJSON.
func TestScanCLIValues(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "v")
	mustCLI(t, "", "create", dir, "--time", "ts", "--series", "k", "--column", "f:float?", "--column", "s:string?", "--column", "b:boolean?")
	mustCLI(t, `{"ts":"2026-11-28T10:00:00.000001Z","k":"a","f":0.1,"s":"say \"hi\"\nthere","b":true}`+"\n", "append", dir, "-", "--format", "ndjson")
	if got, want := mustCLI(t, "", "scan", dir), "ts,k,f,s,b\n2026-11-28T10:00:00.000001Z,a,0.1,\"say \"\"hi\"\"\nthere\",true\n"; got != want {
		t.Errorf("csv %q, want %q", got, want)
	}
	if got, want := mustCLI(t, "", "scan", dir, "--format", "ndjson"), `{"ts":"2026-11-28T10:00:00.000001Z","k":"a","f":0.1,"s":"say \"hi\"\nthere","b":true}`+"\n"; got != want {
		t.Errorf("ndjson %q, want %q", got, want)
	}
}
