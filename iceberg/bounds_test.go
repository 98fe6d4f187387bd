package iceberg

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/timelake/timelake/schema"
)

func TestEncodeValue(t *testing.T) {
	for _, tc := range []struct {
		typ  schema.Type
		v    any
		want []byte
	}{
		{schema.Int, int64(1), []byte{1, 0, 0, 0}},
		{schema.Int, int64(-2), []byte{0xfe, 0xff, 0xff, 0xff}},
		{schema.Long, int64(1), []byte{1, 0, 0, 0, 0, 0, 0, 0}},
		{schema.Timestamptz, int64(1795000000000000), EncodeLong(1795000000000000)},
		{schema.Double, 1.0, []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}},
		{schema.Float, 1.0, []byte{0, 0, 0x80, 0x3f}},
		{schema.Boolean, true, []byte{1}},
		{schema.Boolean, false, []byte{0}},
		{schema.String, "héllo", []byte("héllo")},
		{schema.String, "", []byte{}},
	} {
		got, err := EncodeValue(tc.typ, tc.v)
		if err != nil || !bytes.Equal(got, tc.want) {
			t.Errorf("EncodeValue(%v, %v): got % x %v, want % x", tc.typ, tc.v, got, err, tc.want)
			continue
		}
		back, err := DecodeValue(tc.typ, got)
		if err != nil || back != tc.v {
			t.Errorf("DecodeValue(%v, % x): got %v %v, want %v", tc.typ, got, back, err, tc.v)
		}
	}
	for _, tc := range []struct {
		typ schema.Type
		v   any
	}{{schema.Int, int64(math.MaxInt32 + 1)}, {schema.Long, 1.5}, {schema.String, int64(1)}} {
		if _, err := EncodeValue(tc.typ, tc.v); err == nil {
			t.Errorf("EncodeValue(%v, %v): got no error", tc.typ, tc.v)
		}
	}
	if _, err := DecodeValue(schema.Long, []byte{1, 2, 3}); err == nil || !strings.Contains(err.Error(), "3 bytes, want 8") {
		t.Errorf("short long bound: got %v", err)
	}
	// bounds written before int → long and float → double promotions
	if v, err := DecodeValue(schema.Long, EncodeInt(-7)); err != nil || v != int64(-7) {
		t.Errorf("int bound of a long column: got %v %v, want -7", v, err)
	}
	if v, err := DecodeValue(schema.Double, EncodeFloat(0.25)); err != nil || v != 0.25 {
		t.Errorf("float bound of a double column: got %v %v, want 0.25", v, err)
	}
	if _, err := DecodeValue(schema.Boolean, []byte{2}); err == nil {
		t.Errorf("boolean byte 2: got no error")
	}
}

func TestStringBounds(t *testing.T) {
	sixteen := "abcdefghijklmnop"
	for _, tc := range []struct {
		in, lower, upper string
		upperOK          bool
	}{
		{"short", "short", "short", true},
		{sixteen, sixteen, sixteen, true},
		{sixteen + "q", sixteen, "abcdefghijklmnoq", true},
		{strings.Repeat("é", 20), strings.Repeat("é", 16), strings.Repeat("é", 15) + "ê", true},
		{strings.Repeat("😀", 17), strings.Repeat("😀", 16), strings.Repeat("😀", 15) + "😁", true},
		// the last code point cannot grow: drop it and grow the one before
		{strings.Repeat("a", 15) + "\U0010FFFF" + "zz", strings.Repeat("a", 15) + "\U0010FFFF", strings.Repeat("a", 14) + "b", true},
		// U+D7FF + 1 is a surrogate: skip to U+E000
		{strings.Repeat("a", 15) + "\uD7FF" + "z", strings.Repeat("a", 15) + "\uD7FF", strings.Repeat("a", 15) + "\uE000", true},
		{strings.Repeat("\U0010FFFF", 17), strings.Repeat("\U0010FFFF", 16), "", false},
	} {
		if got := string(StringLowerBound(tc.in)); got != tc.lower {
			t.Errorf("StringLowerBound(%q): got %q, want %q", tc.in, got, tc.lower)
		}
		got, ok := StringUpperBound(tc.in)
		if ok != tc.upperOK || string(got) != tc.upper {
			t.Errorf("StringUpperBound(%q): got %q %v, want %q %v", tc.in, got, ok, tc.upper, tc.upperOK)
		}
		if ok && bytes.Compare(got, []byte(tc.in)) < 0 {
			t.Errorf("StringUpperBound(%q) = %q sorts below the value", tc.in, got)
		}
		if bytes.Compare(StringLowerBound(tc.in), []byte(tc.in)) > 0 {
			t.Errorf("StringLowerBound(%q) sorts above the value", tc.in)
		}
	}
	// invalid UTF-8 falls back to bytes
	in := string(bytes.Repeat([]byte{0xff}, 15)) + "\xfe\xff\x00"
	got, ok := StringUpperBound(in)
	if !ok || bytes.Compare(got, []byte(in)) < 0 || len(got) > 16 {
		t.Errorf("StringUpperBound(invalid UTF-8): got % x %v", got, ok)
	}
}

func FuzzStringBounds(f *testing.F) {
	f.Add("abcdefghijklmnopqrstuvwxyz")
	f.Add(strings.Repeat("\U0010FFFF", 20))
	f.Fuzz(func(t *testing.T, s string) {
		lo := StringLowerBound(s)
		if bytes.Compare(lo, []byte(s)) > 0 {
			t.Errorf("lower bound %q above %q", lo, s)
		}
		if hi, ok := StringUpperBound(s); ok && bytes.Compare(hi, []byte(s)) < 0 {
			t.Errorf("upper bound %q below %q", hi, s)
		}
	})
}
