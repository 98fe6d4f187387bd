package rows

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// TestErrors covers every error code through each input that can raise it,
// with the full message a user sees.
func TestErrors(t *testing.T) {
	tb := testTable(t)
	const h = "ts,host,cpu\n"
	const ok = `{"ts":"2026-11-29T10:00:00Z","host":"a"}` + "\n"
	cases := []struct {
		name   string
		format string // csv, ndjson, maps
		in     string
		maps   []map[string]any
		opt    Options
		code   string
		row    int
		line   int
		column string
		err    string // Error()
	}{
		{"csv unknown", "csv", "ts,host,gpu\n", nil, Options{}, CodeUnknownColumn, 0, 1, "gpu",
			`line 1, column "gpu": is not in the table schema (columns: ts, host, cpu, mem, n, f, ok, note)`},
		{"csv ingest", "csv", "ts,host,_ingest_ts\n", nil, Options{IgnoreUnknown: true}, CodeUnknownColumn, 0, 1, "_ingest_ts",
			`line 1, column "_ingest_ts": is set by the writer to the append's time and cannot be given in the input`},
		{"csv missing in header", "csv", "ts,cpu\n1,2\n", nil, Options{}, CodeMissingColumn, 0, 1, "host",
			`line 1, column "host": required string column is not in the header`},
		{"csv null required", "csv", h + "1,a,1\n2,,1\n", nil, Options{}, CodeMissingColumn, 2, 3, "host",
			`row 2 (line 3), column "host": string column is required but null`},
		{"csv type", "csv", h + "1,a,1\n\n2,a,abc\n", nil, Options{}, CodeTypeMismatch, 2, 4, "cpu",
			`row 2 (line 4), column "cpu": cannot parse "abc" as double`},
		{"csv bad time", "csv", h + "2026-02-30,a,1\n", nil, Options{}, CodeBadTime, 1, 2, "ts",
			`row 1 (line 2), column "ts": cannot parse "2026-02-30" as a time: day 30 is not in 2026-02`},
		{"csv time range", "csv", h + "10000000000000000,a,1\n", nil, Options{}, CodeTimeOutOfRange, 1, 2, "ts",
			`row 1 (line 2), column "ts": time 10000000000000000 (unit ms) is outside years 0001 to 9999`},
		{"csv dup header", "csv", "ts,host,ts\n", nil, Options{}, CodeDuplicateColumn, 0, 1, "ts",
			`line 1, column "ts": named twice in the header`},
		{"csv utf8 header", "csv", "ts,host,\xff\n", nil, Options{IgnoreUnknown: true}, CodeInvalidUTF8, 0, 1, "",
			`line 1: header name "\xff" is not valid UTF-8`},
		{"csv utf8 value", "csv", "ts,host\n1,\"a\nb\xfe\"\n", nil, Options{}, CodeInvalidUTF8, 1, 2, "host",
			`row 1 (line 2), column "host": value "a\nb\xfe" is not valid UTF-8`},
		{"csv field count", "csv", h + "1,a,1\n2,a\n", nil, Options{}, CodeFieldCount, 2, 3, "",
			`row 2 (line 3): line has 2 fields, the header has 3`},
		{"csv empty", "csv", "", nil, Options{}, CodeEmptyInput, 0, 0, "",
			`the CSV input is empty (no header, no rows)`},
		{"csv header only", "csv", "\ufeffts,host\r\n", nil, Options{}, CodeEmptyInput, 0, 0, "",
			`the CSV input has a header but no rows`},
		{"csv bare quote", "csv", h + "1,a\"b,1\n", nil, Options{}, CodeSyntax, 1, 2, "",
			`row 1 (line 2): malformed CSV: bare " in non-quoted-field`},
		{"csv line after multiline field", "csv", "ts,note,host\n1,\"x\ny\",a\n2,z,\n", nil, Options{}, CodeMissingColumn, 2, 4, "host",
			`row 2 (line 4), column "host": string column is required but null`},

		{"ndjson unknown", "ndjson", ok + `{"ts":1,"host":"a","gpu":1}`, nil, Options{}, CodeUnknownColumn, 2, 2, "gpu",
			`row 2 (line 2), column "gpu": is not in the table schema (columns: ts, host, cpu, mem, n, f, ok, note)`},
		{"ndjson ingest", "ndjson", `{"ts":1,"host":"a","_ingest_ts":1}`, nil, Options{IgnoreUnknown: true}, CodeUnknownColumn, 1, 1, "_ingest_ts",
			`row 1 (line 1), column "_ingest_ts": is set by the writer to the append's time and cannot be given in the input`},
		{"ndjson missing", "ndjson", "\n\n" + `{"ts":1}`, nil, Options{}, CodeMissingColumn, 1, 3, "host",
			`row 1 (line 3), column "host": string column is required but absent`},
		{"ndjson null", "ndjson", `{"ts":1,"host":null}`, nil, Options{}, CodeMissingColumn, 1, 1, "host",
			`row 1 (line 1), column "host": string column is required but null`},
		{"ndjson type", "ndjson", `{"ts":1,"host":"a","cpu":"abc"}`, nil, Options{}, CodeTypeMismatch, 1, 1, "cpu",
			`row 1 (line 1), column "cpu": cannot parse "abc" as double`},
		{"ndjson bad time", "ndjson", `{"ts":"noon","host":"a"}`, nil, Options{}, CodeBadTime, 1, 1, "ts",
			`row 1 (line 1), column "ts": cannot parse "noon" as a time: want RFC 3339 like 2026-11-29T10:00:00Z or a date like 2026-11-29`},
		{"ndjson time range", "ndjson", `{"ts":-1e300,"host":"a"}`, nil, Options{}, CodeTimeOutOfRange, 1, 1, "ts",
			`row 1 (line 1), column "ts": time -1e+300 (unit ms) is outside years 0001 to 9999`},
		{"ndjson dup key", "ndjson", `{"ts":1,"host":"a","host":"b"}`, nil, Options{}, CodeDuplicateColumn, 1, 1, "host",
			`row 1 (line 1), column "host": key given twice in the object`},
		{"ndjson utf8 key", "ndjson", "{\"ts\":1,\"host\":\"a\",\"\xff\":1}", nil, Options{IgnoreUnknown: true}, CodeInvalidUTF8, 1, 1, "",
			`row 1 (line 1): key "\xff" is not valid UTF-8`},
		{"ndjson empty", "ndjson", "\n \r\n\t\n", nil, Options{}, CodeEmptyInput, 0, 0, "",
			`the NDJSON input has no rows`},
		{"ndjson not object", "ndjson", `[1,2]`, nil, Options{}, CodeSyntax, 1, 1, "",
			`row 1 (line 1): line is not a JSON object (it starts with '[')`},
		{"ndjson two objects", "ndjson", `{"ts":1,"host":"a"} {"ts":2}`, nil, Options{}, CodeSyntax, 1, 1, "",
			`row 1 (line 1): text after the JSON object at byte 21 (one object per line)`},
		{"ndjson trailing comma", "ndjson", `{"ts":1,"host":"a",}`, nil, Options{}, CodeSyntax, 1, 1, "",
			`row 1 (line 1): expected a quoted key at byte 20`},
		{"ndjson bad ignored value", "ndjson", `{"ts":1,"host":"a","x":[1,}`, nil, Options{IgnoreUnknown: true}, CodeSyntax, 1, 1, "",
			`row 1 (line 1): malformed value at byte 27`},
		{"ndjson leading zero", "ndjson", `{"ts":01,"host":"a"}`, nil, Options{}, CodeSyntax, 1, 1, "",
			`row 1 (line 1): expected ',' or '}' at byte 8`},

		{"maps unknown", "maps", "", []map[string]any{{"ts": 1, "host": "a"}, {"ts": 1, "host": "a", "zz": 1, "gpu": 2}}, Options{}, CodeUnknownColumn, 2, 0, "gpu",
			`row 2, column "gpu": is not in the table schema (columns: ts, host, cpu, mem, n, f, ok, note)`},
		{"maps ingest", "maps", "", []map[string]any{{"ts": 1, "host": "a", "_ingest_ts": 1}}, Options{IgnoreUnknown: true}, CodeUnknownColumn, 1, 0, "_ingest_ts",
			`row 1, column "_ingest_ts": is set by the writer to the append's time and cannot be given in the input`},
		{"maps missing", "maps", "", []map[string]any{{"ts": 1}}, Options{}, CodeMissingColumn, 1, 0, "host",
			`row 1, column "host": string column is required but absent`},
		{"maps type", "maps", "", []map[string]any{{"ts": 1, "host": "a", "cpu": []int{1}}}, Options{}, CodeTypeMismatch, 1, 0, "cpu",
			`row 1, column "cpu": unsupported Go type []int`},
		{"maps string into long", "maps", "", []map[string]any{{"ts": 1, "host": "a", "mem": 1.5}}, Options{}, CodeTypeMismatch, 1, 0, "mem",
			`row 1, column "mem": 1.5 has a fraction; long wants an integer`},
		{"maps number into string", "maps", "", []map[string]any{{"ts": 1, "host": 7}}, Options{}, CodeTypeMismatch, 1, 0, "host",
			`row 1, column "host": number 7 given for a string column`},
		{"maps NaN time", "maps", "", []map[string]any{{"ts": 0.0, "host": "a"}, {"ts": nanF(), "host": "a"}}, Options{}, CodeTimeOutOfRange, 2, 0, "ts",
			`row 2, column "ts": time NaN (unit ms) is outside years 0001 to 9999`},
		{"maps utf8", "maps", "", []map[string]any{{"ts": 1, "host": "\xc3"}}, Options{}, CodeInvalidUTF8, 1, 0, "host",
			`row 1, column "host": value "\xc3" is not valid UTF-8`},
		{"maps empty", "maps", "", nil, Options{}, CodeEmptyInput, 0, 0, "", `no rows`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			switch c.format {
			case "csv":
				_, err = readCSV(tb, c.in, c.opt)
			case "ndjson":
				_, err = readNDJSON(tb, c.in, c.opt)
			default:
				_, err = FromMaps(tb, c.maps, c.opt)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want an *Error %s", err, c.code)
			}
			if e.Code != c.code || e.Row != c.row || e.Line != c.line || e.Column != c.column {
				t.Errorf("got code %s row %d line %d column %q; want %s row %d line %d column %q",
					e.Code, e.Row, e.Line, e.Column, c.code, c.row, c.line, c.column)
			}
			if e.Error() != c.err {
				t.Errorf("got  %s\nwant %s", e.Error(), c.err)
			}
		})
	}
}

func nanF() float64 { var z float64; return z / z }

func TestErrorValueCut(t *testing.T) {
	long := strings.Repeat("é", 100) // 200 bytes
	_, err := readCSV(testTable(t), "ts,host,cpu\n1,a,"+long+"\n", Options{})
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v", err)
	}
	if len(e.Value) > maxErrValue+len("…") || !strings.HasSuffix(e.Value, "…") || !strings.HasPrefix(long, strings.TrimSuffix(e.Value, "…")) {
		t.Errorf("Value = %q (%d bytes), want a prefix of the value cut on a rune boundary", e.Value, len(e.Value))
	}
}

// TestCSVForms reads the same rows written in the ways CSV files differ.
func TestCSVForms(t *testing.T) {
	tb := testTable(t)
	want := `[2026-11-29T10:00:00Z a 1.5 <nil> "x,y"] [2026-11-29T10:00:01Z b <nil> 7 "say \"hi\"\nbye"]`
	cases := map[string]string{
		"plain":          "ts,host,cpu,mem,note\n2026-11-29T10:00:00Z,a,1.5,,\"x,y\"\n2026-11-29T10:00:01Z,b,,7,\"say \"\"hi\"\"\nbye\"\n",
		"crlf":           "ts,host,cpu,mem,note\r\n2026-11-29T10:00:00Z,a,1.5,,\"x,y\"\r\n2026-11-29T10:00:01Z,b,,7,\"say \"\"hi\"\"\nbye\"\r\n",
		"bom":            "\ufeffts,host,cpu,mem,note\n2026-11-29T10:00:00Z,a,1.5,,\"x,y\"\n2026-11-29T10:00:01Z,b,,7,\"say \"\"hi\"\"\nbye\"\n",
		"no final eol":   "ts,host,cpu,mem,note\n2026-11-29T10:00:00Z,a,1.5,,\"x,y\"\n2026-11-29T10:00:01Z,b,,7,\"say \"\"hi\"\"\nbye\"",
		"blank lines":    "\nts,host,cpu,mem,note\n\n2026-11-29T10:00:00Z,a,1.5,,\"x,y\"\n\n\n2026-11-29T10:00:01Z,b,,7,\"say \"\"hi\"\"\nbye\"\n\n",
		"order, quoted":  "\"note\",\"mem\",\"cpu\",\"host\",\"ts\"\n\"x,y\",\"\",\"1.5\",\"a\",\"2026-11-29T10:00:00Z\"\n\"say \"\"hi\"\"\nbye\",7,,b,2026-11-29T10:00:01Z\n",
		"ignored column": "ts,host,extra,cpu,mem,note\n2026-11-29T10:00:00Z,a,zz,1.5,,\"x,y\"\n2026-11-29T10:00:01Z,b,,,7,\"say \"\"hi\"\"\nbye\"\n",
	}
	for name, in := range cases {
		b, err := readCSV(tb, in, Options{IgnoreUnknown: true})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		checkBatch(t, b)
		if got := render(b, cTS, cHost, cCPU, cMem, cNote); got != want {
			t.Errorf("%s:\ngot  %s\nwant %s", name, got, want)
		}
	}
}

// TestNDJSONForms reads the same rows written in the ways NDJSON files differ.
func TestNDJSONForms(t *testing.T) {
	tb := testTable(t)
	want := `[2026-11-29T10:00:00Z a 1.5 <nil> "x,y"] [2026-11-29T10:00:01Z b <nil> 7 "say \"hi\"\nbye"]`
	cases := map[string]string{
		"plain":   `{"ts":"2026-11-29T10:00:00Z","host":"a","cpu":1.5,"note":"x,y"}` + "\n" + `{"ts":"2026-11-29T10:00:01Z","host":"b","mem":7,"note":"say \"hi\"\nbye"}` + "\n",
		"crlf":    `{"ts":"2026-11-29T10:00:00Z","host":"a","cpu":1.5,"note":"x,y"}` + "\r\n" + `{"ts":"2026-11-29T10:00:01Z","host":"b","mem":7,"note":"say \"hi\"\nbye"}` + "\r\n",
		"bom":     "\ufeff" + `{"ts":"2026-11-29T10:00:00Z","host":"a","cpu":1.5,"note":"x,y"}` + "\n" + `{"ts":"2026-11-29T10:00:01Z","host":"b","mem":7,"note":"say \"hi\"\nbye"}`,
		"spaces":  "\n  \n" + ` { "note" : "x,y" , "cpu" : 1.5 , "host":"a" , "ts" : "2026-11-29T10:00:00Z", "mem": null } ` + "\n\t\n" + `{"ts":1795946401000,"host":"b","mem":7,"note":"say \"hi\"\nbye","cpu":null}` + "\n\n",
		"ignored": `{"ts":"2026-11-29T10:00:00Z","x":{"a":[1,{"b":"\""}]},"host":"a","cpu":1.5,"note":"x,y"}` + "\n" + `{"y":true,"ts":"2026-11-29T10:00:01Z","host":"b","mem":7,"note":"say \"hi\"\nbye","z":null}`,
	}
	for name, in := range cases {
		b, err := readNDJSON(tb, in, Options{IgnoreUnknown: true})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		checkBatch(t, b)
		if got := render(b, cTS, cHost, cCPU, cMem, cNote); got != want {
			t.Errorf("%s:\ngot  %s\nwant %s", name, got, want)
		}
	}
}

// TestNDJSONLongLine reads a line longer than the reader's buffer.
func TestNDJSONLongLine(t *testing.T) {
	note := strings.Repeat("abcdefgh", 30000)
	in := `{"ts":1,"host":"a","note":"` + note + `"}` + "\n" + `{"ts":2,"host":"b","note":"short"}`
	b, err := readNDJSON(testTable(t), in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if b.Len != 2 || b.Cols[cNote].Strs[0] != note || b.Cols[cNote].Strs[1] != "short" {
		t.Errorf("got %d rows, note lengths %d, %q", b.Len, len(b.Cols[cNote].Strs[0]), b.Cols[cNote].Strs[1])
	}
}

// render prints rows for comparison: times in RFC 3339, strings quoted.
func render(b *Batch, cols ...int) string {
	var rows []string
	for r := 0; r < b.Len; r++ {
		var vals []string
		for _, c := range cols {
			v := valueAt(b, c, r)
			switch {
			case v == nil:
				vals = append(vals, "<nil>")
			case c == cTS:
				vals = append(vals, fmtMicros(v.(int64)))
			case c == cNote:
				vals = append(vals, fmt.Sprintf("%q", v))
			default:
				vals = append(vals, fmt.Sprint(v))
			}
		}
		rows = append(rows, "["+strings.Join(vals, " ")+"]")
	}
	return strings.Join(rows, " ")
}

// TestStreaming reads in small batches: sizes, values, the EOF after the
// last, and an error in a later batch.
func TestStreaming(t *testing.T) {
	tb := testTable(t)
	var csvIn, jsonIn strings.Builder
	csvIn.WriteString("ts,host,mem\n")
	for i := range 10 {
		fmt.Fprintf(&csvIn, "%d,h%d,%d\n", i, i%3, i*10)
		fmt.Fprintf(&jsonIn, `{"ts":%d,"host":"h%d","mem":%d}`+"\n", i, i%3, i*10)
	}
	readers := map[string]func(string) func(int) (*Batch, error){
		"csv": func(s string) func(int) (*Batch, error) {
			return NewCSVReader(strings.NewReader(s), tb, Options{}).Next
		},
		"ndjson": func(s string) func(int) (*Batch, error) {
			return NewNDJSONReader(strings.NewReader(s), tb, Options{}).Next
		},
	}
	inputs := map[string]string{"csv": csvIn.String(), "ndjson": jsonIn.String()}
	bad := map[string]string{"csv": "9,h,x\n", "ndjson": `{"ts":9,"host":"h","mem":"x"}` + "\n"}
	for name, open := range readers {
		next := open(inputs[name])
		var sizes []int
		row := 0
		for {
			b, err := next(3)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			checkBatch(t, b)
			sizes = append(sizes, b.Len)
			for r := 0; r < b.Len; r++ {
				if ts, mem, host := b.Cols[cTS].Ints[r], b.Cols[cMem].Ints[r], b.Cols[cHost].Strs[r]; ts != int64(row)*1000 || mem != int64(row)*10 || host != fmt.Sprintf("h%d", row%3) {
					t.Errorf("%s: row %d = %d %d %s", name, row+1, ts, mem, host)
				}
				row++
			}
		}
		if fmt.Sprint(sizes) != "[3 3 3 1]" {
			t.Errorf("%s: batch sizes %v, want [3 3 3 1]", name, sizes)
		}
		if _, err := next(3); err != io.EOF {
			t.Errorf("%s: after the end got %v, want io.EOF", name, err)
		}

		next = open(inputs[name] + bad[name])
		var err error
		for n := 0; err == nil; n++ {
			_, err = next(4)
			if n > 3 {
				t.Fatalf("%s: no error after %d batches", name, n)
			}
		}
		var e *Error
		if !errors.As(err, &e) || e.Row != 11 || e.Code != CodeTypeMismatch {
			t.Errorf("%s: got %v, want TYPE_MISMATCH in row 11", name, err)
		}
		if _, again := next(4); again != err {
			t.Errorf("%s: after an error got %v, want the same error", name, again)
		}
	}
}
