package rows

import (
	"strings"
	"testing"
)

// TestStringMapEntries: the hand-written reader of a map row's JSON
// object against the texts it must take (whitespace, escapes, surrogate
// pairs, null values, empty) and refuse, and StringMapText printing what
// it read as the Parquet reader prints a map.
func TestStringMapEntries(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{}`, `{}`},
		{" \t{ }\n", `{}`},
		{`{"a":"1","b":null}`, `{"a":"1","b":null}`},
		{` { "a" : "1" , "b" : null } `, `{"a":"1","b":null}`},
		{`{"q\"\\\/\b\f\n\r\t":"\u00e9\ud83d\ude42\u0001"}`, "{\"q\\\"\\\\/\\u0008\\u000c\\n\\r\\t\":\"é🙂\\u0001\"}"},
		{`{"ключ":"значение","":""}`, `{"ключ":"значение","":""}`},
	} {
		es, err := StringMapEntries(c.in, nil)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if got := StringMapText(es); got != c.want {
			t.Errorf("%s: printed %s, want %s", c.in, got, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{``, "not a JSON object"},
		{`[]`, "not a JSON object"},
		{`"{}"`, "not a JSON object"},
		{`{"a":1}`, `key "a": value 1 is not a string or null`},
		{`{"a":true}`, `key "a": value true is not a string or null`},
		{`{"a":["x"]}`, `key "a": value is not a string or null`},
		{`{"a":"x","a":"y"}`, `key "a" appears twice`},
		{`{"a":"x"`, "no comma or closing brace"},
		{`{"a":"x",}`, "not a JSON object: key"},
		{`{"a" "x"}`, "no colon"},
		{`{"a":"x"} {}`, "text after the JSON object"},
		{`{"a":"x` + "\n" + `"}`, "control character"},
		{`{"a":"\ud800"}`, "lone UTF-16 surrogate"},
		{`{"a":"\x"}`, `bad escape \x`},
		{`{"a":"\u12"}`, `bad \u escape`},
		{"{\"a\":\"\xff\"}", "not valid UTF-8"},
		{`{"a":"x`, "unterminated string"},
		{`{a:"x"}`, "not a JSON object: key: not a string"},
	} {
		_, err := StringMapEntries(c.in, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
	// many keys: a duplicate found past the pairwise bound too
	var b strings.Builder
	b.WriteString("{")
	for i := range 40 {
		b.WriteString(`"k` + strings.Repeat("x", i) + `":"v",`)
	}
	b.WriteString(`"k":"again"}`)
	if _, err := StringMapEntries(b.String(), nil); err == nil || !strings.Contains(err.Error(), `key "k" appears twice`) {
		t.Errorf("40 keys and a duplicate: %v", err)
	}
}
