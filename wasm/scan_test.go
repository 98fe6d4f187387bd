//go:build js && wasm

package main

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/timelake/timelake/table"
)

func TestSeriesValue(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want any
		bad  bool
	}{
		{`"web-1"`, "web-1", false},
		{`42`, int64(42), false},
		{`-9007199254740993`, int64(-9007199254740993), false},
		{`{"int":"9223372036854775807"}`, int64(9223372036854775807), false},
		{`{"int":"9223372036854775808"}`, nil, true},
		{`1.5`, nil, true},
		{`null`, nil, true},
		{`{"x":1}`, nil, true},
		{`true`, true, false}, // the core refuses it by type
	} {
		got, err := seriesValue(json.RawMessage(c.raw))
		if (err != nil) != c.bad || (!c.bad && got != c.want) {
			t.Errorf("seriesValue(%s) = %v (%T), %v", c.raw, got, got, err)
		}
	}
}

func TestScanOptionsBuild(t *testing.T) {
	s := func(v string) *string { return &v }
	opt, err := (&scanOptions{From: s("2026-11-29"), To: s("1795946400000"), AsOf: s("2026-11-29T10:00:00.0015Z")}).build()
	if err != nil || *opt.FromUS != 1795910400000000 || *opt.ToUS != 1795946400000000 || *opt.AsOfMs != 1795946400001 {
		t.Fatalf("build = from %v to %v asOf %v, %v", deref(opt.FromUS), deref(opt.ToUS), deref(opt.AsOfMs), err)
	}
	for _, c := range []struct {
		o    scanOptions
		code string
	}{
		{scanOptions{From: s("soon")}, "BAD_TIME"},
		{scanOptions{AsOf: s("later")}, "BAD_TIME"},
		{scanOptions{AsOfSnapshot: s("12a")}, "NO_SNAPSHOT"},
		{scanOptions{Series: map[string][]json.RawMessage{"host": {json.RawMessage(`2.5`)}}}, "BAD_FILTER"},
	} {
		if _, err := c.o.build(); table.Code(err) != c.code {
			t.Errorf("build(%+v) = %v (code %s), want %s", c.o, err, table.Code(err), c.code)
		}
	}
}

func TestUTF16Len(t *testing.T) {
	for _, s := range []string{"", "abc", "é", "日本語", "𝄞", "a𝄞é日\x00"} {
		if got, want := utf16Len(s), len(utf16.Encode([]rune(s))); int(got) != want {
			t.Errorf("utf16Len(%q) = %d, want %d", s, got, want)
		}
	}
}

// TestUTF16LenValid: the one-pass length and check agrees with
// utf8.ValidString and utf16Len on texts of every length around the
// 8-byte steps, with a multi-byte, 4-byte or invalid sequence anywhere
// (a replacement character written as such is valid).
func TestUTF16LenValid(t *testing.T) {
	for _, ins := range []string{"", "é", "日", "𝄞", "\xff", "\xe6\x97", "\uFFFD", "\xed\xa0\x80"} {
		for n := range 20 {
			for at := 0; at <= n; at++ {
				s := strings.Repeat("a", at) + ins + strings.Repeat("b", n-at)
				got, ok := utf16LenValid(s)
				if ok != utf8.ValidString(s) || ok && got != utf16Len(s) {
					t.Fatalf("utf16LenValid(%q) = %d, %v; want %d, %v", s, got, ok, utf16Len(s), utf8.ValidString(s))
				}
			}
		}
	}
}

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}
