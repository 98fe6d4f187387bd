package variant

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

// emptyMeta is the metadata of a variant without keys: version 1, sorted,
// 1-byte offsets, no keys, one offset 0.
var emptyMeta = []byte{0x11, 0, 0}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDecodeGolden decodes values built by hand from the spec's layout,
// one per primitive type, and containers.
func TestDecodeGolden(t *testing.T) {
	for _, c := range []struct{ name, meta, value, want string }{
		{"null", "110000", "00", `null`},
		{"true", "110000", "04", `true`},
		{"false", "110000", "08", `false`},
		{"int8", "110000", "0c d6", `-42`},
		{"int16", "110000", "10 d204", `1234`},
		{"int32", "110000", "14 40e20100", `123456`},
		{"int64", "110000", "18 1581873cb646a4ef", `-1178739453950721771`},
		{"double", "110000", "1c 000000000000f83f", `1.5`},
		{"double big", "110000", "1c ea8ca039593e2946", `1e+30`},
		{"double NaN", "110000", "1c 010000000000f87f", `"NaN"`},
		{"decimal4", "110000", "20 02 d2040000", `12.34`},
		{"decimal4 negative small", "110000", "20 03 fbffffff", `-0.005`},
		{"decimal8", "110000", "24 02 d202964900000000", `12345678.90`},
		{"decimal16 max", "110000", "28 00 ffffffff3f228a097ac4865a a84c3b4b", `99999999999999999999999999999999999999`},
		{"decimal16 negative", "110000", "28 26 01000000c0dd75f6853b79a557b3c4b4", `-0.99999999999999999999999999999999999999`},
		{"date", "110000", "2c 1a4e0000", `"2024-09-28"`},
		{"date before 1970", "110000", "2c ffffffff", `"1969-12-31"`},
		{"timestamp", "110000", "30 00a09b0e8e120600", `"2024-03-01T00:00:00.000000Z"`},
		{"timestamp ntz", "110000", "34 01a09b0e8e120600", `"2024-03-01T00:00:00.000001"`},
		{"float", "110000", "38 0000c03f", `1.5`},
		{"binary", "110000", "3c 03000000 010203", `"AQID"`},
		{"string", "110000", "40 02000000 6869", `"hi"`},
		{"time", "110000", "44 00f0638c0b000000", `"13:46:40.000000"`},
		{"timestamp nanos", "110000", "48 0100000000000000", `"1970-01-01T00:00:00.000000001Z"`},
		{"timestamp ntz nanos", "110000", "4c ffffffffffffffff", `"1969-12-31T23:59:59.999999999"`},
		{"uuid", "110000", "50 f24f9b6481fa49d1b74e8c09a6e31c56", `"f24f9b64-81fa-49d1-b74e-8c09a6e31c56"`},
		{"short string escapes", "110000", "15 22 0a 61 5c 01", `"\"\na\\\u0001"`},
		{"array", "110000", "03 03 00 02 03 06 0c01 00 096869", `[1,null,"hi"]`},
		{"array large, 2-byte offsets", "110000", "17 02000000 0000 0100 0200 00 04", `[null,true]`},
		// {"a":1,"b":"x"} with the values stored b first: offsets need not rise
		{"object", "11 02 00 01 02 6162", "02 02 00 01 00 02 04 0c01 0578", `{"a":1,"b":"x"}`},
		{"object values out of order", "11 02 00 01 02 6162", "02 02 00 01 02 00 04 0578 0c01", `{"a":1,"b":"x"}`},
		{"object 2-byte ids", "51 0100 0000 0100 6b", "12 01 0000 00 01 00", `{"k":null}`},
		{"nested", "11 01 00 01 61", "02 01 00 00 08 03 02 00 02 03 0c07 00", `{"a":[7,null]}`},
	} {
		got, err := ToJSON(unhex(t, c.meta), unhex(t, c.value))
		if err != nil || got != c.want {
			t.Errorf("%s: got %s, %v; want %s", c.name, got, err, c.want)
		}
	}
}

// TestDecodeRefuses checks that malformed variants are ErrCorrupt, never
// a panic or a wrong answer.
func TestDecodeRefuses(t *testing.T) {
	for _, c := range []struct{ name, meta, value string }{
		{"empty metadata", "", "00"},
		{"metadata version 2", "120000", "00"},
		{"dictionary size past the end", "11 05 00", "00"},
		{"key bytes past the end", "11 01 00 05 61", "00"},
		{"empty value", "110000", ""},
		{"bytes after the value", "110000", "00 00"},
		{"unknown type id", "110000", "54"},
		{"int64 cut short", "110000", "18 0102"},
		{"string longer than the value", "110000", "40 ffffffff 61"},
		{"short string cut", "110000", "0d 61"},
		{"decimal scale 39", "110000", "20 27 01000000"},
		{"decimal of 39 digits", "110000", "28 00 ffffffffffffffff ffffffffffffff7f"},
		{"time over a day", "110000", "44 0060d71d14000000"},
		{"array offset past values", "110000", "03 01 05 01 00"},
		{"array size past the end", "110000", "03 01 00 09 00"},
		{"object id past the dictionary", "11 01 00 01 61", "02 01 03 00 01 00"},
		{"object keys out of order", "11 02 00 01 02 6162", "02 02 01 00 00 01 02 00 00"},
		{"object key twice", "11 01 00 01 61", "02 02 00 00 00 01 02 00 00"},
		{"invalid UTF-8 string", "110000", "05 ff"},
		{"element count huge", "110000", "13 ffffffff 00"},
	} {
		_, err := ToJSON(unhex(t, c.meta), unhex(t, c.value))
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: got %v, want ErrCorrupt", c.name, err)
		}
	}
	// nesting: MaxDepth arrays of one element are read, one more is not
	deep := func(n int) []byte {
		v := []byte{0}
		for range n {
			v = append([]byte{0x03, 1, 0, byte(len(v))}, v...)
		}
		return v
	}
	if _, err := ToJSON(emptyMeta, deep(MaxDepth)); err != nil {
		t.Errorf("%d deep: %v", MaxDepth, err)
	}
	if _, err := ToJSON(emptyMeta, deep(MaxDepth+1)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("%d deep: %v, want ErrCorrupt", MaxDepth+1, err)
	}
}

// TestDecodeOutputBound: an array whose 255 elements all point at one
// 255-element array, 4 levels deep, is a few KiB of bytes but would print
// 255^4 nulls; it is refused at MaxJSON.
func TestDecodeOutputBound(t *testing.T) {
	v := []byte{0}
	for range 4 {
		head := []byte{0x03, 255}
		for range 256 {
			head = append(head, 0) // every offset 0, size byte below
		}
		head[len(head)-1] = byte(len(v))
		if len(v) > 255 {
			// 2-byte offsets
			head = []byte{0x03 | 1<<2, 255}
			for range 255 {
				head = append(head, 0, 0)
			}
			head = append(head, byte(len(v)), byte(len(v)>>8))
		}
		v = append(head, v...)
	}
	if len(v) > 4096 {
		t.Fatalf("value of %d bytes", len(v))
	}
	_, err := ToJSON(emptyMeta, v)
	if err == nil || !strings.Contains(err.Error(), "over") {
		t.Fatalf("got %v, want the output bound", err)
	}
}

// TestEncode checks the bytes Encode writes for each JSON shape and the
// types it chooses.
func TestEncode(t *testing.T) {
	for _, c := range []struct{ json, meta, value string }{
		{`null`, "110000", "00"},
		{` true `, "110000", "04"},
		{`-42`, "110000", "0c d6"},
		{`300`, "110000", "10 2c01"},
		{`70000`, "110000", "14 70110100"},
		{`5000000000`, "110000", "18 00f2052a01000000"},
		{`1.50`, "110000", "20 02 96000000"},
		{`-0.005`, "110000", "20 03 fbffffff"},
		{`12345678.90`, "110000", "24 02 d202964900000000"},
		{`9223372036854775808`, "110000", "28 00 0000000000000080 0000000000000000"},
		{`1e3`, "110000", "1c 0000000000408f40"},
		{`1.5E-7`, "110000", "1c 76830df4f521843e"},
		{`"hi"`, "110000", "09 6869"},
		{`"` + strings.Repeat("x", 64) + `"`, "110000", "40 40000000" + strings.Repeat("78", 64)},
		{`"\u00e9\ud83d\ude00"`, "110000", "19 c3a9 f09f9880"},
		{`[1, null]`, "110000", "03 02 00 02 03 0c01 00"},
		{`{"b":"x","a":1}`, "11 02 00 01 02 6162", "02 02 00 01 02 00 04 0578 0c01"},
		{`{"a":{"a":true}}`, "11 01 00 01 61", "02 01 00 00 06 02 01 00 00 01 04"},
		{`{}`, "110000", "02 00 00"},
		{`[]`, "110000", "03 00 00"},
	} {
		m, v, err := Encode(c.json)
		if err != nil {
			t.Errorf("%s: %v", c.json, err)
			continue
		}
		if !bytes.Equal(m, unhex(t, c.meta)) || !bytes.Equal(v, unhex(t, c.value)) {
			t.Errorf("%s: got %x %x, want %s %s", c.json, m, v, c.meta, c.value)
		}
	}
}

// TestEncodeRefuses lists what is not one JSON value, or not a variant.
func TestEncodeRefuses(t *testing.T) {
	for _, s := range []string{
		``, ` `, `{`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `01`, `1.`, `.5`, `-`, `1e`, `+1`,
		`nul`, `"x`, `"\x"`, `"\ud800"`, `"\ud800\u0041"`, "\"a\x01\"", `1 2`, `{"a":1,"a":2}`,
		`1e400`, `-1e999`, "\"\xff\"", `NaN`, `[` + strings.Repeat(`[`, MaxDepth) + strings.Repeat(`]`, MaxDepth+1),
	} {
		if _, _, err := Encode(s); err == nil {
			t.Errorf("%q: no error", s)
		}
	}
	// MaxDepth containers are taken
	if _, _, err := Encode(strings.Repeat(`[`, MaxDepth) + strings.Repeat(`]`, MaxDepth)); err != nil {
		t.Errorf("%d deep: %v", MaxDepth, err)
	}
}

// TestRoundTrip: the JSON printed of what Encode wrote is the input made
// compact, keys sorted; printing is a fixed point (what is printed encodes
// to a variant that prints the same text).
func TestRoundTrip(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"host": "a", "n": 1, "tags": ["x", {"z": null, "y": false}], "ratio": 0.25}`,
			`{"host":"a","n":1,"ratio":0.25,"tags":["x",{"y":false,"z":null}]}`},
		{`1.0`, `1.0`},
		{`-0`, `0`},
		{`1e21`, `1e+21`},
		{`1E2`, `100`},
		{`2.5e-7`, `2.5e-7`},
		{`123456789012345678901234567890.12345678`, `123456789012345678901234567890.12345678`},
		{`0.000000000000000000000000000000000000001`, `1e-39`},
		{`1234567890123456789012345678901234567890`, `1.2345678901234568e+39`},
		{`"tab\tquote\" slash\/ \u0007"`, `"tab\tquote\" slash/ \u0007"`},
		{`{"é":1,"e":2,"f":3}`, `{"e":2,"f":3,"é":1}`},
	} {
		m, v, err := Encode(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		got, err := ToJSON(m, v)
		if err != nil || got != c.want {
			t.Errorf("%s: got %s, %v; want %s", c.in, got, err, c.want)
		}
		m2, v2, err := Encode(got)
		if err != nil {
			t.Fatalf("%s: %v", got, err)
		}
		if again, err := ToJSON(m2, v2); err != nil || again != got {
			t.Errorf("%s: printed again as %s, %v", got, again, err)
		}
	}
}

// TestEncodeWide: over 255 members and 256 keys take the large count and
// 2-byte ids; over 255 bytes of values, 2-byte offsets.
func TestEncodeWide(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := range 300 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"k` + strings.Repeat("0", 3-len(itoa(i))) + itoa(i) + `":` + itoa(i))
	}
	b.WriteString("}")
	m, v, err := Encode(b.String())
	if err != nil {
		t.Fatal(err)
	}
	if v[0] != (16|1<<2|1)<<2|basicObject {
		t.Errorf("header %08b", v[0])
	}
	got, err := ToJSON(m, v)
	if err != nil || got != b.String() {
		t.Errorf("got %.80s…, %v", got, err)
	}
}

func itoa(i int) string { return string(appendInt(nil, i)) }

func appendInt(b []byte, i int) []byte {
	if i >= 10 {
		b = appendInt(b, i/10)
	}
	return append(b, byte('0'+i%10))
}

// TestObjectFields: the fields of an object, each value's JSON; not an
// object is ok false.
func TestObjectFields(t *testing.T) {
	m, v, err := Encode(`{"b":[1,{"x":null}],"a":"s","c":{}}`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	ok, err := ObjectFields(m, v, func(k, j []byte) error {
		got = append(got, string(k)+"="+string(j))
		return nil
	})
	if !ok || err != nil || strings.Join(got, " ") != `a="s" b=[1,{"x":null}] c={}` {
		t.Errorf("got %q %v %v", got, ok, err)
	}
	m, v, _ = Encode(`[1]`)
	if ok, err := ObjectFields(m, v, func(k, j []byte) error { return nil }); ok || err != nil {
		t.Errorf("array: %v %v", ok, err)
	}
}
