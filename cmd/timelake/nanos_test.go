package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCLINanos: a format 3 table with a timestamptz_ns time column and a
// timestamp_ns value column takes RFC 3339 with 9 digits and integer
// epochs (--time-unit ns), and scan (CSV, NDJSON) and latest (text, JSON)
// print all 9 digits of its times, with Z only for the zoned column; a
// format 2 create with an ns column is BAD_SCHEMA.
func TestCLINanos(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t")
	code, _, errs := cli(t, "", "create", dir, "--time", "ts", "--series", "host", "--column", "ts:timestamptz_ns", "--column", "seen:timestamp_ns?")
	if code == 0 || !strings.Contains(errs, "[BAD_SCHEMA]") || !strings.Contains(errs, "format-version 3") {
		t.Fatalf("v2 create with ns: exit %d, %s", code, errs)
	}
	mustCLI(t, "", "create", dir, "--format-version", "3", "--time", "ts", "--series", "host", "--column", "ts:timestamptz_ns", "--column", "seen:timestamp_ns?")
	mustCLI(t, "ts,host,seen\n2026-11-29T10:00:00.123456789Z,a,1969-12-31T23:59:59.999999999\n2026-11-29T10:00:00.123456790+00:00,a,\n", "append", dir, "-", "--format", "csv")
	mustCLI(t, "ts,host,seen\n1795946400000000001,b,1\n", "append", dir, "-", "--format", "csv", "--time-unit", "ns")
	csv := mustCLI(t, "", "scan", dir)
	want := "ts,host,seen\n" +
		"2026-11-29T10:00:00.123456789Z,a,1969-12-31T23:59:59.999999999\n" +
		"2026-11-29T10:00:00.123456790Z,a,\n" +
		"2026-11-29T10:00:00.000000001Z,b,1970-01-01T00:00:00.000000001\n"
	if csv != want {
		t.Errorf("scan:\n%s\nwant:\n%s", csv, want)
	}
	if got := mustCLI(t, "", "scan", dir, "--from", "2026-11-29T10:00:00.12345679Z"); got != "ts,host,seen\n2026-11-29T10:00:00.123456790Z,a,\n" {
		t.Errorf("scan --from to the nanosecond:\n%s", got)
	}
	if got := mustCLI(t, "", "scan", dir, "--to", "2026-11-29T10:00:00.000000001Z"); got != "ts,host,seen\n" {
		t.Errorf("scan --to to the nanosecond:\n%s", got)
	}
	if got := mustCLI(t, "", "scan", dir, "--from", "2026-11-29T10:00:00.000000001Z", "--to", "2026-11-29T10:00:00.000000002Z"); got != "ts,host,seen\n2026-11-29T10:00:00.000000001Z,b,1970-01-01T00:00:00.000000001\n" {
		t.Errorf("scan within one microsecond:\n%s", got)
	}
	nd := mustCLI(t, "", "scan", dir, "--format", "ndjson", "--series", "host=b")
	if !strings.Contains(nd, `"ts":"2026-11-29T10:00:00.000000001Z"`) || !strings.Contains(nd, `"seen":"1970-01-01T00:00:00.000000001"`) {
		t.Errorf("scan ndjson: %s", nd)
	}
	latest := mustCLI(t, "", "latest", dir)
	if !strings.Contains(latest, "2026-11-29T10:00:00.123456790Z") || !strings.Contains(latest, "2026-11-29T10:00:00.000000001Z") {
		t.Errorf("latest:\n%s", latest)
	}
	js := mustCLI(t, "", "latest", dir, "--json")
	if !strings.Contains(js, `"2026-11-29T10:00:00.123456790Z"`) || !strings.Contains(js, `"1970-01-01T00:00:00.000000001"`) {
		t.Errorf("latest --json: %s", js)
	}
	// pyarrow's timestamp[ns] Parquet columns into ns columns: every digit
	dir2 := filepath.Join(t.TempDir(), "p")
	mustCLI(t, "", "create", dir2, "--format-version", "3", "--time", "ns_utc", "--column", "ns_utc:timestamptz_ns", "--column", "neg_ns:timestamptz_ns?", "--column", "us_utc:timestamptz?")
	mustCLI(t, "", "append", dir2, filepath.Join("..", "..", "parquet", "testdata", "foreign", "times_v2.parquet"), "--ignore-unknown")
	out := mustCLI(t, "", "scan", dir2, "--limit", "2")
	want = "ns_utc,neg_ns,us_utc\n" +
		"2023-11-14T22:13:20.123456789Z,1916-02-18T01:46:39.876543211Z,2023-11-14T22:13:20.123456Z\n" +
		"2023-11-14T22:13:21.123459796Z,1916-02-18T01:46:38.876540204Z,2023-11-14T22:13:21.123459Z\n"
	if out != want {
		t.Errorf("scan of pyarrow's ns columns:\n%s\nwant:\n%s", out, want)
	}
}
