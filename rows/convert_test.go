package rows

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/timelake/timelake/schema"
)

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC).UnixMicro()

// cell converts one value into column col of a one-row input, as CSV (a
// field) or NDJSON (a raw JSON value), and returns the value or the error.
func cellCSV(t *schema.Table, col int, field string, opt Options) (any, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	name := t.Fields[col].Name
	switch col {
	case cTS:
		w.Write([]string{"host", "ts"})
		w.Write([]string{"h", field})
	case cHost:
		w.Write([]string{"ts", "host"})
		w.Write([]string{"2026-11-29T10:00:00Z", field})
	default:
		w.Write([]string{"ts", "host", name})
		w.Write([]string{"2026-11-29T10:00:00Z", "h", field})
	}
	w.Flush()
	b, err := readCSV(t, buf.String(), opt)
	if err != nil {
		return nil, err
	}
	return valueAt(b, col, 0), nil
}

func cellJSON(t *schema.Table, col int, raw string, opt Options) (any, error) {
	name := t.Fields[col].Name
	var line string
	switch col {
	case cTS:
		line = fmt.Sprintf(`{"host":"h","ts":%s}`, raw)
	case cHost:
		line = fmt.Sprintf(`{"ts":"2026-11-29T10:00:00Z","host":%s}`, raw)
	default:
		line = fmt.Sprintf(`{"ts":"2026-11-29T10:00:00Z","host":"h",%q:%s}`, name, raw)
	}
	b, err := readNDJSON(t, line+"\n", opt)
	if err != nil {
		return nil, err
	}
	return valueAt(b, col, 0), nil
}

func valueAt(b *Batch, col, row int) any {
	c := &b.Cols[col]
	if c.IsNull(row) {
		return nil
	}
	switch kindOf(b.Schema.Fields[col].Type) {
	case kindInt:
		return c.Ints[row]
	case kindFloat:
		return c.Floats[row]
	case kindBool:
		return c.Bools[row]
	}
	return c.Strs[row]
}

type convCase struct {
	col  int
	in   string
	want any    // value when code is ""
	code string // error code expected
	msg  string // Error.Msg expected, when not ""
}

func sameValue(a, b any) bool {
	fa, ok1 := a.(float64)
	fb, ok2 := b.(float64)
	if ok1 && ok2 && math.IsNaN(fa) && math.IsNaN(fb) {
		return true
	}
	return a == b
}

func runConv(t *testing.T, kind string, cases []convCase, f func(*schema.Table, int, string, Options) (any, error)) {
	tb := testTable(t)
	for _, c := range cases {
		name := fmt.Sprintf("%s/%s=%s", kind, tb.Fields[c.col].Name, c.in)
		got, err := f(tb, c.col, c.in, Options{})
		if c.code == "" {
			if err != nil {
				t.Errorf("%s: error %v, want %v", name, err, c.want)
			} else if !sameValue(got, c.want) {
				t.Errorf("%s: got %v (%T), want %v (%T)", name, got, got, c.want, c.want)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: got %v, %v; want error %s", name, got, err, c.code)
			continue
		}
		if e.Code != c.code || e.Row != 1 || e.Column != tb.Fields[c.col].Name {
			t.Errorf("%s: got code %s row %d column %q (%v); want %s row 1 column %q",
				name, e.Code, e.Row, e.Column, e, c.code, tb.Fields[c.col].Name)
		}
		if c.msg != "" && e.Msg != c.msg {
			t.Errorf("%s: got message %q, want %q", name, e.Msg, c.msg)
		}
	}
}

// Conversions shared by CSV fields and NDJSON strings.
var textCases = []convCase{
	{col: cMem, in: "42", want: int64(42)},
	{col: cMem, in: "-9223372036854775808", want: int64(math.MinInt64)},
	{col: cMem, in: "9223372036854775807", want: int64(math.MaxInt64)},
	{col: cMem, in: "9223372036854775808", code: CodeTypeMismatch, msg: "9223372036854775808 is out of range for long"},
	{col: cMem, in: "+7", want: int64(7)},
	{col: cMem, in: "3.0", want: int64(3)},
	{col: cMem, in: "1e3", want: int64(1000)},
	{col: cMem, in: "1.5", code: CodeTypeMismatch, msg: "1.5 has a fraction; long wants an integer"},
	{col: cMem, in: "abc", code: CodeTypeMismatch, msg: `cannot parse "abc" as long`},
	{col: cMem, in: " 1", code: CodeTypeMismatch},
	{col: cN, in: "2147483647", want: int64(math.MaxInt32)},
	{col: cN, in: "-2147483648", want: int64(math.MinInt32)},
	{col: cN, in: "2147483648", code: CodeTypeMismatch, msg: "2147483648 is out of range for int"},
	{col: cCPU, in: "1.5", want: 1.5},
	{col: cCPU, in: "-2e-3", want: -0.002},
	{col: cCPU, in: ".5", want: 0.5},
	{col: cCPU, in: "7", want: 7.0},
	{col: cCPU, in: "NaN", want: math.NaN()},
	{col: cCPU, in: "Infinity", want: math.Inf(1)},
	{col: cCPU, in: "-Infinity", want: math.Inf(-1)},
	{col: cCPU, in: "-inf", want: math.Inf(-1)},
	{col: cCPU, in: "1e309", code: CodeTypeMismatch, msg: "1e309 is out of range for double"},
	{col: cCPU, in: "abc", code: CodeTypeMismatch, msg: `cannot parse "abc" as double`},
	{col: cCPU, in: "0x10", code: CodeTypeMismatch},
	{col: cCPU, in: "1_000", code: CodeTypeMismatch},
	{col: cCPU, in: "--inf", code: CodeTypeMismatch},
	{col: cF, in: "1.5", want: 1.5},
	{col: cF, in: "0.1", want: float64(float32(0.1))},
	{col: cF, in: "3.5e38", code: CodeTypeMismatch, msg: "3.5e38 is out of range for float"},
	{col: cOK, in: "true", want: true},
	{col: cOK, in: "FALSE", want: false},
	{col: cOK, in: "1", want: true},
	{col: cOK, in: "0", want: false},
	{col: cOK, in: "yes", code: CodeTypeMismatch, msg: `cannot parse "yes" as boolean (want true, false, 1 or 0)`},
	{col: cNote, in: "héllo, \"world\"\nline 2", want: "héllo, \"world\"\nline 2"},
	{col: cTS, in: "2026-11-29T10:00:00Z", want: t0},
	{col: cTS, in: "2026-11-29 11:00:00+01:00", want: t0},
	{col: cTS, in: "2026-11-29", want: t0 - 10*3600e6},
	{col: cTS, in: "1700000000000", want: int64(1700000000000000)},
	{col: cTS, in: "-1", want: int64(-1000)},
	{col: cTS, in: "1.5", want: int64(1500)},
	{col: cTS, in: "2026-13-01", code: CodeBadTime, msg: `cannot parse "2026-13-01" as a time: month 13 is not 1 to 12`},
	{col: cTS, in: "yesterday", code: CodeBadTime},
	{col: cTS, in: "0000-12-31T00:00:00Z", code: CodeTimeOutOfRange, msg: `time "0000-12-31T00:00:00Z" is outside years 0001 to 9999`},
	{col: cTS, in: "1e300", code: CodeTimeOutOfRange, msg: "time 1e+300 (unit ms) is outside years 0001 to 9999"},
	{col: cTS, in: "99999999999999999999", code: CodeTimeOutOfRange},
	{col: cHost, in: "web-1", want: "web-1"},
}

func TestConvertCSV(t *testing.T) {
	runConv(t, "csv", textCases, cellCSV)
	runConv(t, "csv", []convCase{
		{col: cNote, in: "12", want: "12"}, // any field goes into a string column
		{col: cNote, in: "\xff", code: CodeInvalidUTF8, msg: `value "\xff" is not valid UTF-8`},
		{col: cNote, in: "", want: nil},
		{col: cMem, in: "", want: nil},
		{col: cHost, in: "", code: CodeMissingColumn, msg: "string column is required but null"},
		{col: cTS, in: "", code: CodeMissingColumn, msg: "timestamptz column is required but null"},
	}, cellCSV)
}

func TestConvertNDJSON(t *testing.T) {
	quoted := make([]convCase, len(textCases))
	for i, c := range textCases {
		q, _ := json.Marshal(c.in)
		c.in = string(q)
		quoted[i] = c
	}
	runConv(t, "ndjson-string", quoted, cellJSON)
	runConv(t, "ndjson", []convCase{
		{col: cMem, in: "9007199254740993", want: int64(9007199254740993)}, // 2^53+1, exact
		{col: cMem, in: "-9223372036854775808", want: int64(math.MinInt64)},
		{col: cMem, in: "1.0", want: int64(1)},
		{col: cMem, in: "2.5", code: CodeTypeMismatch, msg: "2.5 has a fraction; long wants an integer"},
		{col: cMem, in: "1e20", code: CodeTypeMismatch},
		{col: cMem, in: "null", want: nil},
		{col: cMem, in: "true", code: CodeTypeMismatch, msg: "boolean true given for a long column"},
		{col: cN, in: "-2147483649", code: CodeTypeMismatch, msg: "-2147483649 is out of range for int"},
		{col: cCPU, in: "1.25e2", want: 125.0},
		{col: cCPU, in: "-0", want: math.Copysign(0, -1)},
		{col: cCPU, in: "1e400", code: CodeTypeMismatch, msg: "1e400 is out of range for double"},
		{col: cCPU, in: `{"a":1}`, code: CodeTypeMismatch, msg: "an object given for a double column"},
		{col: cCPU, in: `[1]`, code: CodeTypeMismatch, msg: "an array given for a double column"},
		{col: cF, in: "1e39", code: CodeTypeMismatch, msg: "1e39 is out of range for float"},
		{col: cOK, in: "true", want: true},
		{col: cOK, in: "false", want: false},
		{col: cOK, in: "1", code: CodeTypeMismatch, msg: "number 1 given for a boolean column (want true or false)"},
		{col: cNote, in: "12", code: CodeTypeMismatch, msg: "number 12 given for a string column (quote it)"},
		{col: cNote, in: "false", code: CodeTypeMismatch, msg: "boolean false given for a string column"},
		{col: cNote, in: `"a\u00e9\ud83d\ude00\n\"\\\/"`, want: "aé😀\n\"\\/"},
		{col: cNote, in: `"\ud800"`, code: CodeInvalidUTF8, msg: `string has a lone UTF-16 surrogate \ud800, which is not valid UTF-8`},
		{col: cNote, in: "\"\xff\"", code: CodeInvalidUTF8},
		{col: cNote, in: `""`, want: ""},
		{col: cNote, in: "null", want: nil},
		{col: cTS, in: "1700000000123", want: int64(1700000000123000)},
		{col: cTS, in: "1700000000123.4566", want: int64(1700000000123457)}, // float: rounded
		{col: cTS, in: "null", code: CodeMissingColumn, msg: "timestamptz column is required but null"},
		{col: cTS, in: "253402300800000", code: CodeTimeOutOfRange}, // 10000-01-01 in ms
		{col: cTS, in: "253402300799999", want: int64(253402300799999000)},
		{col: cHost, in: "1", code: CodeTypeMismatch},
	}, cellJSON)
}

func TestTimeUnits(t *testing.T) {
	tb := testTable(t)
	cases := []struct {
		unit TimeUnit
		in   string
		want int64
		code string
	}{
		{Seconds, "1700000000", 1700000000_000000, ""},
		{Seconds, "1700000000.123456", 1700000000_123456, ""}, // 1700000000123455.99… rounds up
		{Seconds, "-0.0000005", -1, ""},                       // half away from zero
		{Milliseconds, "1700000000123", 1700000000_123000, ""},
		{Microseconds, "1700000000123456", 1700000000_123456, ""},
		{Nanoseconds, "1700000000123456789", 1700000000_123456, ""},
		{Nanoseconds, "-1", -1, ""}, // floor
		{Nanoseconds, "-1000", -1, ""},
		{Seconds, "253402300800", 0, CodeTimeOutOfRange},
		{Seconds, "9223372036854775807", 0, CodeTimeOutOfRange},
		{Microseconds, "-62135596800000001", 0, CodeTimeOutOfRange},
		{Microseconds, "-62135596800000000", schema.MinMicros, ""},
	}
	for _, c := range cases {
		for _, f := range []func(*schema.Table, int, string, Options) (any, error){cellCSV, cellJSON} {
			got, err := f(tb, cTS, c.in, Options{TimeUnit: c.unit})
			var e *Error
			switch {
			case c.code != "" && (!errors.As(err, &e) || e.Code != c.code):
				t.Errorf("%s %s: got %v, %v; want %s", c.in, c.unit, got, err, c.code)
			case c.code == "" && (err != nil || got != c.want):
				t.Errorf("%s %s: got %v, %v; want %d", c.in, c.unit, got, err, c.want)
			}
		}
	}
}

func TestParseTime(t *testing.T) {
	d := func(y int, m time.Month, dd, h, mi, s, ns int, loc *time.Location) int64 {
		return time.Date(y, m, dd, h, mi, s, ns, loc).UnixMicro()
	}
	plus1 := time.FixedZone("", 3600)
	minus530 := time.FixedZone("", -(5*3600 + 30*60))
	cases := []struct {
		in   string
		want int64
		code string
		msg  string
	}{
		{in: "2026-11-29T10:00:00Z", want: t0},
		{in: "2026-11-29t10:00:00z", want: t0},
		{in: "2026-11-29 10:00:00Z", want: t0},
		{in: "2026-11-29T10:00:00", want: t0},
		{in: "2026-11-29T10:00", want: t0},
		{in: "2026-11-29T10:00Z", want: t0},
		{in: "2026-11-29", want: d(2026, 11, 29, 0, 0, 0, 0, time.UTC)},
		{in: "2026-11-29T10:00:00.1Z", want: t0 + 100000},
		{in: "2026-11-29T10:00:00,5Z", want: t0 + 500000},
		{in: "2026-11-29T10:00:00.123456Z", want: t0 + 123456},
		{in: "2026-11-29T10:00:00.123456789Z", want: t0 + 123456},
		{in: "1969-12-31T23:59:59.9999999Z", want: -1},
		{in: "2026-11-29T11:00:00+01:00", want: t0},
		{in: "2026-11-29T11:00:00+0100", want: t0},
		{in: "2026-11-29T11:00:00+01", want: t0},
		{in: "2026-11-29T04:30:00-05:30", want: t0},
		{in: "2026-11-29T11:00:00.5+01:00", want: d(2026, 11, 29, 11, 0, 0, 5e8, plus1)},
		{in: "2026-11-29T04:30:00-0530", want: d(2026, 11, 29, 4, 30, 0, 0, minus530)},
		{in: "2024-02-29T00:00:00Z", want: d(2024, 2, 29, 0, 0, 0, 0, time.UTC)},
		{in: "2000-02-29", want: d(2000, 2, 29, 0, 0, 0, 0, time.UTC)},
		{in: "0001-01-01T00:00:00Z", want: schema.MinMicros},
		{in: "9999-12-31T23:59:59.999999999Z", want: schema.MaxMicros},
		{in: "1969-07-20T20:17:40Z", want: d(1969, 7, 20, 20, 17, 40, 0, time.UTC)},
		{in: "0001-01-01T00:30:00+01:00", code: CodeTimeOutOfRange},
		{in: "9999-12-31T23:30:00-01:00", code: CodeTimeOutOfRange},
		{in: "2023-02-29", code: CodeBadTime, msg: `cannot parse "2023-02-29" as a time: day 29 is not in 2023-02`},
		{in: "1900-02-29", code: CodeBadTime},
		{in: "2026-04-31", code: CodeBadTime},
		{in: "2026-11-29T24:00:00Z", code: CodeBadTime, msg: `cannot parse "2026-11-29T24:00:00Z" as a time: time 24:00 is not a time of day`},
		{in: "2026-11-29T10:00:60Z", code: CodeBadTime, msg: `cannot parse "2026-11-29T10:00:60Z" as a time: second 60 is not 0 to 59 (leap seconds are not accepted)`},
		{in: "2026-11-29T10:00:00.Z", code: CodeBadTime, msg: `cannot parse "2026-11-29T10:00:00.Z" as a time: no digits after the decimal point`},
		{in: "2026-11-29T10:00:00.1234567890Z", code: CodeBadTime, msg: `cannot parse "2026-11-29T10:00:00.1234567890Z" as a time: more than 9 fraction digits`},
		{in: "2026-11-29T10:00:00+24:00", code: CodeBadTime},
		{in: "2026-11-29T10:00:00+01:0", code: CodeBadTime},
		{in: "2026-11-29T10:00:00ZZ", code: CodeBadTime},
		{in: "2026-11-29T10:00:00 Z", code: CodeBadTime},
		{in: "2026-11-29X10:00:00Z", code: CodeBadTime},
		{in: "2026-1-29", code: CodeBadTime},
		{in: "26-11-29", code: CodeBadTime},
		{in: "", code: CodeBadTime, msg: `cannot parse "" as a time: want RFC 3339 like 2026-11-29T10:00:00Z or a date like 2026-11-29`},
	}
	for _, c := range cases {
		got, err := ParseTime(c.in)
		if c.code == "" {
			if err != nil || got != c.want {
				t.Errorf("ParseTime(%q) = %d, %v; want %d", c.in, got, err, c.want)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Code != c.code || (c.msg != "" && e.Msg != c.msg) {
			t.Errorf("ParseTime(%q) = %d, %v; want %s %q", c.in, got, err, c.code, c.msg)
		}
	}
}

func TestFromMaps(t *testing.T) {
	tb := testTable(t)
	at := time.Date(2026, 11, 29, 10, 0, 0, 1999, time.UTC)
	b, err := FromMaps(tb, []map[string]any{
		{"ts": at, "host": "a", "cpu": 1, "mem": int64(1) << 60, "n": int32(-5), "f": float32(0.5), "ok": true, "note": nil},
		{"ts": json.Number("1700000000000"), "host": "b", "cpu": json.Number("2.5"), "mem": json.Number("9007199254740993"), "n": 3.0},
		{"ts": 1700000000000.5, "host": "c", "mem": "12", "ok": "false", "note": "x"},
		{"ts": "2026-11-29", "host": "d", "cpu": "NaN", "n": uint8(7)},
	}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkBatch(t, b)
	want := [][]any{
		{t0 + 1, "a", 1.0, int64(1) << 60, int64(-5), 0.5, true, nil},
		{int64(1700000000000000), "b", 2.5, int64(9007199254740993), int64(3), nil, nil, nil},
		{int64(1700000000000500), "c", nil, int64(12), nil, nil, false, "x"},
		{t0 - 10*3600e6, "d", math.NaN(), nil, int64(7), nil, nil, nil},
	}
	for r, row := range want {
		for c, w := range row {
			if got := valueAt(b, c, r); !sameValue(got, w) {
				t.Errorf("row %d column %q: got %v (%T), want %v (%T)", r+1, tb.Fields[c].Name, got, got, w, w)
			}
		}
	}
}
