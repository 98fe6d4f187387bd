package main

// The bad-input corpus of the CLI: each malformed input fails with its exit
// code and the exact message (ending in the stable error code), and the
// table directory is unchanged.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type badCase struct {
	name  string
	stdin string
	argv  []string
	code  int
	want  string // the whole of stderr
}

const hdr = "ts,host,cpu,mem,ok,note\n"

func badCases(dir, badParquet string) []badCase {
	csv := func(name, body string, want string) badCase {
		return badCase{name: name, stdin: body, argv: []string{"append", dir, "-", "--format", "csv"}, code: 1, want: want}
	}
	nd := func(name, body string, want string) badCase {
		return badCase{name: name, stdin: body, argv: []string{"append", dir, "-", "--format", "ndjson"}, code: 1, want: want}
	}
	return []badCase{
		csv("csv unknown column", "ts,host,mem,bogus\n2026-11-28T10:00:00Z,a,1,x\n", "timelake append: -: line 1, column \"bogus\": is not in the table schema (columns: ts, host, cpu, mem, ok, note) [UNKNOWN_COLUMN]\n"),
		csv("csv missing required column", "ts,host,cpu\n2026-11-28T10:00:00Z,a,1\n", "timelake append: -: line 1, column \"mem\": required long column is not in the header [MISSING_COLUMN]\n"),
		csv("csv empty required value", hdr+"2026-11-28T10:00:00Z,a,1,,true,x\n", "timelake append: -: row 1 (line 2), column \"mem\": long column is required but null [MISSING_COLUMN]\n"),
		csv("csv long not a number", hdr+"2026-11-28T10:00:00Z,a,1,12x,true,x\n", "timelake append: -: row 1 (line 2), column \"mem\": cannot parse \"12x\" as long [TYPE_MISMATCH]\n"),
		csv("csv long fraction", hdr+"2026-11-28T10:00:00Z,a,1,1.5,true,x\n", "timelake append: -: row 1 (line 2), column \"mem\": 1.5 has a fraction; long wants an integer [TYPE_MISMATCH]\n"),
		csv("csv long overflow", hdr+"2026-11-28T10:00:00Z,a,1,9223372036854775808,true,x\n", "timelake append: -: row 1 (line 2), column \"mem\": 9223372036854775808 is out of range for long [TYPE_MISMATCH]\n"),
		csv("csv bad boolean", hdr+"2026-11-28T10:00:00Z,a,1,1,yes,x\n", "timelake append: -: row 1 (line 2), column \"ok\": cannot parse \"yes\" as boolean (want true, false, 1 or 0) [TYPE_MISMATCH]\n"),
		csv("csv bad time", hdr+"yesterday,a,1,1,true,x\n", "timelake append: -: row 1 (line 2), column \"ts\": cannot parse \"yesterday\" as a time: want RFC 3339 like 2026-11-29T10:00:00Z or a date like 2026-11-29 [BAD_TIME]\n"),
		csv("csv time out of range", hdr+"900000000000000000,a,1,1,true,x\n", "timelake append: -: row 1 (line 2), column \"ts\": time 900000000000000000 (unit ms) is outside years 0001 to 9999 [TIME_OUT_OF_RANGE]\n"),
		csv("csv year 10000", hdr+"10000-01-01T00:00:00Z,a,1,1,true,x\n", "timelake append: -: row 1 (line 2), column \"ts\": cannot parse \"10000-01-01T00:00:00Z\" as a time: want RFC 3339 like 2026-11-29T10:00:00Z or a date like 2026-11-29 [BAD_TIME]\n"),
		csv("csv duplicate column", "ts,host,mem,mem\n2026-11-28T10:00:00Z,a,1,2\n", "timelake append: -: line 1, column \"mem\": named twice in the header [DUPLICATE_COLUMN]\n"),
		csv("csv field count", hdr+"2026-11-28T10:00:00Z,a,1,1\n", "timelake append: -: row 1 (line 2): line has 4 fields, the header has 6 [FIELD_COUNT]\n"),
		csv("csv invalid utf-8", hdr+"2026-11-28T10:00:00Z,a\xff,1,1,true,x\n", "timelake append: -: row 1 (line 2), column \"host\": value \"a\\xff\" is not valid UTF-8 [INVALID_UTF8]\n"),
		csv("csv bare quote", hdr+"2026-11-28T10:00:00Z,\"a,1,1,true,x\n", "timelake append: -: row 1 (line 2): malformed CSV: extraneous or missing \" in quoted-field [SYNTAX]\n"),
		csv("csv ingest column", "ts,host,mem,_ingest_ts\n2026-11-28T10:00:00Z,a,1,5\n", "timelake append: -: line 1, column \"_ingest_ts\": is set by the writer to the append's time and cannot be given in the input [UNKNOWN_COLUMN]\n"),
		csv("csv header only", hdr, "timelake append: -: the CSV input has a header but no rows [EMPTY_INPUT]\n"),
		csv("csv empty", "", "timelake append: -: the CSV input is empty (no header, no rows) [EMPTY_INPUT]\n"),
		nd("ndjson number into string", `{"ts":"2026-11-28T10:00:00Z","host":"a","mem":1,"note":5}`+"\n", "timelake append: -: row 1 (line 1), column \"note\": number 5 given for a string column (quote it) [TYPE_MISMATCH]\n"),
		nd("ndjson syntax", `{"ts":"2026-11-28T10:00:00Z","host":"a","mem":1`+"\n", "timelake append: -: row 1 (line 1): expected ',' or '}' at byte 48 [SYNTAX]\n"),
		nd("ndjson not an object", `[1,2,3]`+"\n", "timelake append: -: row 1 (line 1): line is not a JSON object (it starts with '[') [SYNTAX]\n"),
		nd("ndjson NaN time", `{"ts":"NaN","host":"a","mem":1}`+"\n", "timelake append: -: row 1 (line 1), column \"ts\": cannot parse \"NaN\" as a time: want RFC 3339 like 2026-11-29T10:00:00Z or a date like 2026-11-29 [BAD_TIME]\n"),
		nd("ndjson missing series", `{"ts":"2026-11-28T10:00:00Z","mem":1}`+"\n", "timelake append: -: row 1 (line 1), column \"host\": string column is required but absent [MISSING_COLUMN]\n"),
		nd("ndjson int too big for long", `{"ts":"2026-11-28T10:00:00Z","host":"a","mem":1e30}`+"\n", "timelake append: -: row 1 (line 1), column \"mem\": 1e+30 is beyond ±2^53, where a float is not an exact integer; write it without a point or exponent [TYPE_MISMATCH]\n"),
		nd("ndjson null required", `{"ts":"2026-11-28T10:00:00Z","host":"a","mem":null}`+"\n", "timelake append: -: row 1 (line 1), column \"mem\": long column is required but null [MISSING_COLUMN]\n"),
		{name: "parquet garbage", argv: []string{"append", dir, badParquet}, code: 1, want: "timelake append: {tmp}/bad.parquet: parquet: corrupt file: footer of 543517801 bytes in a file of 28 [SYNTAX]\n"},
		{name: "append to no table", argv: []string{"append", filepath.Join(filepath.Dir(dir), "nothing"), "-"}, stdin: hdr, code: 1, want: "timelake append: no table at {root}/nothing (no such directory) [NO_TABLE]\n"},
		{name: "create existing", argv: []string{"create", dir, "--time", "ts", "--series", "host"}, code: 1, want: "timelake create: file://{root}/metrics: a table already exists here [TABLE_EXISTS]\n"},
		{name: "bad format flag", argv: []string{"append", dir, "-", "--format", "xml"}, code: 2, want: "timelake append: --format \"xml\": want csv, ndjson, parquet or arrow\n"},
		{name: "bad time unit", argv: []string{"append", dir, "-", "--time-unit", "days"}, code: 2, want: "timelake append: --time-unit: unknown time unit \"days\" (want s, ms, us or ns)\n"},
		{name: "unknown command", argv: []string{"explode", dir}, code: 2, want: "timelake: unknown command \"explode\"\n"},
		{name: "maintain bad flag", argv: []string{"maintain", dir, "--everything"}, code: 2, want: "timelake maintain: unknown flag --everything\n"},
	}
}

func TestBadInputCorpus(t *testing.T) {
	dir := newTable(t)
	mustCLI(t, goodCSV, "append", dir, "-", "--format", "csv")
	badParquet := filepath.Join(t.TempDir(), "bad.parquet")
	if err := os.WriteFile(badParquet, []byte("PAR1 not a parquet file PAR1"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range badCases(dir, badParquet) {
		before := dirState(t, filepath.Dir(dir))
		code, out, errs := cli(t, c.stdin, c.argv...)
		errs = strings.ReplaceAll(errs, filepath.Dir(dir), "{root}")
		errs = strings.ReplaceAll(errs, filepath.Dir(badParquet), "{tmp}")
		if c.code == 2 {
			// A command-line mistake: the message, then the usage.
			first, rest, _ := strings.Cut(errs, "\n")
			if !strings.Contains(rest, "usage:") {
				t.Errorf("%s: no usage after the message: %q", c.name, errs)
			}
			errs = first + "\n"
		}
		if code != c.code || errs != c.want {
			t.Errorf("%s: timelake %s: exit %d, stderr %q; want exit %d, stderr %q", c.name, strings.Join(c.argv, " "), code, errs, c.code, c.want)
		}
		if out != "" {
			t.Errorf("%s: stdout %q, want nothing", c.name, out)
		}
		after := dirState(t, filepath.Dir(dir))
		if len(after) != len(before) {
			t.Errorf("%s: %d files after, %d before", c.name, len(after), len(before))
		}
		for p, b := range before {
			if after[p] != b {
				t.Errorf("%s: %s changed", c.name, p)
			}
		}
	}
}
