package rows

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/timelake/timelake/schema"
)

// fuzzRead reads all of an input in small batches and checks what came out:
// the Batch invariants, then SortDedup and SplitByPartition on the result.
func fuzzRead(t *testing.T, next func(int) (*Batch, error)) {
	for {
		b, err := next(7)
		if err == io.EOF {
			return
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T) is not an *Error", err, err)
			}
			if e.Code == "" || e.Msg == "" {
				t.Fatalf("error without code or message: %#v", e)
			}
			if _, again := next(7); again != err {
				t.Fatalf("after error %v, Next gave %v", err, again)
			}
			return
		}
		checkBatch(t, b)
		for c, f := range b.Schema.Fields {
			if f.Type == schema.String {
				for _, s := range b.Cols[c].Strs {
					if !utf8.ValidString(s) {
						t.Fatalf("column %q holds invalid UTF-8 %q", f.Name, s)
					}
				}
			}
		}
		s := SortDedup(b)
		checkBatch(t, s)
		end := 0
		for _, p := range SplitByPartition(s) {
			if p.Start != end || p.End <= p.Start {
				t.Fatalf("partition %+v after row %d", p, end)
			}
			end = p.End
		}
		if end != s.Len {
			t.Fatalf("partitions end at %d of %d rows", end, s.Len)
		}
	}
}

func FuzzCSVReader(f *testing.F) {
	for _, s := range []string{
		"ts,host,cpu,mem,n,f,ok,note\n2026-11-29T10:00:00Z,a,1.5,7,3,0.5,true,hi\n2026-11-29T10:00:00Z,a,2,,,,,\n",
		"\ufeffhost,ts\r\nweb-1,1700000000000\r\n\"x,\"\"y\"\"\",2026-11-29 10:00:00+01:00\r\n",
		"ts,host,note\n1,a,\"multi\nline\"\n2,b,\n",
		"ts,host\n1,a,extra\n",
		"ts,host,zz\n1,a,1\n",
		"ts,host,cpu\n1,a,NaN\n2,a,-Infinity\n3,a,1e400\n",
	} {
		f.Add([]byte(s), false)
	}
	tb := testTable(f)
	f.Fuzz(func(t *testing.T, in []byte, ignore bool) {
		fuzzRead(t, NewCSVReader(bytes.NewReader(in), tb, Options{IgnoreUnknown: ignore}).Next)
	})
}

func FuzzNDJSONReader(f *testing.F) {
	for _, s := range []string{
		`{"ts":"2026-11-29T10:00:00Z","host":"a","cpu":1.5,"mem":9007199254740993,"n":3,"f":0.5,"ok":true,"note":"h\u00e9\n"}` + "\n",
		"\ufeff" + `{"host":"b","ts":1700000000000}` + "\r\n\r\n" + `{"host":"b","ts":1700000000000,"note":null}`,
		`{"ts":1,"host":"a","x":{"y":[1,2,{"z":"\ud83d\ude00"}]}}`,
		`{"ts":1,"host":"a","host":"b"}`,
		`{"ts":1e3,"host":"\ud800"}`,
		`[1]`,
		`{"ts":-1.5,"host":"a","mem":"12","cpu":"NaN"}`,
	} {
		f.Add([]byte(s), true)
	}
	tb := testTable(f)
	f.Fuzz(func(t *testing.T, in []byte, ignore bool) {
		fuzzRead(t, NewNDJSONReader(bytes.NewReader(in), tb, Options{IgnoreUnknown: ignore}).Next)
		// Whatever the reader accepts is JSON: check each line with encoding/json.
		if _, err := readAll(NewNDJSONReader(bytes.NewReader(in), tb, Options{IgnoreUnknown: ignore}).Next, 0); err == nil {
			in = bytes.TrimPrefix(in, []byte("\ufeff"))
			for _, line := range bytes.Split(in, []byte("\n")) {
				if len(bytes.TrimSpace(line)) > 0 && !json.Valid(line) {
					t.Fatalf("accepted line %q, which encoding/json rejects", line)
				}
			}
		}
	})
}

// FuzzParseTime checks ParseTime against time.Parse where both apply: a
// time that time.Parse reads as RFC 3339 within years 1..9999 must parse to
// the same instant (floored to the microsecond).
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{
		"2026-11-29T10:00:00Z", "2026-11-29T10:00:00.123456789+01:00", "2026-11-29 10:00",
		"2026-11-29", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z", "2024-02-29T23:59:59-23:59",
		"2026-11-29T10:00:00,5Z", "1969-12-31T23:59:59.9999999Z", "2026-11-29T10:00:00+0530",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseTime(s)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || (e.Code != CodeBadTime && e.Code != CodeTimeOutOfRange) {
				t.Fatalf("ParseTime(%q): error %v has the wrong type or code", s, err)
			}
		} else if got < schema.MinMicros || got > schema.MaxMicros {
			t.Fatalf("ParseTime(%q) = %d, out of range", s, got)
		}
		ref, rerr := time.Parse(time.RFC3339Nano, s)
		if rerr != nil || ref.Year() < 1 || ref.UTC().Year() < 1 || ref.UTC().Year() > 9999 {
			return
		}
		if !fixedWidth(s) {
			return // time.Parse also takes a one-digit hour ("T0:00:00"), which RFC 3339 does not
		}
		if z := s[len(s)-6:]; (z[0] == '+' || z[0] == '-') && z[3] == ':' && (z[4] >= '6' || z[1:3] > "23") {
			return // time.Parse also takes offsets like +24:00 and +00:60
		}
		if len(s) > 20 && (s[19] == '.' || s[19] == ',') && fracDigits(s[20:]) > 9 {
			return // time.Parse reads more fraction digits than we accept
		}
		if err != nil {
			t.Fatalf("ParseTime(%q): %v; time.Parse reads %v", s, err, ref)
		}
		if want := ref.UnixMicro(); got != want {
			t.Fatalf("ParseTime(%q) = %d, time.Parse gives %d", s, got, want)
		}
	})
}

func fracDigits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// fixedWidth reports whether s starts with the two-digit fields of RFC 3339,
// YYYY-MM-DDTHH:MM:SS.
func fixedWidth(s string) bool {
	if len(s) < 19 {
		return false
	}
	for i, c := range []byte(s[:19]) {
		switch i {
		case 4, 7:
			if c != '-' {
				return false
			}
		case 10:
		case 13, 16:
			if c != ':' {
				return false
			}
		default:
			if c < '0' || c > '9' {
				return false
			}
		}
	}
	return true
}
